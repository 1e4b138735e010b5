/**
 * The login page's byte budget: the eager JavaScript and CSS, gzip-compressed, must stay within
 * 110 KB (a plain app of this stack ships about 101 KB). Bytes are deterministic, so this is a
 * test; load times are measured by `npm run bench`, never here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import { eagerAssetUrls } from '../scripts/bench/bundle';
import { BASE, url } from './site';

const BUDGET_BYTES = 110 * 1024;
const DIST = 'dist';

/** The files index.html makes the browser fetch before the app runs (the bench's rule). */
function eagerAssets(): string[] {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  return eagerAssetUrls(html).map((ref) => ref.replace(`${BASE}/`, ''));
}

test('keeps the login page eager JS+CSS within 110 KB gzip', () => {
  const assets = eagerAssets();
  expect(assets.length).toBeGreaterThan(0);
  const sizes = assets.map(
    (asset) => gzipSync(readFileSync(join(DIST, asset)), { level: 9 }).length,
  );
  const total = sizes.reduce((sum, size) => sum + size, 0);
  console.log(`login eager JS+CSS: ${(total / 1024).toFixed(1)} KB gzip in ${assets.length} files`);
  expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
});

/** Fetched after the login is on screen and React has taken it over. */
const DEFERRED = /\/assets\/SigninMutation-[\w-]+\.js$/;

test('loads only the eager set and the deferred signin chunk on the login page: no video screen, no web-vitals', async ({
  page,
}) => {
  const eager = new Set(eagerAssets().map((asset) => url(`${BASE}/${asset}`)));
  const loaded: string[] = [];
  page.on('request', (request) => {
    if (['script', 'stylesheet'].includes(request.resourceType())) loaded.push(request.url());
  });
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await page.waitForLoadState('networkidle');
  const extra = loaded.filter((u) => !eager.has(u));
  expect(extra.filter((u) => !DEFERRED.test(u))).toEqual([]);
  expect(extra.length).toBeLessThanOrEqual(1);
});
