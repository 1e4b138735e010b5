import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { PUBLISHED } from './media-layout.js';
import { parsePasswordHash, type PasswordHash } from './password.js';

/**
 * The server's one typed config, read once from the environment. Every problem is collected
 * and reported together so that an operator fixes them in one pass, not one per restart.
 */

/** Published in the README; a server using it says so loudly and refuses to run in production. */
export const DEMO_PASSWORD = 'silobolsa2023';
/** Precomputed so that starting in demo mode costs no hashing; checked by a test. */
export const DEMO_PASSWORD_HASH =
  'scrypt$32768$8$3$1CGNZtlEaERN/fx/u6xpgQ==$rmq9mbTtjaj7H/UE7rX5yLbbkXr1UApRLOcUDiIdWiM=';
/** Public in this repository, so it protects nothing: development only. */
export const DEV_SESSION_SECRET = 'dev-only-session-secret-change-me-0123456789';

/** The client refuses stored names longer than this (machines/session.ts MAX_FIELD_LENGTH). */
const MAX_NAME_LENGTH = 200;
const MIN_SECRET_LENGTH = 32;
/** ASVS 4.0.3 V2.2.1: no more than 100 failed attempts per hour on one account. */
export const MAX_FAILURES_PER_HOUR_CEILING = 100;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What Fastify's `trustProxy` accepts, minus the hop count it no longer honours on its own. */
export type TrustProxy = boolean | string[] | { hops: number };

export interface SigninLimits {
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
  /** Signins admitted to wait for a hash; beyond them the answer is "retry in 1 s". */
  maxWaitingHashes: number;
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
  maxSessions: number;
  production: boolean;
  trustProxy: TrustProxy;
  /** Absolute paths. */
  videoFile: string;
  captionsFile: string;
  posterFile: string;
  /** A folder made by `npm run prepare-video` (adaptive video), or null: the single MP4 above. */
  mediaDir: string | null;
  distDir: string;
  signin: SigninLimits;
  logLevel: LogLevel;
  /** Origins outside this server that the built app talks to (from the client's URLs). */
  outsideOrigins: { connect: string[]; media: string[]; img: string[] };
}

export type Env = Record<string, string | undefined>;

export const SERVER_DEFAULTS = {
  PORT: '8080',
  HOST: '127.0.0.1',
  BASE_PATH: '/capacitacion',
  SHARED_USERNAME: 'capacitacion',
  PASSWORD_HASH: '',
  EMPRESA: 'Agro Demo S.A.',
  NOMBRES: 'Visitante Demo',
  SESSION_SECRET: '',
  SESSION_TTL_S: '7200',
  SESSION_MAX_COUNT: '10000',
  NODE_ENV: 'development',
  TRUST_PROXY: 'false',
  VIDEO_FILE: 'media/sample.mp4',
  CAPTIONS_FILE: 'media/sample.es.vtt',
  POSTER_FILE: 'media/poster.jpg',
  MEDIA_DIR: '',
  DIST_DIR: 'dist',
  SIGNIN_FREE_FAILURES: '5',
  SIGNIN_BACKOFF_BASE_MS: '1000',
  SIGNIN_BACKOFF_MAX_MS: '300000',
  SIGNIN_MAX_FAILURES_PER_HOUR: '100',
  SIGNIN_MAX_CONCURRENT_HASHES: '1',
  SIGNIN_MAX_WAITING_HASHES: '32',
  SIGNIN_MAX_REQUESTS_PER_MINUTE: '30',
  SIGNIN_MAX_TRACKED_ADDRESSES: '10000',
  LOG_LEVEL: 'info',
  API_URL: '',
  VIDEO_URL: '',
  CAPTIONS_URL: '',
  WEB_VITALS_URL: '',
} as const;

type Name = keyof typeof SERVER_DEFAULTS;

/** The same rule as the client build (scripts/client-config.ts), so both agree on the base. */
const BASE_PATH_PATTERN = /^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): ServerConfig {
  const problems: string[] = [];
  // As in the client build: unset means the default; set-but-empty is a value (and usually
  // a mistake, reported below), except where empty is documented as "not configured".
  const get = (name: Name): string => env[name] ?? SERVER_DEFAULTS[name];
  const integer = (name: Name, min: number, max: number): number => {
    const raw = get(name);
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
      return Number(SERVER_DEFAULTS[name]);
    }
    return value;
  };
  const name = (key: Name): string => {
    const value = get(key);
    if (!value) problems.push(`${key} must not be empty`);
    if (value.length > MAX_NAME_LENGTH)
      problems.push(`${key} must be at most ${MAX_NAME_LENGTH} characters`);
    return value;
  };

  const file = (key: Name): string => {
    const value = get(key);
    if (!value) problems.push(`${key} must not be empty`);
    return resolve(cwd, value);
  };

  const production = get('NODE_ENV') === 'production';

  const basePath = get('BASE_PATH').replace(/\/+$/, '');
  if (!BASE_PATH_PATTERN.test(basePath))
    problems.push('BASE_PATH must look like /capacitacion (no trailing slash)');

  const username = name('SHARED_USERNAME');

  // Trimmed: a hash or secret pasted from a terminal often carries a newline.
  const hashText = get('PASSWORD_HASH').trim();
  const usingDemoPassword = hashText === '';
  const passwordHash = parsePasswordHash(usingDemoPassword ? DEMO_PASSWORD_HASH : hashText);
  if (!passwordHash)
    problems.push(
      'PASSWORD_HASH is not a hash made by `npm run hash-password` (scrypt$N$r$p$salt$key)',
    );
  if (production && usingDemoPassword)
    problems.push(
      'PASSWORD_HASH must be set in production (the demo password is public); make one with `npm run hash-password`',
    );

  const secretText = get('SESSION_SECRET').trim();
  const usingDevSecret = secretText === '';
  if (!usingDevSecret && secretText.length < MIN_SECRET_LENGTH)
    problems.push(`SESSION_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
  if (production && usingDevSecret)
    problems.push(
      'SESSION_SECRET must be set in production (at least 32 random characters, e.g. `openssl rand -base64 48`)',
    );

  const logLevel = get('LOG_LEVEL');
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const signin: SigninLimits = {
    freeFailures: integer('SIGNIN_FREE_FAILURES', 0, 20),
    backoffBaseMs: integer('SIGNIN_BACKOFF_BASE_MS', 1, 3_600_000),
    backoffMaxMs: integer('SIGNIN_BACKOFF_MAX_MS', 1, 3_600_000),
    maxFailuresPerHour: integer('SIGNIN_MAX_FAILURES_PER_HOUR', 1, MAX_FAILURES_PER_HOUR_CEILING),
    maxConcurrentHashes: integer('SIGNIN_MAX_CONCURRENT_HASHES', 1, 64),
    maxWaitingHashes: integer('SIGNIN_MAX_WAITING_HASHES', 0, 1_000),
    maxRequestsPerMinute: integer('SIGNIN_MAX_REQUESTS_PER_MINUTE', 1, 10_000),
    maxTrackedAddresses: integer('SIGNIN_MAX_TRACKED_ADDRESSES', 100, 1_000_000),
  };
  if (signin.backoffMaxMs < signin.backoffBaseMs)
    problems.push('SIGNIN_BACKOFF_MAX_MS must not be less than SIGNIN_BACKOFF_BASE_MS');

  const config: ServerConfig = {
    port: integer('PORT', 0, 65_535),
    host: name('HOST'),
    basePath,
    username,
    passwordHash: passwordHash ?? (parsePasswordHash(DEMO_PASSWORD_HASH) as PasswordHash),
    usingDemoPassword,
    empresa: name('EMPRESA'),
    nombres: name('NOMBRES'),
    sessionSecret: usingDevSecret ? DEV_SESSION_SECRET : secretText,
    usingDevSecret,
    sessionTtlS: integer('SESSION_TTL_S', 1, 31 * 24 * 3600),
    maxSessions: integer('SESSION_MAX_COUNT', 1, 10_000_000),
    production,
    trustProxy: parseTrustProxy(get('TRUST_PROXY'), problems),
    videoFile: file('VIDEO_FILE'),
    captionsFile: file('CAPTIONS_FILE'),
    posterFile: file('POSTER_FILE'),
    mediaDir: mediaDir(get('MEDIA_DIR'), cwd, problems),
    distDir: file('DIST_DIR'),
    signin,
    logLevel: logLevel as LogLevel,
    outsideOrigins: outsideOrigins(env, problems),
  };

  if (problems.length) throw new Error(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return config;
}

function mediaDir(raw: string, cwd: string, problems: string[]): string | null {
  if (!raw) return null;
  const dir = resolve(cwd, raw);
  if (!existsSync(join(dir, PUBLISHED.master)))
    problems.push(
      `MEDIA_DIR has no ${PUBLISHED.master}: publish a video there with \`npm run prepare-video -- SOURCE --out ${raw}\``,
    );
  return dir;
}

function parseTrustProxy(raw: string, problems: string[]): TrustProxy {
  const lower = raw.toLowerCase();
  if (lower === 'false') return false;
  if (lower === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops === 0) return false;
    if (hops <= 10) return { hops };
  } else {
    const entries = raw.split(',').map((entry) => entry.trim());
    const valid = entries.every((entry) => {
      const [address = '', prefix, ...rest] = entry.split('/');
      const family = isIP(address);
      if (family === 0 || rest.length) return false;
      if (prefix === undefined) return true;
      const bits = Number(prefix);
      return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
    });
    if (valid) return entries;
  }
  problems.push(
    'TRUST_PROXY must be true, false, a number of proxy hops (1-10) or a comma list of proxy addresses/CIDRs',
  );
  return false;
}

/**
 * The client reads these at build time (scripts/client-config.ts); the server needs only
 * their origins, to let the browser reach them under the CSP.
 */
function outsideOrigins(env: Env, problems: string[]): ServerConfig['outsideOrigins'] {
  const originOf = (name: Name): string | null => {
    const raw = env[name]?.trim();
    if (!raw || raw.startsWith('/')) return null;
    try {
      const url = new URL(raw);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
    } catch {
      // reported below
    }
    problems.push(`${name} must be an http(s) URL or a path starting with /`);
    return null;
  };
  const api = originOf('API_URL');
  const video = originOf('VIDEO_URL');
  const captions = originOf('CAPTIONS_URL');
  const vitals = originOf('WEB_VITALS_URL');
  const list = (...origins: (string | null)[]) => [
    ...new Set(origins.filter((o): o is string => o !== null)),
  ];
  return {
    // The signin and the metrics beacon are fetches.
    connect: list(api, vitals),
    // <video> and <track> load from the video host, or from the API host by default.
    media: list(api, video, captions),
    // The poster comes from the API host when the API is outside.
    img: list(api),
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
