/**
 * The login page's byte budget: the eager JavaScript and CSS, gzip-compressed, held to the very
 * target the bench reports (scripts/test-support/eager-assets.ts). Bytes are deterministic, so
 * this is a test; load times are measured by `npm run bench`, never here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  LOGIN_EAGER_BUDGET_BYTES,
  eagerAssetUrls,
  eagerAssets,
} from '../scripts/test-support/eager-assets';
import { BASE, url } from './site';

const DIST = 'dist';

test(`keeps the login page eager JS+CSS at ≤ ${LOGIN_EAGER_BUDGET_BYTES / 1024} KB gzip, the bench's target`, () => {
  const sizes = eagerAssets(DIST, BASE);
  expect(sizes.length).toBeGreaterThan(0);
  const total = sizes.reduce((sum, { bytes }) => sum + bytes, 0);
  console.log(`login eager JS+CSS: ${(total / 1024).toFixed(1)} KB gzip in ${sizes.length} files`);
  expect(total).toBeLessThanOrEqual(LOGIN_EAGER_BUDGET_BYTES);
});

/** Fetched after the login is on screen and React has taken it over. */
const DEFERRED = /\/assets\/SigninMutation-[\w-]+\.js$/;

test('loads only the eager set and the deferred signin chunk on the login page: no video screen, no web-vitals', async ({
  page,
}) => {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const eager = new Set(eagerAssetUrls(html).map((asset) => url(asset)));
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
