/** `npm run bench`: each measurement with a time limit, one table (docs/benchmarks.md). */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { clientConfig } from '../../config/settings';
import { samplePublish } from '../ops/sample-publish';
import { build } from '../test-support/test-server';
import { adaptiveMeasurement } from './adaptive';
import { chromiumPath, describeConditions } from './browser';
import { bundleMeasurement } from './bundle';
import { crowdMeasurement } from './crowd';
import { firstVisitMeasurement } from './first-visit';
import { lighthouseMeasurement } from './lighthouse';
import { offlineMeasurement } from './offline';
import { BENCH_SERVER_ENV, describeLoad, loadMeasurement, startBenchServer } from './load';
import { runMeasurement, toMarkdown, writeReport, type Measurement, type Row } from './measure';
import { proxyMeasurement } from './proxy';
import { reportsMeasurement } from './reports';
import { screensMeasurement } from './screens';
import { slowClientsMeasurement } from './slow-clients';

/** In the order of the table; the floods come last so that they disturb nothing else. */
const MEASUREMENTS = {
  ...{ bundle: bundleMeasurement, screens: screensMeasurement, adaptive: adaptiveMeasurement },
  'first-visit': firstVisitMeasurement,
  ...{ offline: offlineMeasurement, lighthouse: lighthouseMeasurement, load: loadMeasurement },
  ...{ proxy: proxyMeasurement, crowd: crowdMeasurement, slow: slowClientsMeasurement },
  reports: reportsMeasurement,
};
type Name = keyof typeof MEASUREMENTS;

function selected(): Name[] {
  const names = Object.keys(MEASUREMENTS) as Name[];
  const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !(name in MEASUREMENTS)) ?? [];
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown ${unknown.join(', ')} (${names})`);
  return names.filter((name) => !only || only.includes(name));
}

function conditions(loadBefore: string): Record<string, string> {
  const [cpu, lighthouse] = [cpus(), readFileSync('node_modules/lighthouse/package.json', 'utf8')];
  // Debian's wrapper script may print shell noise on stderr; the version is on stdout.
  const chromium = spawnSync(chromiumPath(), ['--version'], { encoding: 'utf8' }).stdout.trim();
  const settings = Object.entries(BENCH_SERVER_ENV).map(([name, value]) => `${name}=${value}`);
  return {
    machine: `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Node ${process.version}`,
    // Other work on the machine skews the timings, the load figures most; this says how much.
    'load average': `${loadBefore} before the bench (1 min), ${loadavg()[0]!.toFixed(2)} at the end`,
    chromium: `${chromium || 'unknown version'} (${chromiumPath()}), headless`,
    ...describeConditions(),
    lighthouse: `${(JSON.parse(lighthouse) as { version: string }).version}, default (mobile) config with its simulated throttling, chrome-launcher, --headless=new`,
    load: describeLoad(),
    server: `${settings.join(', ')}, its own PASSWORD_HASH and SESSION_SECRET, MEDIA_DIR the sample's adaptive publish (as \`npm start\`), every other setting at its default`,
  };
}

async function main(): Promise<number> {
  const [started, loadBefore, names] = [Date.now(), loadavg()[0]!.toFixed(2), selected()];
  if (process.env.BENCH_SKIP_BUILD === '1') console.log('BENCH_SKIP_BUILD=1: the existing build');
  else build();
  const password = randomBytes(12).toString('base64url');
  // The site `npm start` serves on the defaults: the sample published as adaptive video.
  const mediaDir = await samplePublish(process.cwd());
  if (!mediaDir) throw new Error('the bench needs ffmpeg, to publish the sample');
  const server = await startBenchServer(password, 'server', { MEDIA_DIR: mediaDir });
  // The server is stopped on Ctrl-C as on any other end (stop() may be called twice).
  process.once('SIGINT', () => void server.stop().then(() => process.exit(130)));
  try {
    const pid = server.process.pid!;
    console.log(`server ${server.origin} (pid ${pid})`);
    const { basePath: base, username } = clientConfig(process.env);
    const distDir = process.env.DIST_DIR ?? 'dist';
    const site = { origin: server.origin, base, username, password, distDir, pid };
    const [rows, errors] = [[] as Row[], [] as Error[]];
    for (const name of names) {
      const outcome = await runMeasurement(MEASUREMENTS[name] as Measurement<string>, site);
      rows.push(...outcome.rows);
      if (outcome.error) errors.push(outcome.error);
    }
    const [date, durationS] = [new Date().toISOString(), Math.round((Date.now() - started) / 1000)];
    const report = { date, durationS, conditions: conditions(loadBefore), rows };
    await writeReport(report);
    console.log(`\n${await toMarkdown(report)}`);
    for (const row of rows) if (row.note) console.log(`- ${row.figure}: ${row.note}`);
    const met = rows.filter((row) => row.met !== false).length;
    console.log(`\n${met}/${rows.length} targets met. Written to reports/bench.json and .md.`);
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
    console.error('The bench crashed:', error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
