/**
 * Watching without signal in every engine (Chromium's own, fuller tests: e2e/offline-*.spec.ts):
 * the service worker, the download in Cache Storage, and a reload with the link cut; and a
 * return whose page the worker shows from its copy. Neither
 * WebDriver BiDi (Firefox) nor WebDriver classic (WebKit) can switch a browser offline, so the
 * link is cut at the proxy: the browser still says it is online, and the screen's "Sin conexión"
 * notices are left to the Chromium tests.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BASE, E2E_PASSWORD } from '../site';
import type { BrowserPage } from './browsers';
import { ENGINES, expectPlaying, login, textOf, until, useEngine, type SiteKind } from './visit';

const SITES: SiteKind[] = ['mp4', 'adaptive'];
const PAGE_PATH = /\/(login|VideoPlayer)(\?|$)/;

const inControl = (page: BrowserPage) =>
  until(
    page,
    'the service worker in control',
    () => !!navigator.serviceWorker.controller,
    [],
    30_000,
  );

/**
 * The video screen plays: muted (unmuted autoplay is refused in some engines), as a visitor's
 * press would be allowed.
 */
async function playsOnScreen(page: BrowserPage) {
  await until(page, 'the video screen', () => !!document.querySelector('video.player__video'), []);
  await page.evaluate(() => {
    const video = document.querySelector<HTMLVideoElement>('video.player__video')!;
    video.muted = true;
    // When the start's rendition is not the one stored, its source gives way to hls.js's,
    // whose load interrupts this play; the app presses it again (replay in video-start.ts).
    return video.play().then(
      () => true,
      () => false,
    );
  });
  await expectPlaying(page);
}

async function storedSessionTwoHoursOld(page: BrowserPage) {
  await page.evaluate(() => {
    const session = JSON.parse(localStorage.getItem('session')!) as { timestamp: number };
    session.timestamp -= 7200;
    localStorage.setItem('session', JSON.stringify(session));
    return true;
  });
}

/** The greeting's signout (one click with a pointer that hovers, two without), then "keep". */
async function signOutKeepingTheCopy(page: BrowserPage) {
  const asked = () => !!document.querySelector('[role=alertdialog]');
  // The question comes once the page has looked at the copy: waited for before a second press.
  for (let press = 0; press < 2; press += 1) {
    await page.click('.session-button');
    const shown = await until(page, 'the question about the copy', asked, [], 3_000).then(
      () => true,
      () => false,
    );
    if (shown) break;
  }
  await until(page, 'the question about the copy', asked, []);
  await page.click('[role=alertdialog] .button');
  await until(page, 'the login', () => !!document.querySelector('#password'), []);
}

describe.each(ENGINES)('%s', (name) => {
  const state = useEngine(name, { serviceWorkers: true });
  let page: BrowserPage;
  beforeEach(async () => {
    page = await state.engine.newPage();
  });
  afterEach(async () => {
    Object.values(state.proxies).forEach((proxy) => proxy.linkDown(false));
    // WebKit keeps one browser for every test: the next visitor starts without this one's worker,
    // download and local storage (a signout this one still owes).
    await page
      .evaluate(async () => {
        const registrations = await navigator.serviceWorker.getRegistrations();
        await Promise.all(registrations.map((registration) => registration.unregister()));
        await Promise.all((await caches.keys()).map((key) => caches.delete(key)));
        localStorage.clear();
        return true;
      })
      .catch(() => false);
    await page?.close();
  });

  test.each(SITES)(
    'the %s site: the download plays after a reload with the link cut, and from the login once the session is over',
    async (kind) => {
      const proxy = state.proxies[kind];
      await login(page, proxy, E2E_PASSWORD);
      await inControl(page);
      await until(
        page,
        'the download offered',
        () => !!document.querySelector('.offline .offline__size'),
        [],
      );
      await page.click('.offline .button');
      expect(
        await until(page, 'the download stored', textOf, ['.offline strong[role=status]'], 30_000),
      ).toBe('Lista para ver sin conexión');

      proxy.linkDown(true);
      const reached = proxy.seen.length;
      await page.reload();
      await playsOnScreen(page);
      // All of it from the device: nothing reached the server.
      expect(proxy.seen.length).toBe(reached);

      // The session ends with no signal, one way on each site: two hours later (the stored
      // session 7,200 s old), or the signout, keeping the copy when asked.
      if (kind === 'mp4') await storedSessionTwoHoursOld(page);
      else await signOutKeepingTheCopy(page);
      await page.reload();
      await until(
        page,
        'the copy offered on the login',
        () =>
          !!document.querySelector('#password') &&
          document.querySelectorAll('.login__copy button').length === 1,
        [],
      );
      await page.click('.login__copy button');
      // Its source comes from the phone's storage once the screen is up.
      await until(
        page,
        "the copy's metadata",
        () =>
          (document.querySelector<HTMLVideoElement>('video.player__video')?.readyState ?? 0) >= 1,
        [],
      );
      await playsOnScreen(page);
      expect(
        await until(page, 'the end date', textOf, ['.copy-screen .offline [role=status]']),
      ).toMatch(/^Copia guardada en este teléfono: se ve sin conexión hasta el \d+ de \w+\.$/);
      // It seeks: near its end, it plays there to the end.
      await page.evaluate(() => {
        const video = document.querySelector<HTMLVideoElement>('video.player__video')!;
        video.currentTime = video.duration - 1.5;
        return true;
      });
      await until(
        page,
        'the copy played to its end',
        () => !!document.querySelector<HTMLVideoElement>('video.player__video')?.ended,
        [],
      );
      expect(proxy.seen.length).toBe(reached);
    },
  );

  test("the adaptive site: a return is shown from the worker's copy of the page, with the server held, and plays", async () => {
    const proxy = state.proxies.adaptive;
    await login(page, proxy, E2E_PASSWORD);
    await inControl(page);
    await until(
      page,
      'the copy of the page kept',
      (base: string) =>
        caches
          .match(`${location.origin}${base}/login`, { cacheName: `pages:${base}` })
          .then((kept) => !!kept),
      [BASE],
    );
    const pageAsks = () => proxy.seen.filter((path) => PAGE_PATH.test(path)).length;
    const before = pageAsks();
    // A navigation that waited for the server would never load.
    proxy.hold(PAGE_PATH);
    await page.goto(`${proxy.origin}${BASE}/VideoPlayer`);
    await playsOnScreen(page);
    // After the first frame, the worker asks the server for the page again.
    await proxy.held();
    expect(pageAsks()).toBe(before + 1);
    proxy.release();
  });
});
