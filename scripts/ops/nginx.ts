/**
 * The proxy in front of the instances: Debian's nginx with a configuration made here from the
 * settings (`npm run proxy`, scripts/ops/proxy.ts), and the same proxy for the tests and the bench
 * (started like scripts/test-support/redis-server.ts: its own temporary directory, loopback, a free port).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect as tlsConnect } from 'node:tls';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ACCESS_PATH,
  MEDIA_DIR_HEADER,
  PUBLISHED,
  keyFileName,
  keysDirFor,
} from '../../config/media-layout';
import { CLIENT_ERRORS, UNAVAILABLE, type ApiError } from '../../server/errors';
import { FILE_HEADERS } from '../../server/security';

export interface ProxyOptions {
  host: string;
  port: number;
  /** `host:port` of each instance. */
  upstreams: string[];
  cert: string;
  key: string;
  /** MEDIA_DIR (absolute): the proxy serves its video bytes itself; null: the app does. */
  mediaDir: string | null;
  /**
   * MEDIA_KEYS_DIR (absolute; keysDirFor(mediaDir) by default). The proxy only asks whether a
   * publish's key exists there (then the publish is encrypted), never reads or serves one.
   */
  keysDir?: string | null;
  /** How long one session cookie's answer is trusted (0: asked at every request). */
  authCacheS: number;
  /** HSTS on the files the proxy serves, as the app sends it in production. */
  production: boolean;
  /** The proxy's own directory: pid, temporary files, the answers' cache. */
  dir: string;
  /** Where the access log goes (never a cookie in it); null: none. */
  accessLog: string | null;
  /** nginx's worker_processes. */
  workers: number | 'auto';
  /** Run the workers as this user (only when started as root). */
  user: string | null;
  /** Shorter limits for tests of slow clients; PROXY_LIMITS otherwise. */
  limits?: Partial<ProxyLimits>;
}

export interface ProxyLimits {
  /** Time to receive a request's headers (nginx: the whole header, not between reads). */
  headerS: number;
  /**
   * A request body that stalls this long between two reads. Its total time is the instances'
   * (30 s): the proxy passes bodies on as they come (proxy_request_buffering off).
   */
  bodyStallS: number;
  /** A client that takes no byte of its answer for this long is cut. */
  sendStallS: number;
  /** Requests in progress per client address (each HTTP/2 stream counts). */
  perAddress: number;
  /** The largest body any route accepts: the signin's 12 KiB, rounded up. */
  bodyBytes: number;
}

/**
 * Against slow clients and floods from one address (docs/deploying.md). 200 in progress per
 * address: a crowd of 100 behind one address signing in at once stays under it.
 */
export const PROXY_LIMITS: ProxyLimits = {
  headerS: 10,
  bodyStallS: 10,
  sendStallS: 60,
  perAddress: 200,
  bodyBytes: 16 * 1024,
};

/** What a visitor's client is told to wait when no instance (or no store) answers. */
const RETRY_AFTER_S = 2;

/**
 * nginx's own refusals, answered with the app's JSON bodies (server/errors.ts) and the same
 * headers as everything else, so that the page reads both alike. 5xx: the instances or the
 * store are down, which the visitor must read as "retry", never as "signed out".
 */
const ERROR_ANSWERS: {
  codes: number[];
  status: number;
  body: ApiError;
  retry?: boolean;
  /** false: nginx keeps the headers its file location set before the error (416 only). */
  headers?: false;
}[] = [
  ...([400, 401, 403, 404, 405, 413] as const).map((code) => ({
    codes: [code],
    status: code,
    body: CLIENT_ERRORS[code]!,
  })),
  // Only a file's Range makes it, once its location's headers (and Content-Range) are set.
  { codes: [416], status: 416, body: CLIENT_ERRORS[416]!, headers: false },
  // 414 (a URI too long) and 494 (headers too large) are the app's 431 and 400.
  { codes: [494], status: 431, body: CLIENT_ERRORS[431]! },
  { codes: [414], status: 414, body: CLIENT_ERRORS[400]! },
  // Too many requests in progress from one address.
  { codes: [429], status: 429, body: CLIENT_ERRORS[429]!, retry: true },
  { codes: [500, 502, 503, 504], status: 503, body: UNAVAILABLE, retry: true },
];

const errorLocation = (status: number) => `@error_${status}`;

/**
 * Which named location answers each of nginx's own errors. A location's error_page replaces the
 * server's, so every location that sets one repeats them all.
 */
const ERROR_PAGES = ERROR_ANSWERS.map(
  ({ codes, status }) => `error_page ${codes.join(' ')} = ${errorLocation(status)};`,
);

/** A version folder's name, its publish id captured (VERSION_DIR_PATTERN). */
const VERSION = '(?<version>v[0-9]{14}-(?<publish>[a-z0-9]{8}))';
/** A rendition folder's name (RUNG_DIR_PATTERN). */
const RUNG = '[a-z0-9]{8}-[0-9]{2,4}p';
const MEDIA = '(?:init\\.mp4|seg[0-9]{5}\\.m4s)';

/** An encrypted publish's segments by URL: public, answered from MEDIA_DIR with no session. */
const PUBLIC_PREFIX = '/_public';
/** A request the app answers as it is (its own check and its own mapping). */
const APP_PREFIX = '/_app';

/**
 * What is public: the init and media segments of a publish whose key exists (prepare-video
 * writes one exactly for an encrypted publish; a publish made before encryption has none, so it
 * stays behind the session check whatever else is on the disk). No location here serves a
 * playlist: they go to the app and its check, as a clear publish's do.
 * Playlists stay gated: they still ask the server, so an ended session shows the login.
 */
const PUBLIC_MEDIA = {
  location: `~ "^${PUBLIC_PREFIX}/api/video/hls/(?<file>v[0-9]{14}-[a-z0-9]{8}/${RUNG}/${MEDIA})$"`,
  type: 'video/mp4',
  // Their URL names their publish: the bytes behind it never change.
  cacheControl: 'public, max-age=31536000, immutable',
};

/**
 * The URL → file mapping of the files the proxy serves from MEDIA_DIR, the same as the app's
 * (server/routes/media.ts and adaptive.ts): each `path` is relative to the publish's folder,
 * which the app names in its access answer; `$rung` and `$file` are the checked names.
 * `open`: where an encrypted publish's segment goes instead, with no access check (PUBLIC_MEDIA,
 * or the app when nginx cannot know the folder: the unversioned URLs name a rendition, not its
 * version). Playlists, captions, chapters and the key stay with the app.
 */
const MEDIA_FILES = [
  {
    // A page names the version it plays (docs/publishing.md): its rendition files, by name.
    location: `~ "^/api/video/hls/${VERSION}/(?<rung>${RUNG})/(?<file>${MEDIA})$"`,
    path: '/$version/$rung/$file',
    fromMediaDir: true,
    open: PUBLIC_PREFIX,
    type: 'video/mp4',
    cacheControl: 'private, max-age=31536000, immutable',
  },
  {
    location: `~ "^/api/video/hls/(?<rung>(?<publish>[a-z0-9]{8})-[0-9]{2,4}p)/(?<file>${MEDIA})$"`,
    path: '/$rung/$file',
    open: APP_PREFIX,
    type: 'video/mp4',
    cacheControl: 'private, max-age=31536000, immutable',
  },
  {
    location: '= /api/video',
    path: `/${PUBLISHED.fallback}`,
    type: 'video/mp4',
    cacheControl: 'private, no-cache',
  },
  {
    location: '= /api/video/poster.jpg',
    path: `/${PUBLISHED.poster}`,
    type: 'image/jpeg',
    cacheControl: 'private, no-cache',
  },
] as const;

/** What every instance must hear from the proxy; TRUST_PROXY makes the instances believe it. */
const FORWARDED = [
  `proxy_set_header Connection "";`,
  `proxy_set_header Host $http_host;`,
  // Replaced, not appended: a client's own X-Forwarded-For would otherwise pick its address.
  `proxy_set_header X-Forwarded-For $remote_addr;`,
  `proxy_set_header X-Forwarded-Proto https;`,
  `proxy_set_header X-Forwarded-Host $http_host;`,
];

/** The headers the app puts on every answer but a page (server/security.ts): nothing here is one. */
function securityHeaders(production: boolean): string[] {
  return [
    ...Object.entries(FILE_HEADERS),
    ...(production ? [['Strict-Transport-Security', 'max-age=63072000; includeSubDomains']] : []),
  ].map(([name, value]) => `add_header ${name} "${value}" always;`);
}

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function mediaLocations(options: ProxyOptions, mediaDir: string): string[] {
  const security = securityHeaders(options.production);
  const keysDir = options.keysDir ?? keysDirFor(mediaDir);
  // Only whether the file exists: nothing maps a URL into the keys' folder.
  const ifEncrypted = (to: string) =>
    `if (-f "${keysDir}/${keyFileName('$publish')}") { rewrite ^ ${to}$uri last; }`;
  const fromDisk = [
    // Nothing outside the published folders: no symbolic link below MEDIA_DIR is followed.
    `  disable_symlinks on from=${mediaDir};`,
    `  types { }`,
  ];
  const check = [
    // The cached answer: one per session cookie, for authCacheS at most.
    `location = /_session {`,
    `  internal;`,
    `  proxy_pass http://app${ACCESS_PATH};`,
    `  proxy_pass_request_body off;`,
    // A location's own proxy_set_header drops the server's: all of them again.
    ...FORWARDED.map((line) => `  ${line}`),
    // The app judges exactly the cookie the cache is keyed by, nothing else of the header: nginx's
    // pattern and the app's parser may read one Cookie header differently.
    `  proxy_set_header Cookie $session_cookie_header;`,
    `  proxy_set_header Content-Length "";`,
    `  proxy_set_header Range "";`,
    `  proxy_set_header If-Range "";`,
    ...(options.authCacheS > 0
      ? [
          `  proxy_cache access;`,
          `  proxy_cache_key $session_cookie;`,
          // 503 (the store is down) is never kept: the next request asks again.
          `  proxy_cache_valid 204 401 ${options.authCacheS}s;`,
          `  proxy_cache_bypass $no_session;`,
          `  proxy_no_cache $no_session;`,
          `  proxy_cache_lock on;`,
          // The app's 401 says no-store to browsers; the proxy still keeps it its few seconds.
          `  proxy_ignore_headers Cache-Control Expires Set-Cookie Vary;`,
        ]
      : []),
    `}`,
  ];
  const files = MEDIA_FILES.flatMap(({ location, path, type, cacheControl, ...entry }) => [
    `location ${location} {`,
    // Before the access check (rewrites come first): an encrypted publish's file needs none.
    ...('open' in entry ? [`  ${ifEncrypted(entry.open)}`] : []),
    `  auth_request /_session;`,
    `  auth_request_set $media_dir $upstream_http_${MEDIA_DIR_HEADER.replace(/-/g, '_')};`,
    // auth_request turns any answer but 2xx, 401 and 403 into 500: the store or the instances
    // are down (ERROR_ANSWERS makes it a 503).
    ...ERROR_PAGES.map((line) => `  ${line}`),
    `  root ${'fromMediaDir' in entry ? mediaDir : `${mediaDir}/$media_dir`};`,
    `  try_files ${path} =404;`,
    ...fromDisk,
    `  default_type ${type};`,
    `  add_header Cache-Control "${cacheControl}";`,
    ...security.map((line) => `  ${line}`),
    `}`,
  ]);
  const open = [
    `location ${PUBLIC_MEDIA.location} {`,
    `  internal;`,
    ...ERROR_PAGES.map((line) => `  ${line}`),
    `  root ${mediaDir};`,
    `  try_files /$file =404;`,
    ...fromDisk,
    `  default_type ${PUBLIC_MEDIA.type};`,
    `  add_header Cache-Control "${PUBLIC_MEDIA.cacheControl}";`,
    ...security.map((line) => `  ${line}`),
    `}`,
    `location ^~ ${APP_PREFIX}/ {`,
    `  internal;`,
    `  rewrite ^${APP_PREFIX}(/.*)$ $1 break;`,
    `  proxy_pass http://app;`,
    `}`,
  ];
  return [...check, ...files, ...open];
}

/** The whole nginx.conf for these options. */
function nginxConfig(options: ProxyOptions): string {
  const limits = { ...PROXY_LIMITS, ...options.limits };
  const upstreams = options.upstreams.map(
    // Passive health: a refused connection or a timeout takes an instance out for 3 s.
    (address) => `  server ${address} max_fails=1 fail_timeout=3s;`,
  );
  const lines = [
    ...(options.user ? [`user ${options.user};`] : []),
    `worker_processes ${options.workers};`,
    `pid ${join(options.dir, 'nginx.pid')};`,
    `error_log stderr warn;`,
    `events { worker_connections 4096; }`,
    `http {`,
    `  server_tokens off;`,
    // No cookie, no query, no header: the method, the path and what happened.
    `  log_format proxy '$remote_addr [$time_iso8601] "$request_method $uri $server_protocol" $status $body_bytes_sent $request_time upstream=$upstream_addr';`,
    `  access_log ${options.accessLog ?? 'off'}${options.accessLog ? ' proxy' : ''};`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `  ${kind}_temp_path ${join(options.dir, 'temp', kind)};`,
    ),
    `  sendfile on;`,
    `  tcp_nopush on;`,
    `  types { }`,
    `  default_type application/octet-stream;`,
    // No body the app accepts is larger; one buffer holds it, so no body is written to disk.
    `  client_max_body_size ${limits.bodyBytes};`,
    `  client_body_buffer_size ${limits.bodyBytes};`,
    `  client_header_timeout ${limits.headerS}s;`,
    `  client_body_timeout ${limits.bodyStallS}s;`,
    `  send_timeout ${limits.sendStallS}s;`,
    `  limit_conn_zone $binary_remote_addr zone=address:10m;`,
    `  limit_conn address ${limits.perAddress};`,
    `  limit_conn_status 429;`,
    `  limit_conn_log_level warn;`,
    `  map $http_cookie $session_cookie {`,
    `    default "";`,
    `    "~(?:^|;\\s*)__Host-sid=(?<sid>[^;]+)" $sid;`,
    `  }`,
    `  map $session_cookie $session_cookie_header {`,
    `    "" "";`,
    `    default "__Host-sid=$session_cookie";`,
    `  }`,
    `  map $session_cookie $no_session {`,
    `    "" 1;`,
    `    default 0;`,
    `  }`,
    `  proxy_cache_path ${join(options.dir, 'access-cache')} levels=1:2 keys_zone=access:4m max_size=64m inactive=1m use_temp_path=off;`,
    `  upstream app {`,
    ...upstreams,
    `    keepalive 32;`,
    // Shorter than the instances' idle limits: nginx never reuses a connection they close.
    `    keepalive_timeout 30s;`,
    `  }`,
    `  server {`,
    `    listen ${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port} ssl http2;`,
    `    ssl_certificate ${options.cert};`,
    `    ssl_certificate_key ${options.key};`,
    `    ssl_protocols TLSv1.2 TLSv1.3;`,
    `    ssl_session_cache shared:tls:4m;`,
    `    proxy_http_version 1.1;`,
    ...FORWARDED.map((line) => `    ${line}`),
    `    proxy_connect_timeout 2s;`,
    // Idempotent requests (and any request no instance received) go to the next instance.
    `    proxy_next_upstream error timeout http_502 http_504;`,
    `    proxy_next_upstream_tries ${options.upstreams.length + 1};`,
    `    proxy_next_upstream_timeout 10s;`,
    ...ERROR_PAGES.map((line) => `    ${line}`),
    ...ERROR_ANSWERS.flatMap(({ status, body, retry, headers }) => [
      `    location ${errorLocation(status)} {`,
      `      default_type "application/json; charset=utf-8";`,
      ...(retry ? [`      add_header Retry-After ${RETRY_AFTER_S} always;`] : []),
      ...(headers === false
        ? []
        : [
            `      add_header Cache-Control no-store always;`,
            ...securityHeaders(options.production).map((line) => `      ${line}`),
          ]),
      `      return ${status} ${quote(JSON.stringify(body))};`,
      `    }`,
    ]),
    `    location / {`,
    `      proxy_pass http://app;`,
    `    }`,
    // Health is for the orchestrator on the instances' own (loopback) ports, not for visitors.
    `    location ~ ^/(livez|readyz)$ {`,
    `      return 404;`,
    `    }`,
    // Bodies go on to an instance as they come, so that its 30 s for a whole request holds
    // through the proxy (nginx has no limit on a body's total time, only between reads).
    `    location /api/users/ {`,
    `      proxy_request_buffering off;`,
    `      proxy_pass http://app;`,
    `    }`,
    ...(options.mediaDir ? mediaLocations(options, options.mediaDir).map((l) => `    ${l}`) : []),
    `  }`,
    `}`,
    '',
  ];
  return lines.join('\n');
}

export function nginxInstalled(): boolean {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
}

/** A certificate for localhost and 127.0.0.1, valid for a few days: for a run, never for visitors. */
export function selfSignedPair(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'self-signed.crt');
  const key = join(dir, 'self-signed.key');
  const result = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '7', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1'],
      ...['-keyout', key, '-out', cert],
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0)
    throw new Error(`openssl could not make a certificate: ${result.stderr}`);
  return { cert, key };
}

/**
 * As root, nginx would run its workers as `nobody`, who cannot read a private media folder:
 * they run as the folder's owner instead (never root in a real deployment: start the proxy as
 * that user).
 */
function workerUser(
  mediaDir: string | null,
  dir: string,
): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const { uid, gid } = statSync(mediaDir ?? dir);
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.split(':')[2] === String(uid));
  return { name: entry?.split(':')[0] ?? 'root', uid, gid };
}

/** Makes the directory's layout and writes nginx.conf; returns its path. */
export function prepareProxyDir(options: Omit<ProxyOptions, 'user'>): string {
  const user = workerUser(options.mediaDir, options.dir);
  for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(options.dir, 'temp', kind), { recursive: true });
  mkdirSync(join(options.dir, 'access-cache'), { recursive: true });
  if (user)
    for (const path of ['temp', 'access-cache'])
      spawnSync('chown', ['-R', `${user.uid}:${user.gid}`, join(options.dir, path)]);
  // The workers pass through the directory to their own folders.
  if (user) chmodSync(options.dir, 0o711);
  const file = join(options.dir, 'nginx.conf');
  writeFileSync(file, nginxConfig({ ...options, user: user?.name ?? null }));
  return file;
}

/** nginx in the foreground (no daemon), with its prefix in `dir`. */
export function spawnNginx(dir: string, conf: string, stdio: 'inherit' | 'ignore'): ChildProcess {
  return spawn('nginx', ['-g', 'daemon off;', '-p', dir, '-e', 'stderr', '-c', conf], {
    stdio: ['ignore', stdio, stdio === 'ignore' ? 'pipe' : 'inherit'],
  });
}

/** The pids of the master's workers (for their CPU time). */
export function workerPids(masterPid: number): number[] {
  try {
    return readFileSync(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** A port no one listens on now (the proxy's, a test server's, a test's metrics). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const handshake = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

export interface RunningProxy {
  origin: string;
  port: number;
  pid: number;
  dir: string;
  /** nginx's graceful quit (SIGQUIT): requests in flight finish; then the directory goes. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

/** A proxy for the tests and the bench: self-signed, loopback, a free port. */
export async function startProxy(
  options: Pick<ProxyOptions, 'upstreams' | 'mediaDir'> & Partial<ProxyOptions>,
): Promise<RunningProxy> {
  if (!nginxInstalled())
    throw new Error('nginx not found: install it with `apt-get install -y nginx`');
  const dir = mkdtempSync(join(tmpdir(), 'proxy-'));
  const port = options.port ?? (await freePort());
  const pair =
    options.cert && options.key ? { cert: options.cert, key: options.key } : selfSignedPair(dir);
  const conf = prepareProxyDir({
    host: '127.0.0.1',
    authCacheS: 10,
    production: false,
    accessLog: null,
    workers: 1,
    ...options,
    ...pair,
    port,
    dir,
  });
  const child = spawnNginx(dir, conf, 'ignore');
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      const late = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(late);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await handshake(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${errors.trim() || 'no answer on its port'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { origin: `https://127.0.0.1:${port}`, port, pid: child.pid!, dir, stop };
}
