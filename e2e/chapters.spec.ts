/**
 * Capítulos and Transcripción in Chromium against the real server, at 1280×800 and 390×844:
 * the chapters play from their start, the transcript follows playback inside its own box, the
 * search finds the captions' words, and the transcript reads even when the video cannot load.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, login, test } from './fixtures';
import { expectNoSeriousViolations } from './ui';

const chaptersOf = (page: Page) => page.getByRole('region', { name: 'Capítulos' });
const transcriptOf = (page: Page) => page.getByRole('region', { name: 'Transcripción' });
const videoOf = (page: Page) => page.locator('video');
const currentIn = (region: Locator) => region.locator('[aria-current="true"]');

const currentTime = (page: Page) =>
  videoOf(page).evaluate((video: HTMLVideoElement) => video.currentTime);

/** Logged in, with both lists loaded and the video's metadata known. */
async function openPanels(page: Page) {
  await login(page);
  await expect(chaptersOf(page).getByRole('listitem')).toHaveCount(5);
  await expect(transcriptOf(page).getByRole('listitem')).toHaveCount(11);
  await expect
    .poll(() => videoOf(page).evaluate((video: HTMLVideoElement) => video.readyState))
    .toBeGreaterThan(0);
}

test('a click on a chapter, or Enter on it, plays the video from its start and marks it', async ({
  page,
}) => {
  await openPanels(page);
  const cierre = chaptersOf(page).getByRole('button', { name: /Cierre de la bolsa/ });
  await cierre.click();
  await expect.poll(() => currentTime(page)).toBeGreaterThanOrEqual(47);
  expect(await currentTime(page)).toBeLessThan(55);
  await expect(cierre).toHaveAttribute('aria-current', 'true');
  await expect(currentIn(chaptersOf(page))).toHaveCount(1);
  await expect
    .poll(() => videoOf(page).evaluate((video: HTMLVideoElement) => !video.paused))
    .toBe(true);

  const embolsado = chaptersOf(page).getByRole('button', { name: /Embolsado/ });
  await embolsado.focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => currentTime(page)).toBeLessThan(29);
  expect(await currentTime(page)).toBeGreaterThanOrEqual(21);
  await expect(embolsado).toHaveAttribute('aria-current', 'true');
});

test('the highlighted line follows playback inside its own box, and never scrolls the page', async ({
  page,
}) => {
  await openPanels(page);
  const transcript = transcriptOf(page);
  const box = transcript.locator('.panel__box');
  // The visitor watches at the top of the page, the transcript's box below the fold: moving
  // the page to the line playing would take the video away.
  const pageY = await page.evaluate(() => {
    window.scrollTo(0, 0);
    return window.scrollY;
  });
  expect(await box.evaluate((element) => element.getBoundingClientRect().bottom)).toBeGreaterThan(
    page.viewportSize()!.height,
  );
  const boxTop = await box.evaluate((element) => element.scrollTop);

  // Half a second before the second caption (14 s): real playback crosses the boundary.
  await videoOf(page).evaluate(async (video: HTMLVideoElement) => {
    video.muted = true;
    video.currentTime = 13.5;
    await video.play();
  });
  await expect(currentIn(transcript)).toHaveText(/Retiramos rastrojos/);

  // The last line: out of the box's view, so the box scrolls to it; the page stays put.
  await videoOf(page).evaluate((video: HTMLVideoElement) => {
    video.currentTime = 67;
  });
  await expect(currentIn(transcript)).toHaveText(/Extraemos desde el extremo opuesto/);
  await expect.poll(() => box.evaluate((element) => element.scrollTop)).toBeGreaterThan(boxTop);
  const inView = () =>
    currentIn(transcript).evaluate((line) => {
      const outer = line.closest('.panel__box')!.getBoundingClientRect();
      const inner = line.getBoundingClientRect();
      return inner.top >= outer.top - 1 && inner.bottom <= outer.bottom + 1;
    });
  await expect.poll(inView).toBe(true);
  expect(await page.evaluate(() => window.scrollY)).toBe(pageY);

  // The visitor scrolls the transcript back to the top to read: it stays there while a new line
  // plays (the follow waits a few seconds after their scroll).
  await box.hover();
  const readingY = await page.evaluate(() => window.scrollY);
  await page.mouse.wheel(0, -2000);
  await expect.poll(() => box.evaluate((element) => element.scrollTop)).toBe(0);
  await videoOf(page).evaluate((video: HTMLVideoElement) => {
    video.currentTime = 61;
  });
  await expect(currentIn(transcript)).toHaveText(/Recorremos la bolsa/);
  expect(await box.evaluate((element) => element.scrollTop)).toBe(0);
  expect(await page.evaluate(() => window.scrollY)).toBe(readingY);
});

test('the search finds the lines holding a word of the captions, and a click on one plays from there', async ({
  page,
}) => {
  await openPanels(page);
  const transcript = transcriptOf(page);
  await transcript.getByRole('searchbox', { name: 'Buscar en la transcripción' }).fill('presion');
  await expect(transcript.getByRole('listitem')).toHaveText([
    /Revisamos el freno y la presión antes de empezar/,
  ]);
  await expect(transcript.getByRole('status')).toHaveText('1 línea encontrada.');
  const line = transcript.getByRole('button', { name: /Revisamos el freno/ });
  await line.click();
  await expect.poll(() => currentTime(page)).toBeGreaterThanOrEqual(27);
  expect(await currentTime(page)).toBeLessThan(34);
  await expect(line).toHaveAttribute('aria-current', 'true');
  await expect(currentIn(chaptersOf(page))).toHaveText(/Embolsado/);
  // Playing, searching, a chapter and a line marked: no serious violation.
  await expectNoSeriousViolations(page);
  await transcript.getByRole('searchbox').fill('');
  await expect(transcript.getByRole('listitem')).toHaveCount(11);
});

test('the transcript and the chapters show when the video itself cannot load', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/Failed to load resource|ERR_FAILED/);
  // Only the video's download fails; the session check (HEAD) and the tracks go through.
  await page.route(/\/api\/video$/, (route) =>
    route.request().method() === 'GET' ? route.abort('failed') : route.continue(),
  );
  await login(page);
  await expect(page.getByText('No se pudo cargar el video.')).toBeVisible();
  const transcript = transcriptOf(page);
  await expect(transcript.getByRole('listitem')).toHaveCount(11);
  await expect(
    transcript.getByText('Elegimos un terreno firme, alto y sin pendiente.'),
  ).toBeVisible();
  await expect(chaptersOf(page).getByRole('listitem')).toHaveCount(5);
  await transcript.getByRole('searchbox').fill('grano');
  await expect(transcript.getByRole('listitem')).toHaveCount(2);
  await expectNoSeriousViolations(page);
});

test('both panels fold away, never push the video off the first screen, and are shown in the README', async ({
  page,
}, testInfo) => {
  await openPanels(page);
  const viewport = page.viewportSize()!;
  // Where the video sits in the page, whatever the page's scroll.
  const videoBox = () =>
    videoOf(page).evaluate((video) => {
      const { top, height } = video.getBoundingClientRect();
      return { top: top + window.scrollY, height };
    });
  const video = await videoBox();
  expect(video.top + video.height).toBeLessThanOrEqual(viewport.height);
  // The spec's 60vh.
  expect(Math.round(video.height)).toBe(Math.round(viewport.height * 0.6));
  for (const region of [chaptersOf(page), transcriptOf(page)]) {
    const summary = region.locator('summary');
    await summary.click();
    await expect(region.getByRole('listitem').first()).toBeHidden();
    await summary.click();
    await expect(region.getByRole('listitem').first()).toBeVisible();
  }
  expect(await videoBox()).toEqual(video);

  // The README's screenshots, a chapter and a line playing.
  await videoOf(page).evaluate(async (video: HTMLVideoElement) => {
    video.muted = true;
    video.currentTime = 36;
    await new Promise((resolve) => video.addEventListener('seeked', resolve, { once: true }));
  });
  await expect(currentIn(chaptersOf(page))).toHaveText(/Llenado/);
  await expect(currentIn(transcriptOf(page))).toHaveText(/El grano entra seco/);
  await expect
    .poll(() => videoOf(page).evaluate((video: HTMLVideoElement) => video.readyState))
    .toBeGreaterThanOrEqual(3);
  // Both panels in view (the video's own screenshot, video-*.png, shows the top of the page).
  await transcriptOf(page).evaluate((region) => region.scrollIntoView({ block: 'end' }));
  const name = testInfo.project.name;
  await page.screenshot({ path: `reports/screenshots/panels-${name}.png` });
});
