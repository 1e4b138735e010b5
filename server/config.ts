import { resolve } from 'node:path';
import { keysDirFor } from '../config/media-layout.js';
import { parsePasswordHash, type PasswordHash } from '../config/password-hash.js';
import {
  DEMO_PASSWORD,
  LOG_LEVELS,
  SERVER_SETTINGS,
  outsideOrigin,
  readSettings,
  type Env,
  type TrustProxy,
} from '../config/settings.js';

export { DEMO_PASSWORD, type Env, type TrustProxy };

/** Precomputed so that starting in demo mode costs no hashing; checked by a test. */
export const DEMO_PASSWORD_HASH =
  'scrypt$32768$8$3$1CGNZtlEaERN/fx/u6xpgQ==$rmq9mbTtjaj7H/UE7rX5yLbbkXr1UApRLOcUDiIdWiM=';
/** Public in this repository, so it protects nothing: development only. */
export const DEV_SESSION_SECRET = 'dev-only-session-secret-change-me-0123456789';

type LogLevel = (typeof LOG_LEVELS)[number];

interface SigninLimits {
  /** Failed signins per address answered without any wait. */
  freeFailures: number;
  /** The first wait after the free failures; each further failure doubles it. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Hard ceiling per address in any sliding hour (≤ 100). */
  maxFailuresPerHour: number;
  /**
   * Hashes computed at once. Each takes a whole core for ~150 ms; on a small machine one at a
   * time leaves the other cores to the pages and the video.
   */
  maxConcurrentHashes: number;
  /** Signins waiting for their turn or a hash; beyond them the answer is 429 "busy". */
  maxWaitingHashes: number;
  /** A backoff this short is waited out by the server instead of refused. */
  maxHoldMs: number;
  /** Requests per minute per address to the /api/users/* routes, whatever their outcome. */
  maxRequestsPerMinute: number;
  /** Bounds the limiter's memory; the least recently seen addresses are forgotten first. */
  maxTrackedAddresses: number;
}

export interface ServerConfig {
  port: number;
  host: string;
  /** e.g. `/capacitacion`, no trailing slash. */
  basePath: string;
  username: string;
  passwordHash: PasswordHash;
  usingDemoPassword: boolean;
  empresa: string;
  nombres: string;
  sessionSecret: string;
  usingDevSecret: boolean;
  sessionTtlS: number;
  /** A download's own period on the phone, from the download; 0: it ends with the session. */
  offlineCopyDays: number;
  maxSessions: number;
  production: boolean;
  trustProxy: TrustProxy;
  /** Absolute paths. */
  videoFile: string;
  captionsFile: string;
  chaptersFile: string;
  posterFile: string;
  /** What `npm run prepare-video` published (absolute), or null: the single video above. */
  mediaDir: string | null;
  /** Each publish's key (absolute), beside mediaDir; null without it. */
  mediaKeysDir: string | null;
  distDir: string;
  signin: SigninLimits;
  logLevel: LogLevel;
  /** Prometheus metrics on their own loopback listener; null: none. */
  metrics: { port: number; host: string } | null;
  /** Shared sessions and limits for several instances; null keeps them in this process. */
  redisUrl: string | null;
  /** What the visitors' phones report (docs/decisions.md #16); null: REPORTS=off. */
  reports: {
    perMinute: number;
    retentionDays: number;
    /** Absolute; the file store's folder when there is no Redis. */
    dataDir: string;
  } | null;
  /** The staff page (docs/staff-page.md); null: STAFF_PASSWORD_HASH unset, the page is off. */
  staff: { passwordHash: PasswordHash; ttlS: number } | null;
  /** Origins outside this server that the built app talks to (from the client's URLs). */
  outsideOrigins: { connect: string[]; media: string[]; img: string[] };
}

/**
 * The server's one typed config, from the settings table (config/settings.ts), read once at
 * start; a wrong value throws with the list of every problem.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): ServerConfig {
  const s = readSettings(env, SERVER_SETTINGS);
  const usingDemoPassword = s.PASSWORD_HASH === '';
  const usingDevSecret = s.SESSION_SECRET === '';
  const mediaDir = s.MEDIA_DIR ? resolve(cwd, s.MEDIA_DIR) : null;
  const origins = (...values: string[]) => [
    ...new Set(values.map(outsideOrigin).filter((origin) => origin !== null)),
  ];
  return {
    port: s.PORT,
    host: s.HOST,
    basePath: s.BASE_PATH,
    username: s.SHARED_USERNAME,
    // Checked by the table's parser: never null here.
    passwordHash: parsePasswordHash(usingDemoPassword ? DEMO_PASSWORD_HASH : s.PASSWORD_HASH)!,
    usingDemoPassword,
    empresa: s.EMPRESA,
    nombres: s.NOMBRES,
    sessionSecret: usingDevSecret ? DEV_SESSION_SECRET : s.SESSION_SECRET,
    usingDevSecret,
    sessionTtlS: s.SESSION_TTL_S,
    offlineCopyDays: s.OFFLINE_COPY_DAYS,
    maxSessions: s.SESSION_MAX_COUNT,
    production: s.NODE_ENV === 'production',
    trustProxy: s.TRUST_PROXY,
    videoFile: resolve(cwd, s.VIDEO_FILE),
    captionsFile: resolve(cwd, s.CAPTIONS_FILE),
    chaptersFile: resolve(cwd, s.CHAPTERS_FILE),
    posterFile: resolve(cwd, s.POSTER_FILE),
    mediaDir,
    mediaKeysDir: mediaDir && resolve(cwd, s.MEDIA_KEYS_DIR || keysDirFor(mediaDir)),
    distDir: resolve(cwd, s.DIST_DIR),
    signin: {
      freeFailures: s.SIGNIN_FREE_FAILURES,
      backoffBaseMs: s.SIGNIN_BACKOFF_BASE_MS,
      backoffMaxMs: s.SIGNIN_BACKOFF_MAX_MS,
      maxFailuresPerHour: s.SIGNIN_MAX_FAILURES_PER_HOUR,
      maxConcurrentHashes: s.SIGNIN_MAX_CONCURRENT_HASHES,
      maxWaitingHashes: s.SIGNIN_MAX_WAITING_HASHES,
      maxHoldMs: s.SIGNIN_MAX_HOLD_MS,
      maxRequestsPerMinute: s.SIGNIN_MAX_REQUESTS_PER_MINUTE,
      maxTrackedAddresses: s.SIGNIN_MAX_TRACKED_ADDRESSES,
    },
    logLevel: s.LOG_LEVEL,
    redisUrl: s.REDIS_URL || null,
    metrics: s.METRICS_PORT ? { port: Number(s.METRICS_PORT), host: s.METRICS_HOST } : null,
    reports: s.REPORTS
      ? {
          perMinute: s.REPORTS_PER_MINUTE,
          retentionDays: s.REPORTS_RETENTION_DAYS,
          dataDir: resolve(cwd, s.DATA_DIR),
        }
      : null,
    staff: s.STAFF_PASSWORD_HASH
      ? { passwordHash: parsePasswordHash(s.STAFF_PASSWORD_HASH)!, ttlS: s.STAFF_SESSION_TTL_S }
      : null,
    // The client reads these URLs at build time; the server lets the browser reach their
    // origins under the CSP.
    outsideOrigins: {
      // The signin, the metrics beacon and the transcript's captions are fetches.
      connect: origins(s.API_URL, s.CAPTIONS_URL),
      // <video> and <track> load from the video host, or from the API host by default.
      media: origins(s.API_URL, s.VIDEO_URL, s.CAPTIONS_URL),
      // The poster comes from the API host when the API is outside.
      img: origins(s.API_URL),
    },
  };
}

/** What an operator must read at start; the demo password is the loud one. */
export function configWarnings(config: ServerConfig): string[] {
  const warnings: string[] = [];
  if (config.usingDemoPassword)
    warnings.push(
      `DEMO PASSWORD IN USE: anyone can sign in with "${DEMO_PASSWORD}". Set PASSWORD_HASH (npm run hash-password).`,
    );
  if (config.usingDevSecret)
    warnings.push(
      'SESSION_SECRET is not set: cookies are signed with a public development secret.',
    );
  if (typeof config.trustProxy === 'object' && !Array.isArray(config.trustProxy))
    warnings.push(
      'TRUST_PROXY is a hop count: safe only when clients cannot reach this server except through the proxy. Prefer the proxy addresses.',
    );
  return warnings;
}
