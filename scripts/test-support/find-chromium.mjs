/**
 * Finds the Chromium the browser tests use: never a downloaded one (this network cannot reach
 * it), always the system's. CHROMIUM_PATH wins, then Debian's /usr/bin/chromium.
 */
import { existsSync } from 'node:fs';

const CHROMIUM_CANDIDATES = [
  process.env.CHROMIUM_PATH,
  process.env.PLAYWRIGHT_CHROMIUM_EXECUTABLE_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
].filter(Boolean);

export function findChromium() {
  return CHROMIUM_CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/**
 * Debian's Chromium headless shell: the same engine without the desktop browser around it (what
 * Playwright's own headless Chromium is), at about half the CPU per test. Only for tests that
 * never look at media: in one media test (a republish under a throttled link) it stalls where
 * the full browser does not.
 */
export function findHeadlessShell() {
  const shell = '/usr/bin/chromium-headless-shell';
  return existsSync(shell) ? shell : null;
}

/** The flags that keep Chromium quiet and working on a closed network, as root. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
