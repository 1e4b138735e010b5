/**
 * The fixtures every spec test uses: the site's address, a visitor who logs in through the form,
 * and a watch on the console and on CSP violations that fails the test on any error.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { BASE, E2E_PASSWORD, url } from './site';

export { expect };

export interface ConsoleWatch {
  errors: string[];
  /** Errors the test itself provoked on purpose (e.g. a 401 for a wrong password). */
  allow(pattern: RegExp): void;
}

export async function login(page: Page, password = E2E_PASSWORD) {
  await page.goto(url(`${BASE}/login`));
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
}

/**
 * Each test is its own visitor, from its own address (the test server trusts the loopback
 * proxy), so that the per-address signin limits of one test never touch another.
 */
export const visitorTest = base.extend({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures from this pattern
  extraHTTPHeaders: async ({}, use, testInfo) => {
    const n = [...testInfo.testId].reduce((hash, c) => (hash * 31 + c.charCodeAt(0)) >>> 0, 7);
    const address = `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255 || 1}`;
    await use({ 'X-Forwarded-For': `${address}` });
  },
});

export const test = visitorTest.extend<{ consoleWatch: ConsoleWatch }>({
  consoleWatch: [
    async ({ page }, use) => {
      const allowed: RegExp[] = [];
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (event) => {
          console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
        });
      });
      await use({ errors, allow: (pattern) => void allowed.push(pattern) });
      const unexpected = errors.filter((text) => !allowed.some((pattern) => pattern.test(text)));
      expect(unexpected, 'console errors or CSP violations').toEqual([]);
    },
    { auto: true },
  ],
});
