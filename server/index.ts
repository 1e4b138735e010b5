import { access } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { SCREEN_PATHS } from '../config/paths.js';
import { buildServer } from './app.js';
import { configWarnings, loadConfig, type ServerConfig } from './config.js';
import { createMetrics, metricsServer } from './metrics.js';

/** How long open video streams may take to finish before a shutdown cuts them. */
const SHUTDOWN_GRACE_MS = 10_000;
const IDLE_SWEEP_MS = 100;

function readConfig(): ServerConfig {
  try {
    return loadConfig();
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}

function shout(lines: string[]) {
  if (!lines.length) return;
  const bar = '!'.repeat(78);
  console.warn(['', bar, ...lines.map((line) => `!! ${line}`), bar, ''].join('\n'));
}

async function main() {
  const config = readConfig();
  shout(configWarnings(config));
  const lifecycle = { draining: false };
  const metrics = createMetrics({ process: true });
  const app = await buildServer(config, { lifecycle, metrics });
  if (config.metrics) {
    const { port, host } = config.metrics;
    const server = metricsServer(metrics);
    app.addHook('onClose', (_instance, done) => server.close(() => done()));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    app.log.info({ port, host }, 'metrics at /metrics');
  }

  for (const [name, path] of [
    ['VIDEO_FILE', config.videoFile],
    ['CAPTIONS_FILE', config.captionsFile],
    ['POSTER_FILE', config.posterFile],
  ] as const) {
    await access(path).catch(() => app.log.warn({ path }, `${name} not found: its route will 404`));
  }

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // /readyz answers 503 from now on; the requests in flight finish; Redis closes last
    // (app.ts registers its hook so).
    lifecycle.draining = true;
    app.log.info({ signal }, 'shutting down');
    const grace = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    grace.unref();
    // A kept-alive connection whose request ends during the close would hold it open until the
    // grace runs out: close connections as soon as they fall idle.
    const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
    idle.unref();
    try {
      await app.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  // `on`, not `once`: a terminal's Ctrl-C reaches both this process and `npm start`, which
  // forwards it; a second signal must not kill the process halfway through closing.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const { address, port } = app.server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  console.log(`\n  Capacitación: http://${host}:${port}${config.basePath}${SCREEN_PATHS.login}\n`);
}

main().catch((error: unknown) => {
  console.error('The server could not start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
