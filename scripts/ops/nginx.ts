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
import { ACCESS_PATH, MEDIA_DIR_HEADER, PUBLISHED } from '../../config/media-layout';

export interface ProxyOptions {
  host: string;
  port: number;
  /** `host:port` of each instance. */
  upstreams: string[];
  cert: string;
  key: string;
  /** MEDIA_DIR (absolute): the proxy serves its video bytes itself; null: the app does. */
  mediaDir: string | null;
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
}

/** What a visitor's client is told to wait when no instance (or no store) answers. */
const RETRY_AFTER_S = 2;

/** The app's own error bodies (server/errors.ts), so that the page reads both alike. */
const UNAVAILABLE_JSON = JSON.stringify({
  error: 'temporarily_unavailable',
  message: 'El servicio no está disponible en este momento. Intente nuevamente en unos segundos.',
});
const UNAUTHORIZED_JSON = JSON.stringify({
  error: 'unauthorized',
  message: 'Inicie sesión para continuar.',
});

/**
 * The URL → file mapping of the files the proxy serves from MEDIA_DIR, the same as the app's
 * (server/routes/media.ts and adaptive.ts): each `path` is relative to the publish's folder,
 * which the app names in its access answer; `$rung` and `$file` are the checked names.
 * Playlists, captions and chapters stay with the app (small, compressed, changed per publish).
 */
const MEDIA_FILES = [
  {
    // A page names the version it plays (docs/publishing.md): its rendition files, by name.
    location:
      '~ "^/api/video/hls/(?<version>v[0-9]{14}-[a-z0-9]{8})/(?<rung>[a-z0-9]{8}-[0-9]{2,4}p)/(?<file>init\\.mp4|seg[0-9]{5}\\.m4s)$"',
    path: '/$version/$rung/$file',
    fromMediaDir: true,
    type: 'video/mp4',
    cacheControl: 'private, max-age=31536000, immutable',
  },
  {
    location:
      '~ "^/api/video/hls/(?<rung>[a-z0-9]{8}-[0-9]{2,4}p)/(?<file>init\\.mp4|seg[0-9]{5}\\.m4s)$"',
    path: '/$rung/$file',
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

/** The headers the app (helmet, server/security.ts) puts on every file it serves. */
function securityHeaders(production: boolean): string[] {
  return [
    ['X-Content-Type-Options', 'nosniff'],
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Referrer-Policy', 'strict-origin-when-cross-origin'],
    ['X-Frame-Options', 'DENY'],
    ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
    ...(production ? [['Strict-Transport-Security', 'max-age=63072000; includeSubDomains']] : []),
  ].map(([name, value]) => `add_header ${name} "${value}" always;`);
}

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function mediaLocations(options: ProxyOptions, mediaDir: string): string[] {
  const security = securityHeaders(options.production);
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
    `  auth_request /_session;`,
    `  auth_request_set $media_dir $upstream_http_${MEDIA_DIR_HEADER.replace(/-/g, '_')};`,
    // auth_request turns any answer but 2xx, 401 and 403 into 500: the store or the instances
    // are down, which the visitor must read as "retry", never as "signed out".
    `  error_page 401 = @unauthorized;`,
    `  error_page 500 502 503 504 = @unavailable;`,
    `  root ${'fromMediaDir' in entry ? mediaDir : `${mediaDir}/$media_dir`};`,
    `  try_files ${path} =404;`,
    // Nothing outside the published folders: no symbolic link below MEDIA_DIR is followed.
    `  disable_symlinks on from=${mediaDir};`,
    `  types { }`,
    `  default_type ${type};`,
    `  add_header Cache-Control "${cacheControl}";`,
    ...security.map((line) => `  ${line}`),
    `}`,
  ]);
  return [...check, ...files];
}

/** The whole nginx.conf for these options. */
function nginxConfig(options: ProxyOptions): string {
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
    // The app refuses bodies above 64 KiB; the proxy need not read more.
    `  client_max_body_size 64k;`,
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
    `    error_page 502 504 = @unavailable;`,
    `    location @unavailable {`,
    `      default_type "application/json; charset=utf-8";`,
    `      add_header Retry-After ${RETRY_AFTER_S} always;`,
    `      add_header Cache-Control no-store always;`,
    `      return 503 ${quote(UNAVAILABLE_JSON)};`,
    `    }`,
    `    location @unauthorized {`,
    `      default_type "application/json; charset=utf-8";`,
    `      add_header Cache-Control no-store always;`,
    `      return 401 ${quote(UNAUTHORIZED_JSON)};`,
    `    }`,
    `    location / {`,
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
