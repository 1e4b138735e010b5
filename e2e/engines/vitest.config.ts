/**
 * The browser tests in Firefox ESR and WebKitGTK (`npm run test:engines`): the same global
 * set-up as Playwright's (the built server, a MEDIA_DIR site), one file at a time, since each
 * engine takes a core of this 2-core machine.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['e2e/engines/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['e2e/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    // A WebKitGTK web process that stops answering (seen once in this session's runs) would
    // otherwise hold every later test and hook to its timeout: stop at the first failure.
    bail: 1,
    // As Playwright in CI (playwright.config.ts): one retry, reported, for the engines' own
    // hiccups (a WebKitGTK navigation that did not load within 15 s, once in four CI runs).
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 60_000,
  },
});
