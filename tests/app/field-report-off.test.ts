import { describe, expect, it, vi } from 'vitest';
import { createPageReports } from '../../src/field-report/page-reports';
import { pageReporter } from '../../src/field-report/reporter';

vi.mock('../../src/config', async (original) => {
  const { config } = await original<typeof import('../../src/config')>();
  return { config: { ...config, reportsUrl: '' } };
});
const imported = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/field-report/page-recorder', () => {
  imported.count += 1;
  return {};
});

describe('with REPORTS=off (no reports address in the build)', () => {
  it('the app makes no page reports and the page has no reporter: nothing is recorded, sent, or loaded', async () => {
    expect(createPageReports({ timing: () => ({ pressAt: null, firstFrameAt: null }) })).toBeNull();
    expect(pageReporter()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(imported.count).toBe(0);
  });
});
