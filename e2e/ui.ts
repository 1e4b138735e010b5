/** What the visitor reads, and how the tests look at it. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';
import type { Session } from '../machines/session';

export const MESSAGES = {
  loading: 'Cargando...',
  wrongPassword: 'Error, contraseña incorrecta',
  network: 'No se pudo conectar con el servidor. Intente nuevamente.',
  rateLimited: /Demasiados intentos\. Espere \d+ segundos?/,
  expired: /Su sesión expiró/,
} as const;

/** "Red" as a person sees it: the red channel clearly dominates. */
export async function expectRed(locator: Locator) {
  await expect(locator).toBeVisible();
  const color = await locator.evaluate((element) => getComputedStyle(element).color);
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  expect(r, `${color} is not red`).toBeGreaterThan(120);
  expect(r, `${color} is not red`).toBeGreaterThan(2 * Math.max(g, b));
}

export async function readStoredSession(page: Page): Promise<Session | null> {
  const raw = await page.evaluate(() => localStorage.getItem('session'));
  return raw === null ? null : (JSON.parse(raw) as Session);
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectNoSeriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(serious).toEqual([]);
}

/**
 * Presses play (muted, as autoplay rules allow) and waits for the video to pass 0.5 s. A new
 * source (hls.js taking over, the MP4 after hls.js gave up) interrupts a play: pressed again then,
 * as a person would.
 */
export async function expectPlaysOn(page: Page) {
  const video = page.locator('video');
  const press = (element: HTMLVideoElement) => {
    element.muted = true;
    if (element.paused) void element.play().catch(() => {});
    return element.currentTime;
  };
  await expect.poll(() => video.evaluate(press)).toBeGreaterThan(0.5);
}
