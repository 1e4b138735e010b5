/**
 * A play pressed at any moment of a returning visitor's start is never undone (issue 21): before
 * the bundle arrives, while React hydrates, while the Player adopts the boot's video, and while
 * the resume position is applied; on the single-MP4 site and on a MEDIA_DIR site. The page counts
 * every source assignment and load() on the <video>: after the press there must be none, and the
 * element pressed must be the one that plays. Each step is reached deterministically: a held
 * request, or a hook at the moment the app does that step.
 */
import type { Page, Request, Route } from '@playwright/test';
import { clientConfig } from '../config/settings';
import { expect, test } from './fixtures';
import { BASE, E2E_PASSWORD } from './site';

type Step = 'before-bundle' | 'hydrating' | 'adopting' | 'resuming';
type Site = 'single' | 'adaptive';

/** Where the visitor stopped last time: the resume step seeks there. */
const RESUME_S = 12;

interface Call {
  what: string;
  afterPress: boolean;
  stack: string;
}

interface Watch {
  calls: Call[];
  pressed: boolean;
  playResult: string | null;
  pressedVideo: HTMLVideoElement | null;
}

declare global {
  interface Window {
    __watch?: Watch;
    __press?: () => void;
  }
}

/**
 * Runs in the page before any of its scripts: counts what (re)sets the video's source, and
 * presses play (muted, as autoplay rules allow without a gesture) when the step's hook fires.
 */
function instrument(step: Step) {
  const watch: Watch = { calls: [], pressed: false, playResult: null, pressedVideo: null };
  window.__watch = watch;
  const isVideo = (element: unknown): element is HTMLVideoElement =>
    element instanceof HTMLVideoElement;
  const note = (what: string, element: unknown) => {
    if (isVideo(element))
      watch.calls.push({ what, afterPress: watch.pressed, stack: new Error().stack ?? '' });
  };
  const press = () => {
    if (watch.pressed) return;
    const video = document.querySelector<HTMLVideoElement>('#root video');
    if (!video) throw new Error('no video on screen to press');
    watch.pressed = true;
    watch.pressedVideo = video;
    video.muted = true;
    video.play().then(
      () => (watch.playResult = 'played'),
      (error: Error) => (watch.playResult = error.name),
    );
  };
  window.__press = press;
  // A visitor's own click on the video's controls: the browser plays it, the page only notes it.
  window.addEventListener(
    'click',
    (event) => {
      if (!isVideo(event.target) || watch.pressed) return;
      watch.pressed = true;
      watch.pressedVideo = event.target;
      event.target.addEventListener('playing', () => (watch.playResult ??= 'played'), {
        once: true,
      });
    },
    true,
  );

  const media = HTMLMediaElement.prototype;
  const load = media.load;
  media.load = function (this: HTMLMediaElement) {
    note('load()', this);
    return load.call(this);
  };
  const src = Object.getOwnPropertyDescriptor(media, 'src')!;
  Object.defineProperty(media, 'src', {
    ...src,
    set(this: HTMLMediaElement, value: string) {
      note(`src = ${value}`, this);
      src.set!.call(this, value);
    },
  });
  const element = Element.prototype;
  const setAttribute = element.setAttribute;
  element.setAttribute = function (this: Element, name: string, value: string) {
    if (name.toLowerCase() === 'src') note(`setAttribute(src, ${value})`, this);
    return setAttribute.call(this, name, value);
  };
  const removeAttribute = element.removeAttribute;
  element.removeAttribute = function (this: Element, name: string) {
    if (name.toLowerCase() === 'src') note('removeAttribute(src)', this);
    return removeAttribute.call(this, name);
  };

  if (step === 'adopting') {
    // The Player's first effect on the boot's video (the resume position's listeners): the
    // press lands in the middle of the app taking the video over.
    const addEventListener = EventTarget.prototype.addEventListener;
    EventTarget.prototype.addEventListener = function (
      this: EventTarget,
      ...args: Parameters<EventTarget['addEventListener']>
    ) {
      const result = addEventListener.apply(this, args);
      if (args[0] === 'timeupdate' && isVideo(this) && this.isConnected) press();
      return result;
    };
  }
  if (step === 'resuming') {
    // Right after the stored position is applied (a seek to it), whoever applies it.
    document.addEventListener(
      'seeking',
      (event) => {
        if (isVideo(event.target) && event.target.currentTime >= 5) press();
      },
      true,
    );
  }
}

const origin = (site: Site) => {
  const value = site === 'single' ? process.env.E2E_ORIGIN : process.env.E2E_ADAPTIVE_ORIGIN;
  if (!value) throw new Error('the global set-up did not run');
  return value;
};

/** Logs in once (the session a returning visitor has), with a resume position when asked. */
async function returningVisitor(page: Page, site: Site, step: Step) {
  await page.goto(`${origin(site)}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(E2E_PASSWORD);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page.getByRole('button', { name: /^Hola / })).toBeVisible({ timeout: 20_000 });
  // Before the page's scripts: the page being left would otherwise save its own 0 over it.
  if (step === 'resuming')
    await page.addInitScript(([key, seconds]) => localStorage.setItem(key, seconds), [
      `videoPosition:${clientConfig(process.env).videoUrl}`,
      String(RESUME_S),
    ] as const);
}

/** Holds the first request matching `pattern` until `release` is called. */
async function hold(page: Page, pattern: RegExp) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let held: Request | null = null;
  await page.route(pattern, async (route: Route) => {
    held ??= route.request();
    await released;
    await route.continue();
  });
  return { release, wasHeld: () => held !== null };
}

/** The app's entry (the boot's `boot.entry`) and the video screen's chunk, as the build names them. */
const ENTRY = /\/assets\/index-[\w-]+\.js$/;
const SCREEN_CHUNK = /\/assets\/video-player-screen-[\w-]+\.js$/;

/** The visitor presses the video's play control (the middle of a paused video, in Chromium). */
async function clickPlay(page: Page) {
  await page.locator('#root video').click();
  await expect.poll(() => page.evaluate(() => window.__watch!.pressed)).toBe(true);
}

const STEPS: Step[] = ['before-bundle', 'hydrating', 'adopting', 'resuming'];

for (const site of ['single', 'adaptive'] as const) {
  for (const step of STEPS) {
    test(`${site} site: a play pressed ${step} plays on`, async ({ page }) => {
      test.setTimeout(90_000);
      await returningVisitor(page, site, step);
      await page.addInitScript(instrument, step);
      const entry = step === 'before-bundle' ? await hold(page, ENTRY) : null;
      const screen = step === 'hydrating' ? await hold(page, SCREEN_CHUNK) : null;
      await page.reload({ waitUntil: 'commit' });

      if (entry) {
        // The boot's video is on the screen, the bundle is not here yet.
        await expect(page.locator('#root video')).toBeVisible();
        await expect.poll(entry.wasHeld, { timeout: 20_000 }).toBe(true);
        await clickPlay(page);
        entry.release();
      }
      if (screen) {
        // React has the root and waits for the video screen's chunk to hydrate it.
        await expect.poll(screen.wasHeld, { timeout: 20_000 }).toBe(true);
        await expect
          .poll(() =>
            page.evaluate(() =>
              Object.keys(document.getElementById('root')!).some((key) =>
                key.startsWith('__reactContainer'),
              ),
            ),
          )
          .toBe(true);
        await clickPlay(page);
        screen.release();
      }

      // The app is live (the greeting's button is hydrated) and the press happened.
      await expect(page.getByRole('button', { name: /^Hola / })).toBeEnabled({ timeout: 30_000 });
      await expect
        .poll(() => page.evaluate(() => window.__watch!.pressed), { timeout: 30_000 })
        .toBe(true);
      const startedAt = await page.evaluate(() => window.__watch!.pressedVideo!.currentTime);
      // Given time to play a second and more; what happened is asserted below, all at once.
      await expect
        .poll(() => page.evaluate(() => window.__watch!.pressedVideo!.currentTime), {
          timeout: 20_000,
        })
        .toBeGreaterThan(startedAt + 1)
        .catch(() => undefined);
      const result = await page.evaluate(() => {
        const watch = window.__watch!;
        const video = watch.pressedVideo!;
        return {
          playResult: watch.playResult,
          paused: video.paused,
          sameElement: document.querySelector('#root video') === video,
          currentTime: video.currentTime,
          afterPress: watch.calls
            .filter((call) => call.afterPress)
            .map((call) => `${call.what}\n${call.stack}`),
          sources: watch.calls.filter((call) => call.what.startsWith('src')).map((c) => c.what),
        };
      });
      expect(result.afterPress, 'source set or load() after the press').toEqual([]);
      expect(result.sources, 'the source is assigned once').toHaveLength(1);
      expect(result).toMatchObject({ playResult: 'played', paused: false, sameElement: true });
      expect(result.currentTime).toBeGreaterThan(startedAt + 1);
      if (step === 'resuming') expect(result.currentTime).toBeGreaterThan(RESUME_S);
    });
  }
}
