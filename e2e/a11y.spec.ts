/**
 * Accessibility (axe-core: no serious or critical violation), the keyboard alone, and the
 * screenshots the README shows, at both viewports.
 */
import { EMPRESA, NOMBRES } from '../tests/model/model';
import { expect, login, test } from './fixtures';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD, url } from './site';
import { MESSAGES, expectNoSeriousViolations } from './ui';

test('the idle login has no serious accessibility violation', async ({ page }) => {
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await expectNoSeriousViolations(page);
});

test('the login while loading has no serious accessibility violation', async ({ page }) => {
  await page.route('**/api/users/signin', () => {});
  await page.goto(url(`${BASE}/login`));
  await page.getByLabel('Contraseña').fill('cualquiera');
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByText(MESSAGES.loading)).toBeVisible();
  await expectNoSeriousViolations(page);
});

test('the login with an error has no serious accessibility violation', async ({
  page,
  consoleWatch,
}) => {
  consoleWatch.allow(/401/);
  await login(page, WRONG_PASSWORD);
  await expect(page.getByText(MESSAGES.wrongPassword)).toBeVisible();
  await expectNoSeriousViolations(page);
});

test('the video screen has no serious accessibility violation', async ({ page }) => {
  await login(page);
  await expect(page.locator('video')).toBeVisible();
  await expectNoSeriousViolations(page);
});

test('logs in and out with the keyboard alone', async ({ page }) => {
  await page.goto(url(`${BASE}/login`));
  await page.keyboard.press('Tab');
  await expect(page.getByLabel('Contraseña')).toBeFocused();
  await page.keyboard.type(E2E_PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));

  const greeting = page.getByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` });
  await expect(greeting).toBeVisible();
  for (
    let i = 0;
    i < 5 && !(await page.getByRole('button', { name: 'Cerrar sesion' }).count());
    i++
  )
    await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Cerrar sesion' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(url(`${BASE}/login`));
});

test('writes screenshots of both screens for the README', async ({ page }, testInfo) => {
  const name = testInfo.project.name;
  await page.goto(url(`${BASE}/login`));
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await page.screenshot({ path: `reports/screenshots/login-${name}.png` });
  await login(page);
  const video = page.locator('video');
  await expect(video).toBeVisible();
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState)).toBeGreaterThan(0);
  await page.screenshot({ path: `reports/screenshots/video-${name}.png` });
});
