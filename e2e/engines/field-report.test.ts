/**
 * Firefox and WebKit send their reports too (docs/field-reports.md): a view of the 24 s clip,
 * 0-3 then a seek to 10 and 10-13 (to the timeupdate where it paused), reaches the real server's
 * store once with those seconds and the engine named; WebKit without requestIdleCallback. And the
 * staff page reads in both (docs/staff-page.md). A server of its own, so that its store
 * (DATA_DIR) holds only this file's reports.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { REPORTS_PATH, type ViewReport } from '../../config/field-report';
import { clientConfig } from '../../config/settings';
import { publishTestClip } from '../../scripts/test-support/test-clip';
import {
  send,
  signedIn,
  startServer,
  type RunningServer,
} from '../../scripts/test-support/test-server';
import { REPORTS_FILE } from '../../server/file-report-store';
import { hashPassword } from '../../server/password';
import { parseStored } from '../../server/report-store';
import { viewReport } from '../../tests/server/field-reports';
import { BASE, E2E_PASSWORD, siteEnv } from '../site';
import { launch, type BrowserPage, type Engine } from './browsers';
import { until } from './visit';

const STAFF_PASSWORD = 'clave-del-equipo-engines';
/** ENGINE_SCREENSHOTS=docs/screenshots keeps a picture of the staff page per engine. */
const SHOTS = process.env.ENGINE_SCREENSHOTS;

const ENGINES = (['firefox', 'webkit'] as const).filter(
  (name) => !process.env.ENGINES || process.env.ENGINES.split(',').includes(name),
);

let server: RunningServer;
let dataDir: string;
let mediaDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'field-report-engines-'));
  mediaDir = (await publishTestClip(24)).dir;
  const staffHash = await hashPassword(STAFF_PASSWORD, { N: 2 ** 14, r: 8, p: 1 });
  server = await startServer(
    await siteEnv({ MEDIA_DIR: mediaDir, DATA_DIR: dataDir, STAFF_PASSWORD_HASH: staffHash }),
  );
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

/** The staff page's figures, by their label. */
const figures = () =>
  Object.fromEntries(
    [...document.querySelectorAll('.figure')].map((figure) => [
      figure.querySelector('dt')?.textContent ?? '',
      figure.querySelector('dd')?.firstChild?.textContent ?? '',
    ]),
  );

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
  test('the staff page reads in this engine: its own password, the stored views, the graph, no sideways scroll', async () => {
    // A view of its own, through the real route, so that this test stands alone.
    const visitor = await signedIn({
      origin: server.origin,
      username: clientConfig(process.env).username,
      password: E2E_PASSWORD,
    });
    const posted = await send(`${server.origin}${REPORTS_PATH}`, {
      method: 'POST',
      headers: { cookie: visitor.cookie, 'content-type': 'application/json' },
      body: JSON.stringify(viewReport({ durationS: 24, seen: [[0, 12]], renditions: {} })),
    });
    expect(posted.status).toBe(204);
    await page.goto(`${server.origin}${BASE}/equipo`);
    await page.fill('#contrasena', STAFF_PASSWORD);
    await page.click('button[type="submit"]');
    await until(
      page,
      'the report',
      // The signin form has the same heading: the report's figures are the report's own.
      () => !!document.querySelector('.figure'),
      [],
    );
    const shown = await page.evaluate(figures);
    expect(shown['Visitas']).toBe(String(storedViews().length));
    expect(Number(shown['Visitas'])).toBeGreaterThan(0);
    // The engagement graph shown at this width (a narrow and a wide one are drawn): a bar for
    // each second of the 24 s clip.
    const shownBars = () =>
      [...document.querySelectorAll('svg.engagement')]
        .filter((graph) => graph.getBoundingClientRect().width > 0)
        .map((graph) => graph.querySelectorAll('rect.bar').length);
    expect(await page.evaluate(shownBars)).toEqual([24]);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true);
    if (SHOTS) await page.screenshot(join(SHOTS, `staff-${name}.png`));
  });
});
