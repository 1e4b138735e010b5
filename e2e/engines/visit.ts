/**
 * What the engine tests share: the two sites (single MP4, MEDIA_DIR) behind a hold proxy, which
 * engines run, waiting on the page by polling (our CSP has no 'unsafe-eval', which puppeteer's
 * waitForFunction needs), and the video's state as the tests read it.
 */
import { afterAll, beforeAll } from 'vitest';
import { BASE } from '../site';
import {
  ENGINE_NAMES,
  launch,
  type BrowserPage,
  type Engine,
  type EngineName,
  type LaunchOptions,
} from './browsers';
import { startHoldProxy, type HoldProxy } from './hold-proxy';

/** ENGINES=webkit (or any of ENGINE_NAMES, comma-separated) narrows a run. */
export const ENGINES = (process.env.ENGINES ?? ENGINE_NAMES.join(','))
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is EngineName => ENGINE_NAMES.includes(name as EngineName));

export type SiteKind = 'mp4' | 'adaptive';

function originOf(kind: SiteKind): string {
  const value = process.env[kind === 'mp4' ? 'E2E_ORIGIN' : 'E2E_ADAPTIVE_ORIGIN'];
  if (!value) throw new Error('the global set-up did not run (e2e/global-setup.ts)');
  return value;
}

/** One engine and a proxy in front of each site, for a describe block. */
export function useEngine(name: EngineName, options: LaunchOptions = {}) {
  const state = {} as { engine: Engine; proxies: Record<SiteKind, HoldProxy> };
  beforeAll(async () => {
    state.engine = await launch(name, options);
    state.proxies = {
      mp4: await startHoldProxy(originOf('mp4')),
      adaptive: await startHoldProxy(originOf('adaptive')),
    };
  }, 60_000);
  afterAll(async () => {
    await Promise.all(Object.values(state.proxies ?? {}).map((proxy) => proxy.close()));
    await state.engine?.close();
  });
  return state;
}

export const loginUrl = (proxy: HoldProxy) => `${proxy.origin}${BASE}/login`;

/** The app's entry bundle, as the hold proxy matches it. */
export const ENTRY = /\/assets\/index-[\w-]+\.js$/;

/** Polls `fn` in the page until it returns something truthy; fails with `what` after `ms`. */
export async function until<A extends unknown[], T>(
  page: BrowserPage,
  what: string,
  fn: (...args: A) => T,
  args: A,
  ms = 15_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    last = await page.evaluate(fn, ...args);
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(
        `${page.engine}: waited ${ms} ms for ${what} (last: ${JSON.stringify(last)})`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The text of the first element matching `selector`, when it is shown (else null). */
export const textOf = (selector: string) => {
  const element = document.querySelector<HTMLElement>(selector);
  return element && element.offsetParent !== null ? (element.textContent ?? '').trim() : null;
};

export interface VideoState {
  paused: boolean;
  currentTime: number;
  readyState: number;
  currentSrc: string;
}

export const videoState = (): VideoState | null => {
  const video = document.querySelector<HTMLVideoElement>('video.player__video');
  if (!video) return null;
  const { paused, currentTime, readyState, currentSrc } = video;
  return { paused, currentTime, readyState, currentSrc };
};

/** The video plays on its own: not paused, and its time moves by half a second. */
export async function expectPlaying(page: BrowserPage, ms = 15_000): Promise<VideoState> {
  const start = await until(page, 'the video playing', videoState, [], ms);
  const from = start.currentTime;
  return until(
    page,
    `the video playing on from ${from.toFixed(2)} s`,
    (since: number) => {
      const video = document.querySelector<HTMLVideoElement>('video.player__video');
      if (!video || video.paused || video.currentTime < since + 0.5) return null;
      const { paused, currentTime, readyState, currentSrc } = video;
      return { paused, currentTime, readyState, currentSrc };
    },
    [from],
    ms,
  );
}

/** Logs in through the form, and waits for the video screen. */
export async function login(page: BrowserPage, proxy: HoldProxy, password: string) {
  await page.goto(loginUrl(proxy));
  await until(
    page,
    'the login hydrated',
    () => {
      const button = document.querySelector<HTMLButtonElement>('.login__submit');
      return !!button && !button.disabled;
    },
    [],
  );
  await page.fill('#password', password);
  await page.click('.login__submit');
  await until(page, 'the video screen', () => !!document.querySelector('video.player__video'), []);
}
