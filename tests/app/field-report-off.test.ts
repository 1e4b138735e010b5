import { describe, expect, it, vi } from 'vitest';
import { pageReporter } from '../../src/field-report/reporter';

vi.mock('../../src/config', async (original) => {
  const { config } = await original<typeof import('../../src/config')>();
  return { config: { ...config, reportsUrl: '' } };
});
const imported = vi.hoisted(() => ({ count: 0 }));
vi.mock('web-vitals', () => {
  imported.count += 1;
  return {};
});

describe('with REPORTS=off (no reports address in the build)', () => {
  it('the page has no reporter: nothing is recorded, sent, or loaded (web-vitals included)', async () => {
    expect(pageReporter()).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(imported.count).toBe(0);
  });
});
