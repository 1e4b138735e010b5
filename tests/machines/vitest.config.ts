/** The machine's tests alone, for Stryker: mutants of machines/ are judged by them. */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['tests/machines/**/*.test.ts'], environment: 'node' },
});
