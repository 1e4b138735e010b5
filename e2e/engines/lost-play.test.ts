/**
 * A play pressed at any moment of the start is never undone: pressed as soon as the video is on
 * the screen (a first visit, right after the login), and for a returning visitor before the
 * app's bundle arrives, while React hydrates (the video screen's chunk held back), the moment
 * the Player adopts the boot's video, and while the remembered position is applied. On the
 * single MP4 site and on the MEDIA_DIR site, in each engine. The hold proxy and in-page
 * watchers make each moment exact rather than a race with the clock.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { clientConfig } from '../../config/settings';
import { E2E_PASSWORD } from '../site';
import type { BrowserPage } from './browsers';
import type { HoldProxy } from './hold-proxy';
import {
  ENGINES,
  ENTRY,
  expectPlaying,
  login,
  loginUrl,
  until,
  useEngine,
  type SiteKind,
  type VideoState,
} from './visit';

type Moment = 'inserted' | 'painted' | 'hydrating' | 'adopted' | 'seeking';

const MOMENTS: Record<Moment, string> = {
  inserted: 'as soon as the video is on the screen after the login',
  painted: 'on the returning screen, before the bundle arrives',
  hydrating: 'while React hydrates, the video screen chunk still on its way',
  adopted: 'the moment the Player adopts the video',
  seeking: 'while the remembered position is applied',
};

const SCREEN_CHUNK = /\/assets\/video-player-screen-[\w-]+\.js$/;
const ENTRY_AND_MEDIA = new RegExp(`${ENTRY.source}|/api/video`);
const RESUME_AT_S = 12;
const POSITION_KEY = `videoPosition:${clientConfig(process.env).videoUrl}`;

interface Pressed {
  moment: Moment;
  /** 'played', or how play() was refused ("AbortError: …"). */
  outcome: string;
  /**
   * The video had its source when pressed. Without one (a first visit on the adaptive site,
   * before hls.js's chunk), the source that comes next rejects that play() by the standard, and
   * the app presses play again: the video must play on all the same.
   */
  sourced: boolean;
}

/**
 * In the page: presses play (muted, so no autoplay rule refuses it) at `moment`, once, and keeps
 * what play() answered in window.pressed. Self-contained: it runs in the page.
 */
const arm = (moment: Moment) => {
  const page = window as unknown as { pressed?: Pressed };
  const find = () => document.querySelector<HTMLVideoElement>('video.player__video');
  const press = (video: HTMLVideoElement) => {
    if (page.pressed) return;
    const sourced = video.hasAttribute('src') || !!video.querySelector('source');
    const pressed: Pressed = { moment, outcome: 'pending', sourced };
    page.pressed = pressed;
    video.muted = true;
    video.play().then(
      () => (pressed.outcome = 'played'),
      (error: Error) => (pressed.outcome = `${error.name}: ${error.message}`),
    );
  };
  const pressWhen = (ready: () => HTMLVideoElement | null | undefined) => {
    const timer = setInterval(() => {
      const video = ready();
      if (video) {
        clearInterval(timer);
        press(video);
      }
    }, 1);
  };
  const hasKey = (object: object, prefix: string) =>
    Object.keys(object).some((key) => key.startsWith(prefix));
  if (moment === 'inserted')
    new MutationObserver((_, observer) => {
      const video = find();
      if (!video) return;
      observer.disconnect();
      press(video);
    }).observe(document, { childList: true, subtree: true });
  else if (moment === 'painted') press(find()!);
  // hydrateRoot marks its container at once; the video is adopted only with the chunk.
  else if (moment === 'hydrating')
    pressWhen(() =>
      hasKey(document.getElementById('root')!, '__reactContainer$') ? find() : null,
    );
  else if (moment === 'adopted')
    pressWhen(() => {
      const video = find();
      return video && hasKey(video, '__reactFiber$') ? video : null;
    });
  // On the document, as it may be armed before the page has a video (beforeScripts).
  else
    document.addEventListener(
      'seeking',
      (event) => {
        if (event.target instanceof HTMLVideoElement) press(event.target);
      },
      true,
    );
};

async function pressAt(page: BrowserPage, proxy: HoldProxy, moment: Moment): Promise<Pressed> {
  if (moment === 'inserted') {
    await page.goto(loginUrl(proxy));
    await until(
      page,
      'the login hydrated',
      () => !document.querySelector<HTMLButtonElement>('.login__submit')?.disabled,
      [],
    );
    await page.fill('#password', E2E_PASSWORD);
    await page.evaluate(arm, moment);
    await page.click('.login__submit');
  } else {
    await login(page, proxy, E2E_PASSWORD);
    await withoutServiceWorker(page);
    const videoScreen = await page.evaluate(() => location.href);
    if (moment === 'seeking') {
      // Stopped at RESUME_AT_S last time. Written from a page of the site without the app:
      // the video screen saves its own position as it is left (hls.js's start may have put
      // the video back at 0 by then, which forgets the position).
      await page.goto(`${proxy.origin}/api/no-app-here`);
      await page.evaluate(
        (key: string, s: number) => localStorage.setItem(key, String(s)),
        POSITION_KEY,
        RESUME_AT_S,
      );
    }
    // At the resume seek, the video's own bytes wait too: its metadata would otherwise bring
    // the seek before the watcher is in the page.
    proxy.hold(
      moment === 'hydrating' ? SCREEN_CHUNK : moment === 'seeking' ? ENTRY_AND_MEDIA : ENTRY,
    );
    // Firefox has the video in its media cache by now, and seeks before the page has loaded:
    // there, the watcher goes in before the page's scripts.
    const armedEarly = moment === 'seeking' && !!page.beforeScripts;
    if (armedEarly) await page.beforeScripts!(arm, moment);
    // Back to the video screen: a reload, or from the page without the app.
    await (moment === 'seeking' ? page.goto(videoScreen) : page.reload());
    await until(
      page,
      'the video screen before the app',
      () => !!document.querySelector('video.player__video'),
      [],
    );
    if (moment === 'seeking')
      expect(
        Number(await page.evaluate((key: string) => localStorage.getItem(key), POSITION_KEY)),
      ).toBe(RESUME_AT_S);
    if (moment === 'painted' || moment === 'hydrating') await proxy.held();
    if (!armedEarly) await page.evaluate(arm, moment);
    if (moment === 'hydrating')
      await until(
        page,
        'the press during hydration',
        () => !!(window as { pressed?: unknown }).pressed,
        [],
      );
    proxy.release();
  }
  await until(page, 'the press', () => !!(window as { pressed?: unknown }).pressed, []);
  return page.evaluate(() => (window as unknown as { pressed: Pressed }).pressed);
}

/**
 * The returning visit must ask the network for its files, where the proxy holds them: the
 * service worker that the first visit registered (after the first frame) would answer them from
 * its precache. Once it controls the page it is unregistered; the reload then goes without it.
 * Chromium and Firefox run without workers already (browsers.ts); this is for WebKit.
 */
async function withoutServiceWorker(page: BrowserPage) {
  const hasWorkers = await page.evaluate(
    () => 'serviceWorker' in navigator && typeof navigator.serviceWorker.register === 'function',
  );
  if (!hasWorkers || page.engine !== 'webkit') return;
  await until(
    page,
    'the service worker in control',
    () => !!navigator.serviceWorker.controller,
    [],
  );
  await page.evaluate(() =>
    navigator.serviceWorker
      .getRegistrations()
      .then((all) => Promise.all(all.map((registration) => registration.unregister())))
      .then(() => true),
  );
}

/** The video is not paused, a second after the press, and has its first frame. */
async function playKept(page: BrowserPage): Promise<VideoState> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return until(
    page,
    'the play kept',
    () => {
      const video = document.querySelector<HTMLVideoElement>('video.player__video');
      if (!video || video.paused || video.readyState < 2) return null;
      const { paused, currentTime, readyState, currentSrc } = video;
      return { paused, currentTime, readyState, currentSrc };
    },
    [],
  );
}

describe.each(ENGINES)('%s', (name) => {
  const state = useEngine(name);
  let page: BrowserPage;
  beforeEach(async () => {
    page = await state.engine.newPage();
  });
  afterEach(async () => {
    state.proxies?.mp4.release();
    state.proxies?.adaptive.release();
    await page?.close();
  });

  const cases = (['mp4', 'adaptive'] as SiteKind[]).flatMap((site) =>
    (Object.keys(MOMENTS) as Moment[]).map((moment) => ({ site, moment })),
  );
  test.each(cases)('$site: a play pressed $moment is never undone', async ({ site, moment }) => {
    const pressed = await pressAt(page, state.proxies[site], moment);
    // WebKitGTK's GStreamer pipeline here stalls at times after a seek early in the load (in
    // about 1 run of 3, with the video not paused and its bytes all there; a seek once loaded
    // plays on): there, the play is checked kept rather than moving. docs/browsers.md.
    const pipelineStalls = name === 'webkit' && site === 'mp4' && moment === 'seeking';
    const playing = await (pipelineStalls ? playKept(page) : expectPlaying(page, 20_000)).catch(
      async (error: Error) => {
        const video = await page.evaluate(() => {
          const v = document.querySelector<HTMLVideoElement>('video.player__video');
          return (
            v && {
              paused: v.paused,
              t: v.currentTime,
              readyState: v.readyState,
              networkState: v.networkState,
              src: v.currentSrc,
              buffered: v.buffered.length,
            }
          );
        });
        throw new Error(
          `${error.message}; play() answered ${pressed.outcome}; video ${JSON.stringify(video)}`,
        );
      },
    );
    // What play() answered, now that it has settled.
    const settled = await page.evaluate(() => (window as unknown as { pressed: Pressed }).pressed);
    if (settled.sourced) expect(settled.outcome, MOMENTS[moment]).toBe('played');
    if (moment === 'seeking') expect(playing.currentTime).toBeGreaterThanOrEqual(RESUME_AT_S);
  });
});
