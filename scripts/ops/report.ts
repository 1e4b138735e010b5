/**
 * `npm run report [-- --since 7d|24h|2026-11-01] [--json]`: what the visitors' phones reported
 * over a period, from the store the server writes (Redis with REDIS_URL, else DATA_DIR), summed
 * by server/report-summary.ts as the staff page does. `--json` prints the summary as one object.
 */
import { resolve } from 'node:path';
import { readSettings } from '../../config/settings.js';
import { FileReportStore } from '../../server/file-report-store.js';
import { servedDurationS } from '../../server/published.js';
import { createRedis } from '../../server/redis.js';
import { RedisReportStore } from '../../server/redis-report-store.js';
import { DAY_MS, type ReportStore } from '../../server/report-store.js';
import { summarize, type Summary } from '../../server/report-summary.js';

const DEFAULT_SINCE = '30d';
const USAGE = 'usage: npm run report -- [--since 7d|24h|2026-11-01] [--json]';
/** Rows of the engagement graph in a terminal. */
const GRAPH_ROWS = 20;
const BAR_WIDTH = 40;

/** web.dev's ratings, as the company reads them. */
const RATINGS = { good: 'bien', 'needs-improvement': 'a mejorar', poor: 'mal' } as const;

class Usage extends Error {}

/** `7d`, `24h` or an ISO date, as milliseconds since the epoch. */
function sinceOf(text: string, now: number): number {
  const relative = /^(\d{1,5})([dh])$/.exec(text);
  if (relative) return now - Number(relative[1]) * (relative[2] === 'd' ? DAY_MS : 3600_000);
  const date = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? Date.parse(text)
    : NaN;
  if (Number.isNaN(date))
    throw new Usage(`--since takes 7d, 24h or a date such as 2026-11-01 (got "${text}")`);
  if (date > now) throw new Usage(`--since ${text} is in the future`);
  return date;
}

function parseArgs(args: string[], now: number): { since: number; json: boolean } {
  let since = DEFAULT_SINCE;
  let json = false;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (arg === '--json') json = true;
    else if (arg === '--since') {
      const value = args[(index += 1)];
      if (value === undefined) throw new Usage('--since needs a period: 7d, 24h or a date');
      since = value;
    } else if (arg.startsWith('--since=')) since = arg.slice('--since='.length);
    else throw new Usage(`unknown argument "${arg}"; ${USAGE}`);
  }
  return { since: sinceOf(since, now), json };
}

const number = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 1 });
const n = (value: number) => number.format(value);
const ms = (value: number | null) =>
  value === null ? '–' : value >= 1000 ? `${n(value / 1000)} s` : `${n(value)} ms`;
const clock = (second: number) =>
  `${Math.floor(second / 60)}:${String(second % 60).padStart(2, '0')}`;
const date = (iso: string) => iso.slice(0, 16).replace('T', ' ');
const list = (map: Record<string, number>, format: (value: number) => string = n) =>
  Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([name, value]) => `${name} ${format(value)}`)
    .join(' · ') || '–';

/** The engagement graph: for each stretch of the video, the views that saw its seconds. */
function graph(seconds: number[], views: number): string[] {
  if (seconds.length === 0) return ['  (sin duración conocida del video)'];
  const step = Math.ceil(seconds.length / GRAPH_ROWS);
  const rows: string[] = [];
  for (let from = 0; from < seconds.length; from += step) {
    const stretch = seconds.slice(from, from + step);
    const average = stretch.reduce((total, value) => total + value, 0) / stretch.length;
    const bar = '█'.repeat(views ? Math.round((average / views) * BAR_WIDTH) : 0);
    rows.push(`  ${clock(from).padStart(6)} ${bar.padEnd(BAR_WIDTH)} ${n(average)}`);
  }
  return rows;
}

function readable(summary: Summary): string {
  const { views, downloads, firstFrameMs: frame, webVitals: vitals } = summary;
  const share = (part: number) => (views ? ` (${n((100 * part) / views)} %)` : '');
  const vital = (name: keyof Summary['webVitals']) => {
    const { p75, rating } = vitals[name];
    const value = name === 'CLS' ? (p75 === null ? '–' : n(p75)) : ms(p75);
    return `${name} ${value}${rating ? ` (${RATINGS[rating]})` : ''}`;
  };
  return [
    `Informe de visitas, del ${date(summary.since)} al ${date(summary.until)} (UTC)`,
    '',
    `Visitas: ${n(views)} (teléfono ${n(summary.deviceClasses.phone)}, computadora ${n(summary.deviceClasses.desktop)}), desde ${n(summary.devices)} ${summary.devices === 1 ? 'sesión' : 'sesiones'}`,
    `Completas (vieron al menos el 90 % del video): ${n(summary.completed)}${share(summary.completed)}`,
    `Sin conexión (desde la copia descargada): ${n(summary.offlineViews)}${share(summary.offlineViews)}`,
    `Con saltos (adelantaron o volvieron atrás): ${n(summary.viewsWithSeeks)}${share(summary.viewsWithSeeks)}`,
    `Primer cuadro: mediana ${ms(frame.p50)} · p75 ${ms(frame.p75)} · p95 ${ms(frame.p95)}`,
    `Cortes: ${summary.stallsPerMinute === null ? '–' : n(summary.stallsPerMinute)} por minuto de reproducción (${n(summary.stallSeconds)} s en ${n(summary.minutesPlayed)} min)`,
    `Calidades (segundos reproducidos): ${list(summary.renditions)}`,
    `Descargas: ${n(downloads.started)} iniciadas, ${n(downloads.finished)} terminadas (${n(downloads.finishedBytes / 1e6)} MB), ${n(downloads.cancelled)} canceladas, ${n(downloads.noRoom)} sin espacio`,
    `Navegadores: ${summary.browsers.map((b) => `${b.family} ${b.major} (${b.engine}) ${n(b.views)}`).join(' · ') || '–'}`,
    `Web Vitals (p75): ${(['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const).map(vital).join(' · ')}`,
    `Errores: ${list(summary.errors)}`,
    '',
    `Segundos vistos (visitas que vieron cada tramo de ${clock(summary.videoSeconds)}):`,
    ...graph(summary.secondsWatched, views),
  ].join('\n');
}

async function main(): Promise<void> {
  const now = Date.now();
  const { since, json } = parseArgs(process.argv.slice(2), now);
  let settings;
  try {
    settings = readSettings(process.env, [
      'REDIS_URL',
      'DATA_DIR',
      'REPORTS_RETENTION_DAYS',
      'MEDIA_DIR',
    ]);
  } catch (error) {
    // One line: the list of problems, joined.
    throw new Usage(String(error instanceof Error ? error.message : error).replace(/\n- /g, ' '));
  }
  const retentionMs = settings.REPORTS_RETENTION_DAYS * DAY_MS;
  const redis = settings.REDIS_URL ? createRedis(settings.REDIS_URL) : null;
  // A failure to connect is reported once, below; ioredis would also print each attempt.
  redis?.on('error', () => undefined);
  try {
    let store: ReportStore;
    if (redis) {
      await redis.connect().catch((error: unknown) => {
        throw new Usage(`Redis did not answer: ${error instanceof Error ? error.message : error}`);
      });
      store = new RedisReportStore(redis, retentionMs);
    } else {
      // Read only: a store that has added nothing opens, compacts and writes nothing.
      store = new FileReportStore({ dir: resolve(settings.DATA_DIR), retentionMs, now: () => now });
    }
    const duration = settings.MEDIA_DIR ? await servedDurationS(resolve(settings.MEDIA_DIR)) : null;
    const summary = await summarize(store.since(since), { since, until: now }, duration);
    console.log(json ? JSON.stringify(summary) : readable(summary));
  } finally {
    redis?.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(
    error instanceof Usage
      ? error.message
      : `The report failed: ${error instanceof Error ? error.message : error}`,
  );
  process.exit(1);
});
