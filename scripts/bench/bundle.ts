/** The login's eager JS+CSS, gzip; e2e/budget.spec.ts holds the same files to the same target. */
import { LOGIN_EAGER_BUDGET_BYTES, eagerAssets } from '../test-support/eager-assets';
import { atMost, figure, kilobytes, section } from './measure';

const BUDGET = atMost(LOGIN_EAGER_BUDGET_BYTES, (bytes) => `${bytes / 1024} KB`);
const FIGURES = { eager: figure('Login eager JS+CSS (gzip)', BUDGET) };
const NAME = 'bundle: login eager JS+CSS';
export const bundleMeasurement = section(NAME, 10_000, FIGURES, async (site) => {
  const sizes = eagerAssets(site.distDir, site.base);
  const total = sizes.reduce((sum, { bytes }) => sum + bytes, 0);
  const files = `${sizes.length} file${sizes.length === 1 ? '' : 's'}`;
  const note = sizes.map(({ name, bytes }) => `${name} ${kilobytes(bytes)}`).join(', ');
  return { eager: { value: `${kilobytes(total)} (${files})`, measured: total || null, note } };
});
