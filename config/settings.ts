/**
 * Every setting of the site, declared once: name, default, parser, who reads it and what it
 * means. The server's config (server/config.ts), the client's build-time config
 * (vite.config.ts), `npm start`'s rebuild check (scripts/build/build-check.ts) and the table in
 * docs/configuration.md (kept equal by tests/config/settings.test.ts) all come from this table.
 *
 * Unset means the default; set-but-empty is a value (and usually a mistake, reported), except
 * where empty is documented as "not configured".
 */
import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { MAX_FIELD_LENGTH, SESSION_MAX_AGE_S, SESSION_TIMEOUT_MS } from '../machines/session.js';
import { REPORTS_PATH } from './field-report.js';
import { CURRENT_FILE, PUBLISHED } from './media-layout.js';
import { parsePasswordHash } from './password-hash.js';

/**
 * Who reads a setting: the server at start, the build (a change needs a new build), both, or
 * the proxy (`npm run proxy`, scripts/ops/proxy.ts).
 */
type Reader = 'server' | 'build' | 'both' | 'proxy';

type Parser<T> = z.ZodType<T, string>;

interface Setting<R extends Reader, T> {
  readBy: R;
  default: string;
  parse: Parser<T>;
  meaning: string;
  /** The documented default, where the raw default says too little. */
  shown?: string;
}

const setting = <R extends Reader, T>(
  readBy: R,
  defaultValue: string,
  parse: Parser<T>,
  meaning: string,
  shown?: string,
): Setting<R, T> => ({ readBy, default: defaultValue, parse, meaning, shown });

/** Published in the README; a server using it says so loudly and refuses to run in production. */
export const DEMO_PASSWORD = 'silobolsa2023';

/** ASVS 4.0.3 V2.2.1: no more than 100 failed attempts per hour on one account. */
const MAX_FAILURES_PER_HOUR_CEILING = 100;

const MIN_SECRET_LENGTH = 32;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** What Fastify's `trustProxy` accepts, minus the hop count it no longer honours on its own. */
export type TrustProxy = boolean | string[] | { hops: number };

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .refine((raw) => /^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max, {
      error: (issue) =>
        `must be a whole number from ${min} to ${max} (got "${String(issue.input)}")`,
    })
    .transform(Number);

const name = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_FIELD_LENGTH, `must be at most ${MAX_FIELD_LENGTH} characters`);

const path = z.string().min(1, 'must not be empty');

/** Empty, or a path to an existing file. */
const optionalFile = z.string().refine((raw) => raw === '' || existsSync(raw), {
  error: (issue) => `names no file ("${String(issue.input)}")`,
});

/** `host:port,host:port`: the instances behind the proxy. */
const upstreams = z
  .string()
  .transform((raw) => raw.split(',').map((entry) => entry.trim()))
  .refine(
    (entries) =>
      entries.every((entry) => {
        const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
        return match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65_535;
      }),
    { error: 'must be a comma list of host:port (e.g. 127.0.0.1:8080,127.0.0.1:8081)' },
  );

/** Trimmed: a hash or secret pasted from a terminal often carries a newline. */
const trimmed = z.string().transform((raw) => raw.trim());

/** Empty (not set), or what `npm run hash-password` printed. */
const passwordHash = trimmed.refine((text) => text === '' || parsePasswordHash(text) !== null, {
  error: 'is not a hash made by `npm run hash-password` (scrypt$N$r$p$salt$key)',
});

const basePath = z
  .string()
  .transform((raw) => raw.replace(/\/+$/, ''))
  .refine((base) => /^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(base), {
    error: 'must look like /capacitacion (no trailing slash)',
  });

/** Empty (same origin), a path on this server, or an http(s) URL elsewhere. */
const urlOrPath = trimmed
  .refine((raw) => raw === '' || raw.startsWith('/') || outsideOrigin(raw) !== null, {
    error: 'must be an http(s) URL or a path starting with /',
  })
  .transform((raw) => raw.replace(/\/+$/, ''));

/** The origin of a URL on another host; null for a path or anything that is not http(s). */
export function outsideOrigin(raw: string): string | null {
  if (raw === '' || raw.startsWith('/')) return null;
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

function trustProxy(raw: string): TrustProxy | null {
  const lower = raw.toLowerCase();
  if (lower === 'false') return false;
  if (lower === 'true') return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops === 0) return false;
    return hops <= 10 ? { hops } : null;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length) return false;
    if (prefix === undefined) return true;
    return /^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  });
  return valid ? entries : null;
}

const SETTINGS = {
  PORT: setting('server', '8080', wholeNumber(0, 65_535), 'listen port (`0`: any free port)'),
  HOST: setting('server', '127.0.0.1', name, 'listen address (`0.0.0.0` to serve the network)'),
  BASE_PATH: setting(
    'both',
    '/capacitacion',
    basePath,
    'where the site lives; every other path redirects to `{base}/login`',
  ),
  SHARED_USERNAME: setting(
    'both',
    'capacitacion',
    name,
    'the fixed shared username the login sends as `usuario`',
  ),
  PASSWORD_HASH: setting(
    'server',
    '',
    passwordHash,
    'the output of `npm run hash-password` (scrypt, parameters inside)',
    `(empty: demo password \`${DEMO_PASSWORD}\`)`,
  ),
  EMPRESA: setting(
    'server',
    'Agro Demo S.A.',
    name,
    `company name the signin returns (at most ${MAX_FIELD_LENGTH} characters)`,
  ),
  NOMBRES: setting(
    'server',
    'Visitante Demo',
    name,
    `the visitor's names the signin returns (at most ${MAX_FIELD_LENGTH} characters)`,
  ),
  SESSION_SECRET: setting(
    'server',
    '',
    trimmed.refine((text) => text === '' || text.length >= MIN_SECRET_LENGTH, {
      error: `must be at least ${MIN_SECRET_LENGTH} characters`,
    }),
    `signs the session cookie; at least ${MIN_SECRET_LENGTH} characters`,
    '(empty: a public development secret)',
  ),
  // The lifetime's three numbers, which is which and why: machines/session.ts.
  SESSION_TTL_S: setting(
    'server',
    String(SESSION_MAX_AGE_S),
    wholeNumber(1, 31 * 24 * 3600),
    "server session lifetime, from signin (the video's gate, the cookie's `Max-Age`); the spec's 7,200 s by default, see below",
  ),
  SESSION_MAX_COUNT: setting(
    'server',
    '10000',
    wholeNumber(1, 10_000_000),
    'most sessions kept in memory (least recently used dropped); in Redis its `maxmemory` bounds them',
  ),
  NODE_ENV: setting(
    'server',
    'development',
    z.string(),
    '`production` refuses the demo password and the default secret, and turns on HSTS',
  ),
  TRUST_PROXY: setting(
    'server',
    'false',
    z.string().transform((raw, context) => {
      const parsed = trustProxy(raw);
      if (parsed !== null) return parsed;
      context.addIssue({
        code: 'custom',
        message:
          'must be true, false, a number of proxy hops (1-10) or a comma list of proxy addresses/CIDRs',
      });
      return z.NEVER;
    }),
    '`true`, `false`, a hop count, or a comma list of proxy addresses: lets limits see real client addresses',
  ),
  VIDEO_FILE: setting('server', 'media/sample.mp4', path, 'the training video the server protects'),
  CAPTIONS_FILE: setting('server', 'media/sample.es.vtt', path, 'its Spanish captions'),
  CHAPTERS_FILE: setting(
    'server',
    'media/sample.chapters.vtt',
    path,
    'its chapters, a WebVTT chapters track (`npm run chapters` makes one from a hand-written list)',
  ),
  POSTER_FILE: setting('server', 'media/poster.jpg', path, 'its poster image'),
  MEDIA_DIR: setting(
    'server',
    '',
    z.string().superRefine((raw, context) => {
      const publishes = [PUBLISHED.master, CURRENT_FILE].map((name) => resolve(raw, name));
      if (raw !== '' && !publishes.some((path) => existsSync(path)))
        context.addIssue({
          code: 'custom',
          message: `has no ${PUBLISHED.master}: publish a video there with \`npm run prepare-video -- SOURCE --out ${raw}\``,
        });
    }),
    'a folder made by `npm run prepare-video`: adaptive video, its fallback MP4, poster and captions',
    '(empty: the single MP4 above)',
  ),
  MEDIA_KEYS_DIR: setting(
    'server',
    '',
    z.string(),
    "the publishes' keys (`npm run prepare-video` writes one per publish; the server gives it only to a live session), never inside `MEDIA_DIR`",
    '(empty: `{MEDIA_DIR}.keys`)',
  ),
  DIST_DIR: setting('server', 'dist', path, 'the built front end'),
  METRICS_PORT: setting(
    'server',
    '',
    z.string().refine((raw) => raw === '' || (/^\d+$/.test(raw) && Number(raw) <= 65_535), {
      error: 'must be empty or a port number',
    }),
    'Prometheus metrics at `http://{METRICS_HOST}:{port}/metrics`, never on the public port',
    '(empty: no metrics)',
  ),
  METRICS_HOST: setting('server', '127.0.0.1', name, 'the metrics listen address (loopback)'),
  METRICS_OPEN: setting(
    'server',
    'false',
    z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .transform((raw) => raw === 'true'),
    '`true` lets production serve the metrics on a `METRICS_HOST` other than loopback: they have no authentication, so only behind a firewall',
  ),
  PROXY_PORT: setting('proxy', '8443', wholeNumber(1, 65_535), 'HTTPS port of `npm run proxy`'),
  PROXY_HOST: setting(
    'proxy',
    '127.0.0.1',
    name,
    'its listen address (`0.0.0.0` to serve the network)',
  ),
  UPSTREAMS: setting(
    'proxy',
    '127.0.0.1:8080',
    upstreams,
    'the instances behind the proxy, a comma list of `host:port`',
  ),
  TLS_CERT: setting(
    'proxy',
    '',
    optionalFile,
    "the proxy's certificate chain (PEM)",
    '(empty: a self-signed pair for the run)',
  ),
  TLS_KEY: setting('proxy', '', optionalFile, 'its private key (PEM)'),
  PROXY_AUTH_CACHE_S: setting(
    'proxy',
    '10',
    wholeNumber(0, 10),
    "seconds the proxy trusts one cookie's access answer: the signout lag of the video files",
  ),
  SIGNIN_FREE_FAILURES: setting(
    'server',
    '5',
    wholeNumber(0, 20),
    'failed signins per address with no wait',
  ),
  SIGNIN_BACKOFF_BASE_MS: setting(
    'server',
    '1000',
    wholeNumber(1, 3_600_000),
    'first wait after those, doubling each failure',
  ),
  SIGNIN_BACKOFF_MAX_MS: setting('server', '300000', wholeNumber(1, 3_600_000), 'longest wait'),
  SIGNIN_MAX_FAILURES_PER_HOUR: setting(
    'server',
    '100',
    wholeNumber(1, MAX_FAILURES_PER_HOUR_CEILING),
    `hard cap per address in any sliding hour (at most ${MAX_FAILURES_PER_HOUR_CEILING})`,
  ),
  SIGNIN_MAX_CONCURRENT_HASHES: setting(
    'server',
    '1',
    wholeNumber(1, 64),
    'password hashes computed at once, site-wide (each takes a core for about 150 ms)',
  ),
  SIGNIN_MAX_WAITING_HASHES: setting(
    'server',
    '100',
    wholeNumber(0, 1_000),
    'signins waiting in line for a hash (a crowd behind one address waits, is not refused); more get 429 with the time the line takes to drain',
  ),
  SIGNIN_MAX_HOLD_MS: setting(
    'server',
    '2000',
    wholeNumber(0, 60_000),
    'a backoff this short is waited out in line instead of answered 429 (a few typos in a crowd refuse nobody)',
  ),
  SIGNIN_MAX_REQUESTS_PER_MINUTE: setting(
    'server',
    '600',
    wholeNumber(1, 10_000),
    'requests to `/api/users/*` per address (or per device cookie) per minute, whatever their outcome: against floods, above what a crowd sends',
  ),
  SIGNIN_MAX_TRACKED_ADDRESSES: setting(
    'server',
    '10000',
    wholeNumber(100, 1_000_000),
    "memory bound of the in-memory limiter (in Redis, an address's keys expire after the hour)",
  ),
  REDIS_URL: setting(
    'server',
    '',
    trimmed.refine(
      (raw) => {
        if (raw === '' || raw.startsWith('/')) return true;
        try {
          const { protocol, hostname } = new URL(raw);
          return (protocol === 'redis:' || protocol === 'rediss:') && hostname !== '';
        } catch {
          return false;
        }
      },
      {
        error:
          'must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379/0) or the absolute path of a Unix socket',
      },
    ),
    'sessions and signin limits shared by every instance: `redis://host:port/db`, `rediss://…`, a socket',
    '(empty: everything in this process)',
  ),
  LOG_LEVEL: setting(
    'server',
    'info',
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
    LOG_LEVELS.map((level) => `\`${level}\``).join(', '),
  ),
  API_URL: setting(
    'both',
    '',
    urlOrPath,
    'the `{api}` of the signin call; an outside origin is added to the CSP',
    '(empty: same origin)',
  ),
  VIDEO_URL: setting(
    'both',
    '',
    urlOrPath,
    'the video; an outside host is not protected by this server',
    '`{API_URL}/api/video`',
  ),
  CAPTIONS_URL: setting(
    'both',
    '',
    urlOrPath,
    'the captions track',
    '`{API_URL}/api/video/captions.vtt`',
  ),
  SESSION_TIMEOUT_MS: setting(
    'build',
    String(SESSION_TIMEOUT_MS),
    wholeNumber(1, 2_147_483_647),
    'the inactivity timer of the spec (20 h, see below)',
  ),
  SIGNIN_TIMEOUT_MS: setting(
    'build',
    '15000',
    wholeNumber(1, 600_000),
    'a signin with no answer by then counts as a connection failure',
  ),
  CHUNK_TIMEOUT_MS: setting(
    'build',
    '120000',
    wholeNumber(1, 3_600_000),
    "the video screen's chunk load timeout",
  ),
  OFFLINE_COPY_DAYS: setting(
    'server',
    '7',
    wholeNumber(0, 365),
    'days a downloaded copy plays with no signal, from the download (`0`: it ends with the session)',
  ),
  REPORTS: setting(
    'both',
    'on',
    z.enum(['on', 'off'], { error: 'must be on or off' }).transform((raw) => raw === 'on'),
    'phones report what was watched and how it played, to this server only; `off`: nothing is sent, the route answers 404',
  ),
  REPORTS_PER_MINUTE: setting(
    'server',
    '30',
    wholeNumber(1, 1_000),
    'reports accepted per session per minute (more get 429)',
  ),
  REPORTS_RETENTION_DAYS: setting(
    'server',
    '365',
    wholeNumber(1, 3_650),
    'days a report is kept; older ones are removed',
  ),
  STAFF_PASSWORD_HASH: setting(
    'server',
    '',
    passwordHash,
    "the staff page's own password (`{base}/equipo`, docs/staff-page.md), made by `npm run hash-password`",
    '(empty: no staff page, 404)',
  ),
  STAFF_SESSION_TTL_S: setting(
    'server',
    '28800',
    wholeNumber(60, 7 * 24 * 3600),
    "how long a staff signin lasts (the staff cookie's `Max-Age`)",
  ),
  DATA_DIR: setting(
    'server',
    'data',
    path,
    "where the reports are stored without `REDIS_URL` (`field-reports.jsonl`); one instance's folder",
  ),
};

export type SettingName = keyof typeof SETTINGS;
type ReaderOf<N extends SettingName> = (typeof SETTINGS)[N]['readBy'];
export type ServerSettingName = {
  [N in SettingName]: ReaderOf<N> extends 'build' | 'proxy' ? never : N;
}[SettingName];
export type BuildSettingName = {
  [N in SettingName]: ReaderOf<N> extends 'server' | 'proxy' ? never : N;
}[SettingName];
export type ProxySettingName = {
  [N in SettingName]: ReaderOf<N> extends 'proxy' ? N : never;
}[SettingName];
export type SettingValues<N extends SettingName> = {
  [K in N]: z.output<(typeof SETTINGS)[K]['parse']>;
};

const ALL = Object.keys(SETTINGS) as SettingName[];
const readBy = (...readers: Reader[]) =>
  ALL.filter((key) => readers.includes(SETTINGS[key].readBy));
export const SERVER_SETTINGS = readBy('server', 'both') as ServerSettingName[];
export const BUILD_SETTINGS = readBy('build', 'both') as BuildSettingName[];
export const PROXY_SETTINGS = readBy('proxy') as ProxySettingName[];

/** Rules between settings, checked when the settings they name are valid. */
const RULES: {
  names: SettingName[];
  problem: (values: Record<string, unknown>) => string | null;
}[] = [
  {
    names: ['SIGNIN_BACKOFF_BASE_MS', 'SIGNIN_BACKOFF_MAX_MS'],
    problem: (v) =>
      Number(v.SIGNIN_BACKOFF_MAX_MS) < Number(v.SIGNIN_BACKOFF_BASE_MS)
        ? 'SIGNIN_BACKOFF_MAX_MS must not be less than SIGNIN_BACKOFF_BASE_MS'
        : null,
  },
  {
    names: ['PORT', 'METRICS_PORT'],
    problem: (v) =>
      v.METRICS_PORT !== '' && v.METRICS_PORT === String(v.PORT)
        ? 'METRICS_PORT must not be PORT: the metrics never go on the public port'
        : null,
  },
  {
    names: ['NODE_ENV', 'METRICS_PORT', 'METRICS_HOST', 'METRICS_OPEN'],
    problem: (v) =>
      v.NODE_ENV === 'production' &&
      v.METRICS_PORT !== '' &&
      !isLoopback(String(v.METRICS_HOST)) &&
      v.METRICS_OPEN !== true
        ? 'METRICS_HOST is not loopback in production: the metrics have no authentication; keep 127.0.0.1, or set METRICS_OPEN=true behind a firewall'
        : null,
  },
  {
    names: ['MEDIA_DIR', 'MEDIA_KEYS_DIR'],
    problem: (v) => {
      if (v.MEDIA_KEYS_DIR === '') return null;
      if (v.MEDIA_DIR === '')
        return 'MEDIA_KEYS_DIR means nothing without MEDIA_DIR: set both or neither';
      const inside = relative(resolve(String(v.MEDIA_DIR)), resolve(String(v.MEDIA_KEYS_DIR)));
      // MEDIA_DIR may be served as plain files (nginx, a CDN): the keys would go with it.
      const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
      return outside
        ? null
        : 'MEDIA_KEYS_DIR must not be MEDIA_DIR or inside it (it may be served as plain files): keep the keys beside it';
    },
  },
  {
    names: ['TLS_CERT', 'TLS_KEY'],
    problem: (v) =>
      (v.TLS_CERT === '') !== (v.TLS_KEY === '')
        ? 'TLS_CERT and TLS_KEY go together: set both or neither'
        : null,
  },
  {
    names: ['NODE_ENV', 'PASSWORD_HASH'],
    problem: (v) =>
      v.NODE_ENV === 'production' && v.PASSWORD_HASH === ''
        ? 'PASSWORD_HASH must be set in production (the demo password is public); make one with `npm run hash-password`'
        : null,
  },
  {
    names: ['NODE_ENV', 'SESSION_SECRET'],
    problem: (v) =>
      v.NODE_ENV === 'production' && v.SESSION_SECRET === ''
        ? 'SESSION_SECRET must be set in production (at least 32 random characters, e.g. `openssl rand -base64 48`)'
        : null,
  },
];

/** Reachable only from this machine. */
const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

export type Env = Record<string, string | undefined>;

/**
 * The named settings from the environment, parsed; throws one error listing every problem, so
 * that an operator fixes them in one pass, not one per restart.
 */
export function readSettings<N extends SettingName>(
  env: Env,
  names: readonly N[],
): SettingValues<N> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of names) {
    const result = SETTINGS[key].parse.safeParse(env[key] ?? SETTINGS[key].default);
    if (result.success) values[key] = result.data;
    else problems.push(...result.error.issues.map((issue) => `${key} ${issue.message}`));
  }
  for (const rule of RULES) {
    if (!rule.names.every((key) => key in values)) continue;
    const problem = rule.problem(values);
    if (problem) problems.push(problem);
  }
  if (problems.length) throw new Error(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return values as SettingValues<N>;
}

/** What the browser needs to know, fixed at build time (src/config.ts reads it). */
export interface ClientConfig {
  basePath: string;
  username: string;
  apiUrl: string;
  videoUrl: string;
  /** The published ladder's master playlist (MEDIA_DIR); the server answers it. */
  masterUrl: string;
  captionsUrl: string;
  /** The chapters track, gated like the captions. */
  chaptersUrl: string;
  /** The video's poster; gated by the server like the video itself. */
  posterUrl: string;
  sessionTimeoutMs: number;
  signinTimeoutMs: number;
  chunkTimeoutMs: number;
  /** Where the page sends its reports (config/field-report.ts); empty: it sends none. */
  reportsUrl: string;
}

export function clientConfig(env: Env): ClientConfig {
  const s = readSettings(env, BUILD_SETTINGS);
  return {
    basePath: s.BASE_PATH,
    username: s.SHARED_USERNAME,
    apiUrl: s.API_URL,
    videoUrl: s.VIDEO_URL || `${s.API_URL}/api/video`,
    masterUrl: `${s.API_URL}/api/video/hls/master.m3u8`,
    captionsUrl: s.CAPTIONS_URL || `${s.API_URL}/api/video/captions.vtt`,
    chaptersUrl: `${s.API_URL}/api/video/chapters.vtt`,
    posterUrl: `${s.API_URL}/api/video/poster.jpg`,
    sessionTimeoutMs: s.SESSION_TIMEOUT_MS,
    signinTimeoutMs: s.SIGNIN_TIMEOUT_MS,
    chunkTimeoutMs: s.CHUNK_TIMEOUT_MS,
    reportsUrl: s.REPORTS ? `${s.API_URL}${REPORTS_PATH}` : '',
  };
}

/** docs/configuration.md's settings table, one row per setting, in the table's order. */
export function settingsTableRows(): string[][] {
  return ALL.map((key) => {
    const { readBy, meaning, shown } = SETTINGS[key];
    const prefix = {
      build: '_build_: ',
      both: '_build and server_: ',
      proxy: '_proxy_: ',
      server: '',
    }[readBy];
    return [`\`${key}\``, shown ?? `\`${SETTINGS[key].default}\``, `${prefix}${meaning}`];
  });
}
