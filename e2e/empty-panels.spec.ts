/**
 * The video screen of a company that has not written chapters or captions yet, in Chromium at
 * 1280×800 and 390×844, beside the sample that has both. The publish without them is the global
 * set-up's test clip (E2E_ADAPTIVE_ORIGIN): prepare-video without `--chapters` and without
 * captions beside the source, so a captions stub (a NOTE, no cue) and no chapters file.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD } from './site';

// Two logins, a reload and late tracks, on a machine the bench and other tests share.
test.slow();

const NO_CHAPTERS = 'Este video todavía no tiene capítulos.';
const NO_TRANSCRIPT = 'Este video todavía no tiene transcripción.';

function originOf(env: 'E2E_ORIGIN' | 'E2E_ADAPTIVE_ORIGIN'): string {
  const value = process.env[env];
  if (!value) throw new Error(`${env} is not set: the global set-up did not run`);
  return value;
}

const chaptersOf = (page: Page) => page.getByRole('region', { name: 'Capítulos' });
const transcriptOf = (page: Page) => page.getByRole('region', { name: 'Transcripción' });

/** Logs in, then comes back as a returning visitor (the prerendered screen), counting every shift. */
async function comeBack(page: Page, origin: string) {
  await page.goto(`${origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(chaptersOf(page)).toBeVisible({ timeout: 15_000 });
  await page.addInitScript(() => {
    const page = window as { shifted?: number; shifts?: string[] };
    page.shifted = 0;
    page.shifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & {
        value: number;
        sources: { node: Node | null }[];
      })[]) {
        page.shifted! += entry.value;
        page.shifts!.push(
          `${entry.value} ${entry.sources.map((s) => (s.node as Element | null)?.className).join()}`,
        );
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  // The tracks held until the panels are in view: the screen paints with both loading, as on a
  // slow link, and a visitor who scrolls down sees the boxes (below the fold they could change
  // size unseen).
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/api\/video\/(captions|chapters)\.vtt$/, async (route) => {
    await released;
    await route.continue();
  });
  await page.reload();
  await expect(page.locator('.panel__note', { hasText: 'Cargando...' })).toHaveCount(2, {
    timeout: 15_000,
  });
  // Capítulos at the top of the window (at the page's end, the scroll anchoring would hide a move).
  await chaptersOf(page).evaluate((region) => region.scrollIntoView({ block: 'start' }));
  await expect(page.locator('.panel__note', { hasText: 'Cargando...' }).first()).toBeInViewport();
  release();
}

/** The shifts counted since the page loaded, once both tracks have had time to arrive. */
async function shiftsAfterSettling(page: Page) {
  await page.waitForLoadState('networkidle');
  // A shift is reported in the frame after it happens.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
  return page.evaluate(() => {
    const page = window as { shifted?: number; shifts?: string[] };
    return { sum: page.shifted, entries: page.shifts };
  });
}

/** Heights in CSS pixels of each panel and of its box, and how many lines its note takes. */
function measure(page: Page) {
  return page.evaluate(() =>
    ['chapters', 'transcript'].map((name) => {
      const panel = document.querySelector<HTMLElement>(`.panel--${name}`)!;
      const box = panel.querySelector<HTMLElement>('.panel__box')!;
      const note = box.querySelector('.panel__note');
      const range = document.createRange();
      if (note) range.selectNodeContents(note);
      return {
        name,
        panel: Math.round(panel.getBoundingClientRect().height),
        box: Math.round(box.getBoundingClientRect().height),
        note: note ? Math.round(note.getBoundingClientRect().height) : 0,
        noteLines: note ? new Set([...range.getClientRects()].map((rect) => rect.top)).size : 0,
      };
    }),
  );
}

const textTracks = (page: Page) =>
  page
    .locator('video')
    .evaluate((video: HTMLVideoElement) =>
      [...video.textTracks].map((track) => ({ kind: track.kind, cues: track.cues?.length ?? 0 })),
    );

/** Both panels in view, for the screenshot in docs/publishing.md. */
async function screenshot(page: Page, name: string) {
  await transcriptOf(page).evaluate((region) => region.scrollIntoView({ block: 'end' }));
  await page.screenshot({ path: `docs/screenshots/${name}.png` });
}

test('a publish without chapters and with the captions stub: one line each, no search, no captions track, nothing moves', async ({
  page,
}, testInfo) => {
  await comeBack(page, originOf('E2E_ADAPTIVE_ORIGIN'));
  await expect(chaptersOf(page).getByText(NO_CHAPTERS)).toBeVisible({ timeout: 15_000 });
  await expect(transcriptOf(page).getByText(NO_TRANSCRIPT)).toBeVisible();
  await expect(page.getByRole('searchbox')).toHaveCount(0);
  await expect(page.getByRole('listitem')).toHaveCount(0);
  await expect(page.getByRole('alert')).toHaveCount(0);
  // The player offers no track with nothing in it.
  await expect.poll(() => textTracks(page)).toEqual([]);
  await expect(page.locator('video track')).toHaveCount(0);

  const shifts = await shiftsAfterSettling(page);
  expect(shifts.sum, shifts.entries?.join(' | ')).toBe(0);

  const heights = await measure(page);
  testInfo.annotations.push({ type: 'heights', description: JSON.stringify(heights) });
  for (const { box, note, noteLines, panel } of heights) {
    expect(noteLines).toBe(1);
    // The box is the note and its border, no more; the panel the title and that line.
    expect(box - note).toBeLessThanOrEqual(2);
    expect(panel).toBeLessThan(110);
  }
  await screenshot(page, `no-tracks-${testInfo.project.name}`);
});

test('the sample, which has both: the lists in their fixed boxes, the captions track, nothing moves', async ({
  page,
}, testInfo) => {
  await comeBack(page, originOf('E2E_ORIGIN'));
  await expect(chaptersOf(page).getByRole('listitem')).toHaveCount(5, { timeout: 15_000 });
  await expect(transcriptOf(page).getByRole('listitem')).toHaveCount(11);
  await expect(transcriptOf(page).getByRole('searchbox')).toBeEnabled();
  await expect(page.getByText(/todavía no tiene/)).toHaveCount(0);
  await expect.poll(() => textTracks(page)).toEqual([{ kind: 'captions', cues: 11 }]);

  const shifts = await shiftsAfterSettling(page);
  expect(shifts.sum, shifts.entries?.join(' | ')).toBe(0);

  const heights = await measure(page);
  testInfo.annotations.push({ type: 'heights', description: JSON.stringify(heights) });
  const [chapters, transcript] = heights;
  // panels.css: 14rem, and min(18rem, 45vh).
  expect(chapters!.box).toBe(224);
  expect(transcript!.box).toBe(Math.round(Math.min(288, page.viewportSize()!.height * 0.45)));
  await screenshot(page, `with-tracks-${testInfo.project.name}`);
});
