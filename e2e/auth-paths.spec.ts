/**
 * The auth machine's generated paths, in Chromium, against the real server. Each step is done
 * the way a visitor (or another tab, or the server) would do it, and after each step the test
 * checks what the visitor sees and what local storage holds.
 */
import { expect, type BrowserContext, type Page, type Route } from '@playwright/test';
import { visitorTest as test } from './fixtures';
import { SESSION_TIMEOUT_EVENT } from '../machines/auth-machine';
import { readPathsFile } from '../tests/model/paths-file';
import { expectAfter, type Expected } from '../tests/model/oracle';
import type { PathEvent, PlainPath, PlainStep } from '../tests/model/model';
import { BASE, E2E_PASSWORD, SESSION_TIMEOUT_MS, WRONG_PASSWORD, url } from './site';
import { MESSAGES, expectRed, readStoredSession } from './ui';

const SIGNIN = '**/api/users/signin';

/** How the server will answer the submit of `steps[index]`, read from the step after it. */
function answerFor(steps: PlainStep[], index: number): PathEvent['type'] | 'held' {
  const next = steps[index + 1]?.event.type;
  return next?.startsWith('signin.') ? next : 'held';
}

class Visitor {
  private held: Route[] = [];
  constructor(
    private readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  async start(path: PlainPath) {
    // Time stands still until the app has read the stored session: a fresh session is one
    // second from the 7,200 s limit, and loading the page takes longer than that.
    const page = this.page;
    await Promise.all([
      (async () => {
        await page.clock.install({ time: path.nowMs - 10_000 });
        await page.clock.pauseAt(path.nowMs);
        await page.addInitScript((seed) => {
          // Only on the first load: the seed is what storage held before the app ever ran.
          if (seed !== null && !sessionStorage.getItem('e2e-seeded')) {
            localStorage.setItem('session', seed);
            sessionStorage.setItem('e2e-seeded', '1');
          }
        }, path.seed);
      })(),
      // A fresh stored session comes from a login in this browser, which also opened a server
      // session: without one the server would rightly refuse the video at once.
      path.steps[0]?.state === 'loggedIn' ? this.signInOnServer() : null,
    ]);
    await this.page.goto(url(`${BASE}/login`));
    await this.page.waitForFunction(
      () =>
        location.pathname.endsWith('/VideoPlayer') ||
        document.querySelector('form button[type="submit"]:not([disabled])') !== null,
    );
    await this.page.clock.resume();
  }

  /**
   * Every signin is held on its way to the server, so that "Cargando..." can be seen; the next
   * step lets it through to the real server or answers it as the failure the step names.
   */
  async submit(password: string, answer: ReturnType<typeof answerFor>) {
    await this.page.unroute(SIGNIN);
    await this.page.route(SIGNIN, (route) => void this.held.push(route));
    const typed =
      password === '' ? '' : answer === 'signin.succeeded' ? E2E_PASSWORD : WRONG_PASSWORD;
    const field = this.page.getByLabel('Contraseña');
    await field.fill(typed);
    await this.page.getByRole('button', { name: 'Ingresar' }).click();
  }

  async answer(event: PathEvent['type']) {
    await expect.poll(() => this.held.length).toBeGreaterThan(0);
    const route = this.held.shift()!;
    if (event === 'signin.failed') await route.abort('failed');
    else if (event === 'signin.rateLimited')
      await route.fulfill({
        status: 429,
        headers: { 'Retry-After': '60' },
        json: { error: 'too_many_attempts', message: 'Demasiados intentos' },
      });
    else await route.continue();
  }

  async signInOnServer() {
    const response = await this.context.request.post(url('/api/users/signin'), {
      data: { form: { usuario: 'capacitacion', contraseña: E2E_PASSWORD } },
    });
    expect(response.status()).toBe(200);
  }

  /**
   * Another tab of the same browser logs in or out: it writes local storage, this tab hears.
   * The tab opens while the server is asked, and closes once it has written.
   */
  async otherTab(value: string | null) {
    const [, other] = await Promise.all([
      value === null ? this.context.request.post(url('/api/users/signout')) : this.signInOnServer(),
      this.openOtherTab(),
    ]);
    await other.evaluate((v) => {
      if (v === null) localStorage.removeItem('session');
      else localStorage.setItem('session', v);
    }, value);
    await other.close();
  }

  private async openOtherTab() {
    const other = await this.context.newPage();
    // Any page of the same origin shares local storage; one without the app keeps it quiet.
    await other.goto(url('/api/e2e-other-tab'));
    return other;
  }

  /** The server ends the session (a restart, say); then the visitor presses play. */
  async serverRefuses() {
    await this.context.request.post(url('/api/users/signout'));
    await this.page.locator('video').click();
  }

  async logout() {
    const button = this.page.getByRole('button', { name: /^Hola / });
    await button.hover();
    await this.page.getByRole('button', { name: 'Cerrar sesion' }).click();
  }

  async release() {
    for (const route of this.held.splice(0)) await route.abort('aborted').catch(() => {});
  }
}

/**
 * Waits for every check at once and throws the first failure: each is a web-first assertion
 * that retries on its own, so together they take the time of the slowest, not of their sum.
 */
async function all(checks: (Promise<unknown> | null)[]) {
  const failed = (await Promise.allSettled(checks)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

async function checkScreen(page: Page, step: PlainStep, expected: Expected) {
  const { state, context } = step;
  const loading = page.getByText(MESSAGES.loading, { exact: true });
  const errorText =
    state === 'error' && context.error
      ? context.error === 'rateLimited'
        ? MESSAGES.rateLimited
        : MESSAGES[context.error]
      : null;
  const expiredNotice = page.getByText(MESSAGES.expired);

  // First what the screen must show: once all of it is there, the screen has settled.
  if (state === 'loggedIn') {
    // The pointer may rest where "Cerrar sesion" was clicked; the greeting shows without hover.
    await page.mouse.move(1, page.viewportSize()!.height - 1);
    const session = expected.stored!;
    await all([
      expect(page).toHaveURL(url(`${BASE}/VideoPlayer`)),
      expect(
        page.getByRole('button', { name: `Hola ${session.nombres} / ${session.empresa}` }),
      ).toBeVisible(),
      expect(page.locator('video')).toBeVisible(),
    ]);
  } else {
    await all([
      expect(page).toHaveURL(url(`${BASE}/login`)),
      expect(page.getByLabel('Contraseña')).toBeVisible(),
      expect(page.getByRole('button', { name: 'Ingresar' })).toBeVisible(),
      state === 'submitting' ? expectRed(loading) : null,
      errorText === null ? null : expectRed(page.getByText(errorText)),
      state === 'expired' ? expect(expiredNotice).toBeVisible() : null,
    ]);
  }

  // Then what it must not show, each message but the one expected: one locator for all of them,
  // so that the check waits until none is left.
  const absent = [
    state === 'submitting' ? null : loading,
    ...Object.entries(MESSAGES)
      .filter(([key, text]) => key !== 'loading' && key !== 'expired' && text !== errorText)
      .map(([, text]) => page.getByText(text)),
    state === 'expired' ? null : expiredNotice,
  ].filter((locator) => locator !== null);
  const unwanted = absent.reduce((union, locator) => union.or(locator));
  await expect(unwanted, 'a message this state does not show').toHaveCount(0);
}

async function checkStorage(page: Page, expected: Expected) {
  const stored = await readStoredSession(page);
  if (expected.stored === null) {
    expect(stored).toBeNull();
    return;
  }
  // The browser's clock runs during the test, so the login second may be a little later.
  const { timestamp, ...rest } = expected.stored;
  expect(stored).toMatchObject(rest);
  expect(stored!.timestamp).toBeGreaterThanOrEqual(timestamp);
  expect(stored!.timestamp).toBeLessThanOrEqual(timestamp + 30);
}

for (const path of readPathsFile()) {
  test(path.title, async ({ context, page }) => {
    const visitor = new Visitor(context, page);
    let expected: Expected | null = null;
    try {
      for (const [index, step] of path.steps.entries()) {
        const { event } = step;
        await test.step(`${event.type} ⇒ ${step.state}`, async () => {
          switch (event.type) {
            case 'xstate.init':
              await visitor.start(path);
              break;
            case 'submit':
              await visitor.submit(event.password, answerFor(path.steps, index));
              break;
            case 'signin.succeeded':
            case 'signin.rejected':
            case 'signin.failed':
            case 'signin.rateLimited':
              await visitor.answer(event.type);
              break;
            case 'logout':
              await visitor.logout();
              break;
            case 'session.refused':
              await visitor.serverRefuses();
              break;
            case 'session.changedElsewhere':
              await visitor.otherTab(event.value);
              break;
            case SESSION_TIMEOUT_EVENT:
              // The page's clock kept running while the steps before were checked (seconds,
              // never a minute), so the timer is due within a minute of the full delay. The
              // exact millisecond is the machine level's to check.
              await page.clock.runFor(SESSION_TIMEOUT_MS - 60_000);
              await expect(page).toHaveURL(url(`${BASE}/VideoPlayer`));
              await page.clock.runFor(60_000);
              break;
          }
          expected = expectAfter(expected, event, path);
          expect(expected.state).toBe(step.state);
          await checkScreen(page, step, expected);
          await checkStorage(page, expected);
        });
      }
    } finally {
      await visitor.release();
    }
  });
}
