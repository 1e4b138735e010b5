/**
 * `npm run bench`: builds, starts the real server on a free port, measures what issue 6 asks
 * for (each measurement bounded in time), prints one table and writes it to reports/bench.json
 * and reports/bench.md. A missed target is a finding, not a failure: the exit code is 0 unless
 * the bench itself broke. BENCH_SKIP_BUILD=1 measures the existing build; BENCH_ONLY=a,b runs
 * only the named measurements (bundle, screens, video, adaptive, lighthouse, load, redis, proxy,
 * crowd).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { adaptiveMeasurement } from './adaptive';
import { chromiumPath, describeConditions } from './browser';
import { bundleMeasurement } from './bundle';
import { crowdMeasurement } from './crowd';
import { lighthouseMeasurement } from './lighthouse';
import {
  BENCH_SERVER_ENV,
  SERVER_LOG,
  describeLoad,
  loadMeasurement,
  startBenchServer,
} from './load';
import { proxyMeasurement } from './proxy';
import { redisMeasurement } from './redis';
import { runMeasurement, type Measurement, type Site } from './measure';
import {
  formatConditions,
  formatNotes,
  formatTable,
  writeReport,
  type Report,
  type Row,
} from './report';
import { screensMeasurement } from './screens';
import { videoMeasurement } from './video';
import { clientConfig } from '../../config/settings';
import { build } from '../test-support/test-server';

const REPORT_JSON = 'reports/bench.json';
const REPORT_MD = 'reports/bench.md';

function chromiumVersion(): string {
  const path = chromiumPath();
  // Debian's wrapper script may print shell noise on stderr; the version is on stdout.
  const out = spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout.trim();
  return `${out || 'unknown version'} (${path}), headless`;
}

const packageVersion = (name: string): string =>
  (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string })
    .version;

function conditions(loadBefore: string): Record<string, string> {
  const cpu = cpus();
  return {
    machine: `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Node ${process.version}`,
    // Other work on the machine skews the timings, the load figures most; this says how much.
    'load average': `${loadBefore} before the bench (1 min), ${loadavg()[0]!.toFixed(2)} at the end`,
    chromium: chromiumVersion(),
    ...describeConditions(),
    lighthouse: `${packageVersion('lighthouse')}, default (mobile) config with its simulated throttling, chrome-launcher, --headless=new`,
    load: describeLoad(),
    server: `${Object.entries(BENCH_SERVER_ENV)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ')}, its own PASSWORD_HASH and SESSION_SECRET, every other setting at its default`,
  };
}

/** In the order of the table; the flood comes last so that it disturbs nothing else. */
const MEASUREMENTS = {
  bundle: bundleMeasurement,
  screens: screensMeasurement,
  video: videoMeasurement,
  adaptive: adaptiveMeasurement,
  lighthouse: lighthouseMeasurement,
  load: loadMeasurement,
  redis: redisMeasurement,
  proxy: proxyMeasurement,
  crowd: crowdMeasurement,
} as const;

/** BENCH_ONLY=screens,video runs a subset (while working on one figure). */
function measurements(site: Site): Measurement<string>[] {
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !(name in MEASUREMENTS)) ?? [];
  if (unknown.length)
    throw new Error(
      `BENCH_ONLY: unknown ${unknown.join(', ')} (${Object.keys(MEASUREMENTS).join(', ')})`,
    );
  return Object.entries(MEASUREMENTS)
    .filter(([name]) => !only || only.includes(name))
    .map(([, make]) => make(site) as Measurement<string>);
}

async function measureAll(site: Site): Promise<{ rows: Row[]; errors: Error[] }> {
  const rows: Row[] = [];
  const errors: Error[] = [];
  for (const measurement of measurements(site)) {
    const outcome = await runMeasurement(measurement);
    rows.push(...outcome.rows);
    if (outcome.error) errors.push(outcome.error);
  }
  return { rows, errors };
}

function print(report: Report): void {
  console.log(`\nBenchmark ${report.date} (${report.durationS} s)\n`);
  console.log(formatConditions(report.conditions));
  console.log(`\n${formatTable(report.rows)}\n`);
  const notes = formatNotes(report.rows);
  if (notes) console.log(`Notes:\n${notes}\n`);
  const missed = report.rows.filter((row) => row.met === false).length;
  console.log(
    `${report.rows.length - missed}/${report.rows.length} targets met. Written to ${REPORT_JSON} and ${REPORT_MD}.`,
  );
}

async function main(): Promise<number> {
  const started = Date.now();
  const loadBefore = loadavg()[0]!.toFixed(2);
  if (process.env.BENCH_SKIP_BUILD === '1') console.log('BENCH_SKIP_BUILD=1: the existing build');
  else build();
  const client = clientConfig(process.env);
  const password = randomBytes(12).toString('base64url');
  const server = await startBenchServer(password);
  // The server is stopped on Ctrl-C as on any other end (stop() may be called twice).
  process.once('SIGINT', () => void server.stop().then(() => process.exit(130)));
  try {
    const pid = server.process.pid!;
    console.log(`server ${server.origin} (pid ${pid}, log in ${SERVER_LOG})`);
    const site: Site = {
      origin: server.origin,
      base: client.basePath,
      username: client.username,
      password,
      distDir: process.env.DIST_DIR ?? 'dist',
      pid,
    };
    const { rows, errors } = await measureAll(site);
    const report: Report = {
      date: new Date().toISOString(),
      durationS: Math.round((Date.now() - started) / 1000),
      conditions: conditions(loadBefore),
      rows,
    };
    writeReport(report, REPORT_JSON, REPORT_MD);
    print(report);
    for (const error of errors) console.error(`bench error: ${error.stack ?? error.message}`);
    return errors.length ? 1 : 0;
  } finally {
    await server.stop();
  }
}

main().then(
  // Lighthouse and Chromium may leave handles open; the report is written, so leave now.
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      'The bench crashed:',
      error instanceof Error ? (error.stack ?? error.message) : error,
    );
    process.exit(1);
  },
);
