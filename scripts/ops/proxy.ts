/**
 * `npm run proxy`: nginx in the foreground in front of the instances (UPSTREAMS), HTTPS and
 * HTTP/2 on PROXY_PORT, serving MEDIA_DIR's video bytes itself. Ctrl-C or SIGTERM: nginx's
 * graceful quit, then its temporary directory goes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PROXY_SETTINGS, readSettings } from '../../config/settings';
import { nginxInstalled, prepareProxyDir, selfSignedPair, spawnNginx } from './nginx';

function settings() {
  try {
    return readSettings(process.env, [...PROXY_SETTINGS, 'MEDIA_DIR', 'NODE_ENV']);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}

const s = settings();
if (!nginxInstalled()) {
  console.error('nginx not found: install it with `apt-get install -y nginx`');
  process.exit(1);
}
const dir = mkdtempSync(join(tmpdir(), 'proxy-'));
let pair = { cert: resolve(s.TLS_CERT), key: resolve(s.TLS_KEY) };
if (!s.TLS_CERT) {
  pair = selfSignedPair(dir);
  const bar = '!'.repeat(78);
  console.warn(
    [
      bar,
      '!! TLS_CERT and TLS_KEY are not set: a SELF-SIGNED certificate made for this run.',
      '!! Browsers will warn every visitor. Put a real certificate in (docs/deploying.md).',
      bar,
    ].join('\n'),
  );
}
const conf = prepareProxyDir({
  host: s.PROXY_HOST,
  port: s.PROXY_PORT,
  upstreams: s.UPSTREAMS,
  ...pair,
  mediaDir: s.MEDIA_DIR ? resolve(s.MEDIA_DIR) : null,
  authCacheS: s.PROXY_AUTH_CACHE_S,
  production: s.NODE_ENV === 'production',
  dir,
  accessLog: '/dev/stdout',
  workers: 'auto',
});
const nginx = spawnNginx(dir, conf, 'inherit');
console.log(
  `\n  Proxy: https://${s.PROXY_HOST}:${s.PROXY_PORT} → ${s.UPSTREAMS.join(', ')}` +
    `${s.MEDIA_DIR ? `; video bytes from ${resolve(s.MEDIA_DIR)}` : ''}\n`,
);

// SIGQUIT is nginx's graceful quit: open downloads finish, then it exits.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    if (nginx.exitCode === null) nginx.kill('SIGQUIT');
  });
// `npm run` may exit on a signal without passing it on: an orphaned proxy quits too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && nginx.exitCode === null) nginx.kill('SIGQUIT');
}, 500).unref();
nginx.on('exit', (code, signal) => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? (signal === 'SIGQUIT' ? 0 : 1));
});
