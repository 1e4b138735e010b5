import { defineConfig } from '@playwright/test';
import {
  CHROMIUM_ARGS,
  findChromium,
  findHeadlessShell,
} from './scripts/test-support/find-chromium.mjs';

const executablePath = findChromium() ?? undefined;
/** Specs with a project of their own. */
const OWN = [
  'auth-paths.spec.ts',
  'budget.spec.ts',
  'redis-instances.spec.ts',
  'browser-restart.spec.ts',
  'proxy.spec.ts',
  'password-change.spec.ts',
];
/**
 * What a screen looks like depends on the viewport (the quality menu too): these run at both
 * sizes. Every other spec (the shell, the floor, publishing) runs once, on the phone: most
 * visitors have one.
 */
const LAYOUT = [
  'spec.spec.ts',
  'a11y.spec.ts',
  'chapters.spec.ts',
  'empty-panels.spec.ts',
  'adaptive.spec.ts',
];
const desktop = { viewport: { width: 1280, height: 800 } };
const phone = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 3,
  isMobile: true,
  hasTouch: true,
};

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: process.env.CI ? 1 : 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [
    ['list'],
    ['json', { outputFile: 'reports/e2e.json' }],
    ['./e2e/coverage-reporter.ts'],
  ],
  use: {
    locale: 'es-AR',
    trace: 'on-first-retry',
    launchOptions: { executablePath, args: CHROMIUM_ARGS },
  },
  projects: [
    // The ~200 auth paths check screens and storage, never media: Chromium's headless shell
    // (docs/browsers.md) runs them at about half the CPU of the full browser.
    {
      name: 'paths',
      testMatch: 'auth-paths.spec.ts',
      use: {
        ...desktop,
        launchOptions: {
          executablePath: findHeadlessShell() ?? executablePath,
          args: CHROMIUM_ARGS,
        },
      },
    },
    { name: 'budget', testMatch: 'budget.spec.ts', use: desktop },
    {
      name: 'instances',
      testMatch: [
        'redis-instances.spec.ts',
        'browser-restart.spec.ts',
        'proxy.spec.ts',
        'password-change.spec.ts',
      ],
      use: desktop,
    },
    { name: 'desktop', testMatch: LAYOUT, use: desktop },
    { name: 'phone', testIgnore: OWN, use: phone },
  ],
});
