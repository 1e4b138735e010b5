/**
 * index.html's video shell (src/boot/videoShell.ts): what a returning visitor sees before the
 * bundle runs, and how React takes it over. The script runs as the build writes it.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import { APP_WAIT_MS } from '../../scripts/video-shell';
import { SCREEN_MODULE, appEntryScripts, loadIndexHtmlBody } from './indexHtml';
import { server } from './msw';
import { renderApp } from './renderApp';
import { EMPRESA, NOMBRES, freshSession, storedSession } from './sessions';

const LABEL = `Hola ${NOMBRES} / ${EMPRESA}`;
const shell = () => document.getElementById('video-shell');

/** A returning visitor opens `route`: index.html first, then React in its #root. */
async function openWithShell(seed: string | null, route: string = PATHS.video) {
  window.history.replaceState(null, '', route);
  if (seed !== null) localStorage.setItem('session', seed);
  const root = await loadIndexHtmlBody();
  const before = shell()?.cloneNode(true) as HTMLElement | undefined;
  return { root, before, start: () => renderApp({ route, container: root }) };
}

/** What may differ once React runs: the button's measured width, and its pre-React disabling. */
function withoutLiveState(screenElement: Element): Element {
  const copy = screenElement.cloneNode(true) as Element;
  const button = copy.querySelector('.session-button')!;
  button.removeAttribute('style');
  button.removeAttribute('disabled');
  return copy;
}

describe('with a live stored session, before the bundle', () => {
  it('shows the video screen in place of the login, with the video loading and the chunk preloaded', async () => {
    const { root } = await openWithShell(freshSession());
    // Before #root, its sibling: styles.css hides #root then (checked in Chromium, e2e).
    expect(shell()!.parentElement).toBe(root.parentElement);
    expect(shell()!.compareDocumentPosition(root)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
    const video = shell()!.querySelector('video')!;
    expect(video).toBeVisible();
    expect(video.querySelector('source')).toHaveAttribute('src', config.videoUrl);
    expect(video).toHaveAttribute('poster', config.posterUrl);
    expect(screen.getByRole('button', { name: LABEL })).toBeDisabled();
    expect(document.title).toBe('Video — Capacitación silo bolsa');
    const preload = document.head.querySelector(
      `link[rel="modulepreload"][href="${SCREEN_MODULE}"]`,
    );
    expect(preload).not.toBeNull();
  });

  it('is the first render of the video screen, node for node, which React then takes over', async () => {
    const { before, start } = await openWithShell(freshSession());
    const shellVideo = before!.querySelector('video')!;
    const original = shell()!.querySelector('video');
    start();
    // The shell stays on screen until the Player takes its video (the chunk loads meanwhile).
    await waitFor(() => expect(shell()).toBeNull());
    expect(screen.getByRole('button', { name: LABEL })).toBeEnabled();
    const fromReact = document.querySelector('#root > .video-screen')!;
    const fromShell = before!.querySelector('.video-screen')!;
    if (!withoutLiveState(fromReact).isEqualNode(withoutLiveState(fromShell)))
      expect(withoutLiveState(fromShell).outerHTML).toBe(withoutLiveState(fromReact).outerHTML);
    expect(withoutLiveState(fromReact).isEqualNode(withoutLiveState(fromShell))).toBe(true);
    // The very element the shell started, already loading: a second one would ask again.
    expect(document.querySelectorAll('video')).toHaveLength(1);
    expect(document.querySelector('video')).toBe(original);
    expect(shellVideo.isEqualNode(original)).toBe(true);
  });

  it('keeps the focus on the video, and where the visitor started watching', async () => {
    localStorage.setItem('videoPosition:' + config.videoUrl, '30');
    const { start } = await openWithShell(freshSession());
    const video = shell()!.querySelector('video')!;
    // Chromium focuses a video with controls; jsdom only what has a tabindex.
    video.tabIndex = 0;
    video.focus();
    expect(document.activeElement).toBe(video);
    await video.play();
    start();
    await waitFor(() => expect(shell()).toBeNull());
    expect(document.activeElement).toBe(video);
    fireEvent.loadedMetadata(video);
    expect(video.currentTime).toBe(0);
  });

  it('reports a video load that failed before React arrived', async () => {
    server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 401 })));
    const { start } = await openWithShell(freshSession());
    fireEvent.error(shell()!.querySelector('source')!);
    start();
    // The Player checks the session on a failure; the server refused it: expired.
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Su sesión expiró. Ingrese nuevamente.',
    );
    expect(shell()).toBeNull();
  });

  it('puts the stored names in as text, never as markup', async () => {
    const nombres = '<img src=x onerror="window.hacked=1">';
    await openWithShell(storedSession({ nombres }));
    const button = shell()!.querySelector('.session-button')!;
    expect(button.textContent).toBe(`Hola ${nombres} / ${EMPRESA}`);
    expect(button.children).toHaveLength(0);
  });
});

describe('the app bundle, which the boot starts', () => {
  it('starts at once without a live session', async () => {
    await openWithShell(null, PATHS.login);
    expect(appEntryScripts()).toHaveLength(1);
    expect(appEntryScripts()[0]).toHaveAttribute('crossorigin', '');
  });

  it.each([
    ['the video knows its metadata', (video: HTMLVideoElement) => fireEvent.loadedMetadata(video)],
    [
      'the video failed',
      (video: HTMLVideoElement) => fireEvent.error(video.querySelector('source')!),
    ],
  ])(
    'waits, with the video screen shown, until %s: the bundle would share the slow link with it',
    async (_, settle) => {
      await openWithShell(freshSession());
      expect(appEntryScripts()).toHaveLength(0);
      settle(shell()!.querySelector('video')!);
      expect(appEntryScripts()).toHaveLength(1);
      fireEvent.loadedMetadata(shell()!.querySelector('video')!);
      expect(appEntryScripts()).toHaveLength(1);
    },
  );

  it(`starts after ${APP_WAIT_MS / 1000} s when the video has neither metadata nor failed`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    await openWithShell(freshSession());
    vi.advanceTimersByTime(APP_WAIT_MS - 1);
    expect(appEntryScripts()).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(appEntryScripts()).toHaveLength(1);
  });
});

describe('without a live stored session', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ['none', null],
    ['broken JSON', '{"loggedIn":tru'],
    ['not logged in', storedSession({ loggedIn: false })],
    ['two hours old', storedSession({ timestamp: now() - 7200 })],
    ['from the future', storedSession({ timestamp: now() + 60 })],
    ['no timestamp', storedSession({ timestamp: 'ayer' })],
  ])('leaves the login markup alone (%s)', async (_, seed) => {
    const { root } = await openWithShell(seed);
    expect(shell()).toBeNull();
    expect(root.querySelector('#password')).not.toBeNull();
    expect(document.querySelector('video')).toBeNull();
    expect(document.head.querySelector('link[rel="modulepreload"]')).toBeNull();
  });
});

describe('a stored session the shell believed but the machine does not', () => {
  it('ends at the login, with the shell gone and its video stopped', async () => {
    // Names longer than any typed one: the machine refuses them (machines/session.ts).
    const { start } = await openWithShell(storedSession({ nombres: 'x'.repeat(500) }));
    const video = shell()!.querySelector('video')!;
    start();
    expect(await screen.findByLabelText('Contraseña')).toBeVisible();
    expect(shell()).toBeNull();
    expect(video.querySelector('source')).toBeNull();
    expect(window.location.pathname).toBe(PATHS.login);
  });
});
