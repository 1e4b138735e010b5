/**
 * The main flows in Firefox ESR and WebKitGTK at 390×844, against the real built server (the
 * single MP4 site and the MEDIA_DIR site of e2e/global-setup.ts): the same as the Chromium
 * tests in e2e/ where the engines allow it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { EMPRESA, NOMBRES } from '../../tests/model/model';
import { BASE, E2E_PASSWORD, WRONG_PASSWORD } from '../site';
import type { BrowserPage } from './browsers';
import {
  ENGINES,
  ENTRY,
  expectPlaying,
  login,
  loginUrl,
  textOf,
  until,
  useEngine,
  videoState,
} from './visit';

const GREETING = `Hola ${NOMBRES} / ${EMPRESA}`;
/** ENGINE_SCREENSHOTS=docs/screenshots keeps a picture of each screen per engine. */
const SHOTS = process.env.ENGINE_SCREENSHOTS;

/** The message's colour is red as a person sees it: the red channel clearly dominates. */
const redText = (selector: string) => {
  const element = document.querySelector<HTMLElement>(selector);
  if (!element || element.offsetParent === null) return null;
  const [r = 0, g = 0, b = 0] = (getComputedStyle(element).color.match(/\d+(\.\d+)?/g) ?? []).map(
    Number,
  );
  return r > 120 && r > 2 * Math.max(g, b) ? (element.textContent ?? '').trim() : null;
};

/** The video screen with the greeting, at its address. */
async function expectVideoScreen(page: BrowserPage) {
  await until(
    page,
    'the greeting',
    (text: string) => document.querySelector('.session-button')?.textContent === text,
    [GREETING],
  );
  expect(await page.evaluate(() => location.pathname)).toBe(`${BASE}/VideoPlayer`);
}

describe.each(ENGINES)('%s', (name) => {
  const state = useEngine(name);
  let page: BrowserPage;
  beforeEach(async () => {
    page = await state.engine.newPage();
  });
  afterEach(async () => {
    await page?.close();
  });

  test('a wrong password shows "Cargando..." then "Error, contraseña incorrecta"; the right one opens the video with the greeting', async () => {
    const proxy = state.proxies.mp4;
    await page.goto(loginUrl(proxy));
    await until(
      page,
      'the login hydrated',
      () => !document.querySelector<HTMLButtonElement>('.login__submit')?.disabled,
      [],
    );
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot(join(SHOTS, `login-${name}.png`));
    }
    proxy.hold(/\/api\/users\/signin$/);
    await page.fill('#password', WRONG_PASSWORD);
    await page.click('.login__submit');
    await proxy.held();
    expect(await until(page, 'a red "Cargando..."', redText, ['[role="status"]'])).toBe(
      'Cargando...',
    );
    proxy.release();
    expect(await until(page, 'a red error', redText, ['[role="alert"]'])).toBe(
      'Error, contraseña incorrecta',
    );
    expect(await page.evaluate(textOf, '[role="status"]')).toBe('');

    await page.fill('#password', E2E_PASSWORD);
    await page.click('.login__submit');
    await expectVideoScreen(page);
    const stored = await page.evaluate(
      () => JSON.parse(localStorage.getItem('session') ?? 'null') as unknown,
    );
    expect(stored).toMatchObject({ loggedIn: true, nombres: NOMBRES, empresa: EMPRESA });
    if (SHOTS) {
      await until(
        page,
        "the video's first frame",
        () => (document.querySelector('video')?.readyState ?? 0) >= 2,
        [],
      );
      await page.screenshot(join(SHOTS, `video-${name}.png`));
    }
  });

  test('a press at the first paint, the app still on its way, shows "Cargando..." and the video screen at the signin\'s success; the app then stores the session', async () => {
    const proxy = state.proxies.mp4;
    const signin = /\/api\/users\/signin$/;
    // The signin's answer too, until "Cargando..." was seen: a right one replaces the login.
    proxy.hold(new RegExp(`${ENTRY.source}|${signin.source}`));
    await page.goto(loginUrl(proxy));
    await proxy.held();
    await until(
      page,
      'the login answering',
      () => !document.querySelector<HTMLButtonElement>('.login__submit')?.disabled,
      [],
    );
    await page.fill('#password', E2E_PASSWORD);
    await page.click('.login__submit');
    expect(await until(page, '"Cargando..."', textOf, ['[role="status"]'])).toBe('Cargando...');
    // "Cargando..." shows at the press; its request may reach the proxy after it.
    await proxy.held(signin);
    proxy.release(signin);
    // The signin came back without the app: the boot script shows the video screen itself.
    await expectVideoScreen(page);
    const appRan = () =>
      Object.keys(document.getElementById('root') ?? {}).some((key) => key.startsWith('__react'));
    expect(await page.evaluate(appRan)).toBe(false);
    expect(await page.evaluate(() => localStorage.getItem('session'))).toBeNull();
    proxy.release();
    // The machine takes the signin once the app is here, and stores the session.
    await until(page, 'the app', appRan, []);
    await until(page, 'the stored session', () => !!localStorage.getItem('session'), []);
    await expectVideoScreen(page);
  });

  test('the single MP4 plays from a chapter; after a reload the screen is back, and the greeting button logs out on hover then click', async () => {
    const proxy = state.proxies.mp4;
    await login(page, proxy, E2E_PASSWORD);
    await until(
      page,
      'the chapters',
      () => document.querySelectorAll('.chapters .panel__item').length === 5,
      [],
    );
    await until(
      page,
      "the video's metadata",
      () => (document.querySelector('video')?.readyState ?? 0) >= 1,
      [],
    );
    // The fourth chapter, "Cierre de la bolsa", starts at 47 s.
    await page.evaluate(() => {
      const video = document.querySelector('video')!;
      video.muted = true;
    });
    await page.click('.chapters li:nth-child(4) .panel__item');
    const playing = await expectPlaying(page);
    expect(playing.currentTime).toBeGreaterThanOrEqual(47);
    expect(playing.currentTime).toBeLessThan(60);
    expect(playing.currentSrc).toMatch(/\/api\/video\/?/);
    await until(
      page,
      'the chapter marked',
      () =>
        document
          .querySelector('.chapters li:nth-child(4) .panel__item')
          ?.getAttribute('aria-current') === 'true',
      [],
    );

    // The captions, on by default: the transcript's file handed to the track as a blob URL.
    await until(
      page,
      'the captions showing, with their cues',
      () => {
        const track = document.querySelector('video')?.textTracks[0];
        return track?.mode === 'showing' && (track.cues?.length ?? 0) === 11;
      },
      [],
    );

    // Rehydration: the stored session brings the video screen back, greeting and all.
    await page.reload();
    await until(
      page,
      'the greeting after a reload',
      (text: string) => {
        const button = document.querySelector<HTMLButtonElement>('.session-button');
        return (
          button?.textContent === text &&
          !button.disabled &&
          !!document.querySelector('.session-button--sized')
        );
      },
      [GREETING],
    );
    expect(await page.evaluate(() => location.pathname)).toBe(`${BASE}/VideoPlayer`);

    // A mouse: hover reads "Cerrar sesion" at the same width, a click then logs out.
    const width = await page.evaluate(
      () => document.querySelector('.session-button')!.getBoundingClientRect().width,
    );
    await page.hover('.session-button');
    await until(
      page,
      '"Cerrar sesion" on hover',
      () => document.querySelector('.session-button')?.textContent === 'Cerrar sesion',
      [],
    );
    expect(
      await page.evaluate(
        () => document.querySelector('.session-button')!.getBoundingClientRect().width,
      ),
    ).toBeCloseTo(width, 1);
    await page.click('.session-button');
    await until(page, 'the login after logout', () => !!document.querySelector('#password'), []);
    expect(await page.evaluate(() => location.pathname)).toBe(`${BASE}/login`);
    expect(await page.evaluate(() => localStorage.getItem('session'))).toBeNull();
  });

  test('on a MEDIA_DIR site hls.js plays through Media Source and the quality menu switches to 144p', async () => {
    const proxy = state.proxies.adaptive;
    await login(page, proxy, E2E_PASSWORD);
    await until(
      page,
      'the quality menu',
      () => !document.querySelector<HTMLSelectElement>('.quality select')?.disabled,
      [],
    );
    await page.evaluate(() => {
      const video = document.querySelector('video')!;
      video.muted = true;
      return video.play();
    });
    const playing = await expectPlaying(page);
    expect(playing.currentSrc).toMatch(/^blob:/);
    expect(await until(page, 'the rendition playing', textOf, ['.quality__playing'])).toMatch(
      /^Reproduciendo en (360|240|144)p$/,
    );

    await page.select('.quality select', '144');
    expect(
      await until(
        page,
        '144p playing',
        (text: string) => document.querySelector('.quality__playing')?.textContent === text,
        ['Reproduciendo en 144p'],
        20_000,
      ),
    ).toBe(true);
    expect(
      await page.evaluate(
        () => document.querySelector<HTMLSelectElement>('.quality select')!.value,
      ),
    ).toBe('144');
    await expectPlaying(page);
    expect(await page.evaluate(videoState)).toMatchObject({ paused: false });
  });

  test('on a MEDIA_DIR site the first frame comes before hls.js, the start plays on without it, and hls.js then plays on in the same Media Source', async () => {
    const proxy = state.proxies.adaptive;
    await login(page, proxy, E2E_PASSWORD);
    await expectVideoScreen(page);
    // A returning visitor whose player library is slow to come: the start shows the frame itself.
    // (WebKitGTK takes the chunk from its memory cache, past the proxy: there it is not held.)
    proxy.hold(/\/assets\/adaptive-player-[\w-]+\.js$/);
    const loaded = page.goto(`${proxy.origin}${BASE}/VideoPlayer`);
    await Promise.race([proxy.held(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
    await until(
      page,
      'the first frame',
      () => (document.querySelector('video')?.readyState ?? 0) >= 2,
      [],
    );
    const shown = await page.evaluate(() => {
      const video = document.querySelector('video')!;
      video.addEventListener('emptied', () => (document.body.dataset.emptied = 'yes'));
      video.muted = true;
      return video.play().then(() => video.currentSrc);
    });
    expect(shown).toMatch(/^blob:/);
    // Past the first two segments (2 s and 6 s): the start asks for and appends the next ones
    // itself while hls.js is still held.
    await until(
      page,
      'playback past the second segment',
      () => (document.querySelector('video')?.currentTime ?? 0) > 9,
      [],
      30_000,
    );
    proxy.release();
    await loaded;
    await until(page, 'the quality menu', textOf, ['.quality__playing']);
    // Past the segments the start asks for (the first four, to 20 s): the last came through
    // hls.js, into the same Media Source.
    await until(
      page,
      'playback past the start’s segments',
      () => (document.querySelector('video')?.currentTime ?? 0) > 21,
      [],
      30_000,
    );
    expect(await page.evaluate(videoState)).toMatchObject({ currentSrc: shown, paused: false });
    expect(await page.evaluate(() => document.body.dataset.emptied ?? null)).toBeNull();
  });
});
