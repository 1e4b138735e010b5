/**
 * A leaked password shut out (docs/publishing.md, `npm run rekey`), in a real Chromium against
 * the real built server on its own media folder: a key rotated while a visitor watches leaves
 * that page with a clear message and a way back (a new page, which plays the new publish), and
 * the old key opens nothing served afterwards.
 */
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFileName, keysDirFor } from '../config/media-layout';
import { segmentIv } from '../config/segment-iv';
import { prepareVideo } from '../scripts/ops/prepare-video';
import { rekey } from '../scripts/ops/rekey';
import { makeClip } from '../scripts/test-support/test-clip';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD, siteEnv } from './site';
import { expectPlaysOn } from './ui';

const CLIP_S = 48;

let work: string;
let media: string;
let server: RunningServer;

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'rekey-'));
  media = join(work, 'media');
  const source = join(work, 'clip.mp4');
  makeClip(source, CLIP_S);
  await prepareVideo(source, media, { preset: 'ultrafast' });
  server = await startServer(await siteEnv({ MEDIA_DIR: media }));
});

test.afterAll(async () => {
  await server?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const pageInfo = (page: import('@playwright/test').Page) =>
  page.evaluate(
    () =>
      JSON.parse(document.getElementById('media-info')!.textContent!) as {
        version: string;
        rungs: { dir: string }[];
      },
  );

test('a key rotated while a visitor watches: a clear message, a way back to the new publish, and the old key opens nothing', async ({
  page,
  consoleWatch,
}) => {
  test.setTimeout(120_000);
  // The removed publish answers 404 to what the page still asks of it.
  consoleWatch.allow(/status of 404/);
  await page.goto(`${server.origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByLabel('Calidad')).toBeVisible({ timeout: 20_000 });
  await expectPlaysOn(page);
  const before = await pageInfo(page);
  const oldId = before.rungs[0]!.dir.slice(0, 8);
  const oldKey = readFileSync(join(keysDirFor(media), keyFileName(oldId)));

  const done = rekey(media);
  expect(done.removed).toContain(before.version);

  // Past what is buffered (30 s ahead at most): the player must ask the removed publish.
  await page
    .locator('video')
    .evaluate((video: HTMLVideoElement, at) => (video.currentTime = at), CLIP_S - 4);
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('El video se volvió a publicar', { timeout: 30_000 });
  await alert.getByRole('button', { name: 'Cargar de nuevo' }).click();
  await expect(page.getByLabel('Calidad')).toBeVisible({ timeout: 20_000 });
  const after = await pageInfo(page);
  expect(after.version).not.toBe(before.version);
  await expectPlaysOn(page);
  await expect(page.getByRole('alert')).toHaveCount(0);

  // What is served now, fetched by anyone: the old key does not open it.
  const segment = await (
    await page.request.get(
      `${server.origin}/api/video/hls/${after.version}/${after.rungs[0]!.dir}/seg00001.m4s`,
    )
  ).body();
  const decipher = createDecipheriv('aes-128-cbc', oldKey, segmentIv(1));
  let opened: Buffer | null = null;
  try {
    opened = Buffer.concat([decipher.update(segment), decipher.final()]);
  } catch {
    // A padding error: the old key is wrong for these bytes.
  }
  if (opened) expect(opened.subarray(4, 8).toString('latin1')).not.toMatch(/^(moof|styp|sidx)$/);
});
