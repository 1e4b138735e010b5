/**
 * Firefox and WebKit send their reports too (docs/field-reports.md): a view of the 24 s clip,
 * 0-3 then a seek to 10 and 10-13 (to the timeupdate where it paused), reaches the real server's store once with those seconds and
 * the engine named; WebKit without requestIdleCallback. A server of its own, so that its store
 * (DATA_DIR) holds only this file's reports.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import type { ViewReport } from '../../config/field-report';
import { publishTestClip } from '../../scripts/test-support/test-clip';
import { startServer, type RunningServer } from '../../scripts/test-support/test-server';
import { REPORTS_FILE } from '../../server/file-report-store';
import { parseStored } from '../../server/report-store';
import { BASE, E2E_PASSWORD, siteEnv } from '../site';
import { launch, type BrowserPage, type Engine } from './browsers';
import { until } from './visit';

const ENGINES = (['firefox', 'webkit'] as const).filter(
  (name) => !process.env.ENGINES || process.env.ENGINES.split(',').includes(name),
);

let server: RunningServer;
let dataDir: string;
let mediaDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'field-report-engines-'));
  mediaDir = (await publishTestClip(24)).dir;
  server = await startServer(await siteEnv({ MEDIA_DIR: mediaDir, DATA_DIR: dataDir }));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dirname(mediaDir), { recursive: true, force: true });
});

const storedViews = (): ViewReport[] => {
  let text = '';
  try {
    text = readFileSync(join(dataDir, REPORTS_FILE), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .flatMap((line) => parseStored(line) ?? [])
    .flatMap(({ report }) => (report.kind === 'view' ? [report] : []));
};

/** Plays (muted) until `to` seconds and pauses there; seeks first when `from` is given. */
const watch = (from: number | null, to: number) =>
  new Promise<number>((resolve) => {
    const video = document.querySelector<HTMLVideoElement>('video.player__video')!;
    const check = () => {
      if (video.currentTime < to) return;
      video.pause();
      video.removeEventListener('timeupdate', check);
      resolve(video.currentTime);
    };
    const play = () => {
      video.addEventListener('timeupdate', check);
      video.muted = true;
      void video.play().catch(() => {});
    };
    if (from === null) return play();
    video.addEventListener('seeked', play, { once: true });
    video.currentTime = from;
  });

describe.each(ENGINES)('%s', (name) => {
  let engine: Engine;
  let page: BrowserPage;
  beforeAll(async () => {
    engine = await launch(name);
  }, 60_000);
  afterAll(async () => engine?.close());
  beforeEach(async () => {
    page = await engine.newPage();
  });
  afterEach(async () => page?.close());

  test('a view of 0-3 and 10-13 reaches the server once, with those seconds and the engine', async () => {
    const engineName = name === 'firefox' ? 'gecko' : 'webkit';
    const ours = () => storedViews().filter((view) => view.browser.engine === engineName);
    await page.goto(`${server.origin}${BASE}/login`);
    await until(
      page,
      'the login hydrated',
      () => !document.querySelector<HTMLButtonElement>('.login__submit')?.disabled,
      [],
    );
    await page.fill('#password', E2E_PASSWORD);
    await page.click('.login__submit');
    await until(
      page,
      'the video screen',
      () => !!document.querySelector('video.player__video'),
      [],
    );
    // Paused at the first timeupdate past the mark: WebKitGTK's come about every half second.
    const first = await page.evaluate(watch, null, 3);
    const second = await page.evaluate(watch, 10, 13);
    expect(ours()).toEqual([]);
    // Leaving: a beacon, and the copy kept on the phone, sent again at the next visit.
    await page.goto(`${server.origin}/livez`);
    await page.goto(`${server.origin}${BASE}/VideoPlayer`);
    await until(
      page,
      'the kept reports sent',
      () => localStorage.getItem('field-reports') === null,
      [],
      30_000,
    );
    const views = ours();
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({
      browser: { family: name === 'firefox' ? 'firefox' : 'safari', engine: engineName },
      seen: [
        [0, Math.round(first)],
        [10, Math.round(second)],
      ],
      seeks: 1,
    });
  });
});
