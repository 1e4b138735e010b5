import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import { SIGNOUT_URL, countRequests, server } from './msw';
import { renderApp, showFirstFrame, type RenderAppOptions } from './render-app';
import { EMPRESA, NOMBRES, freshSession } from './sessions';

const LABEL = `Hola ${NOMBRES} / ${EMPRESA}`;
const POSITION_KEY = `videoPosition:${config.videoUrl}`;

async function openVideoScreen(options: RenderAppOptions = {}) {
  const app = renderApp({ route: PATHS.video, seed: freshSession(), ...options });
  const button = await screen.findByRole('button', { name: LABEL });
  // The label only changes once the width is fixed (after document.fonts.ready).
  await waitFor(() => expect(button.style.width).not.toBe(''));
  const video = document.querySelector('video')!;
  return { ...app, button, video };
}

const expectLoggedOutWithoutNotice = async () => {
  await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
  expect(await screen.findByLabelText('Contraseña')).toBeInTheDocument();
  expect(screen.getByRole('status')).toHaveTextContent(/^$/);
  expect(localStorage.getItem('session')).toBeNull();
  await waitFor(() => expect(countRequests('POST', SIGNOUT_URL)).toBe(1));
};

describe('the top bar button', () => {
  it('reads "Hola {nombres} / {empresa}", and the screen is titled "Video — Capacitación silo bolsa"', async () => {
    const { button } = await openVideoScreen();
    expect(button).toHaveTextContent(LABEL);
    expect(document.title).toBe('Video — Capacitación silo bolsa');
  });

  it('is as wide as its first label plus 10 px, and keeps that width while it says "Cerrar sesion"', async () => {
    const measuredLabels: string[] = [];
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (
      this: HTMLElement,
    ) {
      if (this.localName !== 'button') return new DOMRect(0, 0, 0, 0);
      measuredLabels.push(this.textContent ?? '');
      return new DOMRect(0, 0, this.textContent === LABEL ? 183.5 : 120, 44);
    });
    const { button, user } = await openVideoScreen();
    expect(button.style.width).toBe('193.5px');
    expect(measuredLabels).toEqual([LABEL]);

    await user.hover(button);
    expect(button).toHaveTextContent('Cerrar sesion');
    expect(button.style.width).toBe('193.5px');
    await user.unhover(button);
    expect(button).toHaveTextContent(LABEL);
    expect(button.style.width).toBe('193.5px');
  });

  it('is measured with its first label after the fonts load, even when hovered before that', async () => {
    let fontsLoaded = () => {};
    const ready = new Promise<void>((resolve) => (fontsLoaded = resolve));
    Object.defineProperty(document, 'fonts', { configurable: true, value: { ready } });
    const measured: string[] = [];
    vi.spyOn(HTMLElement.prototype, 'getBoundingClientRect').mockImplementation(function (
      this: HTMLElement,
    ) {
      measured.push(this.textContent ?? '');
      return new DOMRect(0, 0, 150, 44);
    });
    try {
      const { user } = renderApp({ route: PATHS.video, seed: freshSession() });
      const button = await screen.findByRole('button', { name: LABEL });
      await user.hover(button);
      expect(button).toHaveTextContent(LABEL);
      expect(button.style.width).toBe('');
      await act(async () => fontsLoaded());
      expect(measured).toEqual([LABEL]);
      expect(button.style.width).toBe('160px');
      // Still hovered: now that the width is fixed, the label may change.
      expect(button).toHaveTextContent('Cerrar sesion');
    } finally {
      Reflect.deleteProperty(document, 'fonts');
    }
  });

  it('logs out when clicked while hovered: the session ends here and on the server', async () => {
    const { button, user } = await openVideoScreen();
    await user.hover(button);
    await user.click(button);
    await expectLoggedOutWithoutNotice();
  });

  it('behaves as hovered while it has the keyboard focus, and Enter logs out', async () => {
    const { button, user } = await openVideoScreen();
    await user.tab();
    expect(button).toHaveFocus();
    expect(button).toHaveTextContent('Cerrar sesion');
    await user.keyboard('{Enter}');
    await expectLoggedOutWithoutNotice();
  });

  it('logs out with Space while focused too', async () => {
    const { button, user } = await openVideoScreen();
    button.focus();
    await user.keyboard(' ');
    await expectLoggedOutWithoutNotice();
  });

  it('on a touch screen shows "Cerrar sesion" at the first tap and logs out at the second', async () => {
    const { button, user } = await openVideoScreen();
    await user.pointer({ keys: '[TouchA]', target: button });
    expect(button).toHaveTextContent('Cerrar sesion');
    expect(localStorage.getItem('session')).not.toBeNull();
    await user.pointer({ keys: '[TouchA]', target: button });
    await expectLoggedOutWithoutNotice();
  });
});

describe('the video', () => {
  it('plays inline, with controls, a poster, metadata-only preload and Spanish captions on by default', async () => {
    const { video } = await openVideoScreen();
    expect(video).toHaveAttribute('controls');
    expect(video).toHaveAttribute('playsinline');
    expect(video).toHaveAttribute('preload', 'metadata');
    expect(video).toHaveAttribute('poster', config.posterUrl);
    expect(config.posterUrl).toBe(`${config.apiUrl}/api/video/poster.jpg`);
    // The single MP4 here: the page says nothing of a published ladder (media-info).
    await waitFor(() => expect(video).toHaveAttribute('src', config.videoUrl));
    const track = video.querySelector('track')!;
    expect(track).toHaveAttribute('kind', 'captions');
    expect(track).toHaveAttribute('srclang', 'es');
    expect(track).toHaveAttribute('label', 'Español');
    expect(track).toHaveAttribute('default');
    // Its cues are the transcript's, fetched once after the first frame: the track has no src.
    expect(track).not.toHaveAttribute('src');
    expect(countRequests('GET', config.captionsUrl)).toBe(0);
    showFirstFrame(video);
    await waitFor(() => expect(countRequests('GET', config.captionsUrl)).toBe(1));
    expect(video.querySelector('track')).toBe(track);
  });

  it('comes after a banner image, under the top bar', async () => {
    const { video } = await openVideoScreen();
    const banner = screen.getByRole('img', { name: /silo bolsa/ });
    expect(banner.compareDocumentPosition(video) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(screen.getByRole('banner')).toContainElement(
      screen.getByRole('button', { name: LABEL }),
    );
  });

  it('ends the session with the expired notice when the server refuses it (401)', async () => {
    server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 401 })));
    const { video } = await openVideoScreen();
    fireEvent.error(video);
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Su sesión expiró. Ingrese nuevamente.',
    );
    expect(localStorage.getItem('session')).toBeNull();
  });

  it('asks the server when a buffered video starts playing, and ends a refused session', async () => {
    server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 401 })));
    const { video } = await openVideoScreen();
    // Before the first frame a play asks nothing: the link is the first frame's.
    fireEvent.play(video);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(countRequests('HEAD', config.videoUrl)).toBe(0);
    expect(window.location.pathname).toBe(PATHS.video);
    Object.defineProperty(video, 'readyState', { configurable: true, value: 4 });
    fireEvent.play(video);
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(countRequests('HEAD', config.videoUrl)).toBe(1);
  });

  it('keeps the visitor in and asks for the video again by itself when the server is temporarily unavailable (503)', async () => {
    let status = 503;
    server.use(
      http.head(
        config.videoUrl,
        () => new HttpResponse(null, { status, headers: { 'retry-after': '1' } }),
      ),
    );
    const { video } = await openVideoScreen();
    const load = vi.spyOn(video, 'load');
    fireEvent.error(video);
    expect(
      await screen.findByText('El video no está disponible en este momento. Reintentando…'),
    ).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    // Still unavailable at the first retry: it waits and asks again, never logging out.
    await waitFor(() => expect(load).toHaveBeenCalledTimes(1), { timeout: 3000 });
    fireEvent.error(video);
    await screen.findByText('El video no está disponible en este momento. Reintentando…');
    status = 206;
    await waitFor(() => expect(load).toHaveBeenCalledTimes(2), { timeout: 3000 });
    expect(screen.queryByText(/no está disponible/)).toBeNull();
    expect(window.location.pathname).toBe(PATHS.video);
    expect(localStorage.getItem('session')).not.toBeNull();
    expect(countRequests('POST', SIGNOUT_URL)).toBe(0);
  });

  it.each([
    ['the server has it (200)', () => new HttpResponse(null, { status: 200 })],
    ['the server fails (500)', () => new HttpResponse(null, { status: 500 })],
    ['the network is down', () => HttpResponse.error()],
  ])('shows a message and a retry when the video fails but %s', async (_, answer) => {
    server.use(http.head(config.videoUrl, answer));
    const { video, user } = await openVideoScreen();
    const load = vi.spyOn(video, 'load');
    fireEvent.error(video);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('No se pudo cargar el video. Revise su conexión.');
    expect(window.location.pathname).toBe(PATHS.video);
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(load).toHaveBeenCalledOnce();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('the background', () => {
  it('has the size of the window and follows it when the window is resized', async () => {
    await openVideoScreen();
    const background = document.querySelector<HTMLElement>('.video-screen__background')!;
    expect(background.style.width).toBe(`${window.innerWidth}px`);
    expect(background.style.height).toBe(`${window.innerHeight}px`);
    const original = { width: window.innerWidth, height: window.innerHeight };
    try {
      window.innerWidth = 390;
      window.innerHeight = 844;
      act(() => void window.dispatchEvent(new Event('resize')));
      expect(background.style.width).toBe('390px');
      expect(background.style.height).toBe('844px');
    } finally {
      window.innerWidth = original.width;
      window.innerHeight = original.height;
    }
  });
});

describe('the resume position', () => {
  const setDuration = (video: HTMLVideoElement, seconds: number) =>
    Object.defineProperty(video, 'duration', { configurable: true, value: seconds });

  it('is saved when the visitor pauses, per video', async () => {
    const { video } = await openVideoScreen();
    video.currentTime = 42.25;
    fireEvent.pause(video);
    expect(localStorage.getItem(POSITION_KEY)).toBe('42.3');
  });

  it('is saved now and then while playing, not at every timeupdate', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { video } = await openVideoScreen();
    video.currentTime = 10;
    fireEvent.timeUpdate(video);
    expect(localStorage.getItem(POSITION_KEY)).toBe('10.0');
    video.currentTime = 11;
    fireEvent.timeUpdate(video);
    expect(localStorage.getItem(POSITION_KEY)).toBe('10.0');
    vi.advanceTimersByTime(5_000);
    fireEvent.timeUpdate(video);
    expect(localStorage.getItem(POSITION_KEY)).toBe('11.0');
  });

  it('is saved when the page goes away', async () => {
    const { video } = await openVideoScreen();
    video.currentTime = 75;
    fireEvent(window, new Event('pagehide'));
    expect(localStorage.getItem(POSITION_KEY)).toBe('75.0');
  });

  it('is restored when the video metadata arrives', async () => {
    localStorage.setItem(POSITION_KEY, '123.4');
    const { video } = await openVideoScreen();
    setDuration(video, 600);
    fireEvent.loadedMetadata(video);
    expect(video.currentTime).toBe(123.4);
  });

  it('is ignored under 5 seconds, both when saving and when restoring', async () => {
    localStorage.setItem(POSITION_KEY, '4.9');
    const { video } = await openVideoScreen();
    fireEvent.loadedMetadata(video);
    expect(video.currentTime).toBe(0);
    video.currentTime = 3;
    fireEvent.pause(video);
    expect(localStorage.getItem(POSITION_KEY)).toBeNull();
  });

  it.each(['abc', '-20', 'Infinity', '1e400', '', '9999'])(
    'ignores a stored value of "%s" that is no position in the video',
    async (stored) => {
      localStorage.setItem(POSITION_KEY, stored);
      const { video } = await openVideoScreen();
      setDuration(video, 600);
      fireEvent.loadedMetadata(video);
      expect(video.currentTime).toBe(0);
    },
  );

  it('is cleared when the video ends', async () => {
    localStorage.setItem(POSITION_KEY, '300.0');
    const { video } = await openVideoScreen();
    fireEvent.ended(video);
    expect(localStorage.getItem(POSITION_KEY)).toBeNull();
  });
});

describe('the keyboard shortcuts', () => {
  it('play and pause with Space and K', async () => {
    const { video, user } = await openVideoScreen();
    await user.keyboard(' ');
    expect(video.paused).toBe(false);
    await user.keyboard('k');
    expect(video.paused).toBe(true);
    await user.keyboard('K');
    expect(video.paused).toBe(false);
  });

  it('go back and forward 10 s with J/L and the arrows, within the video', async () => {
    const { video, user } = await openVideoScreen();
    Object.defineProperty(video, 'duration', { configurable: true, value: 100 });
    video.currentTime = 50;
    await user.keyboard('j');
    expect(video.currentTime).toBe(40);
    await user.keyboard('{ArrowLeft}');
    expect(video.currentTime).toBe(30);
    await user.keyboard('l');
    expect(video.currentTime).toBe(40);
    await user.keyboard('{ArrowRight}');
    expect(video.currentTime).toBe(50);
    video.currentTime = 4;
    await user.keyboard('j');
    expect(video.currentTime).toBe(0);
    video.currentTime = 95;
    await user.keyboard('l');
    expect(video.currentTime).toBe(100);
  });

  it('mute with M, toggle the captions with C and go full screen with F', async () => {
    const { video, user } = await openVideoScreen();
    const captions = { kind: 'captions', mode: 'showing' };
    Object.defineProperty(video, 'textTracks', { configurable: true, value: [captions] });
    const requestFullscreen = vi.fn(() => Promise.resolve());
    Object.defineProperty(video, 'requestFullscreen', {
      configurable: true,
      value: requestFullscreen,
    });

    await user.keyboard('m');
    expect(video.muted).toBe(true);
    await user.keyboard('m');
    expect(video.muted).toBe(false);
    await user.keyboard('c');
    expect(captions.mode).toBe('hidden');
    await user.keyboard('c');
    expect(captions.mode).toBe('showing');
    await user.keyboard('f');
    expect(requestFullscreen).toHaveBeenCalledOnce();
  });

  it('leave alone the keys typed into a button, or pressed with Ctrl, Alt or Cmd', async () => {
    const { video, button, user } = await openVideoScreen();
    button.focus();
    await user.keyboard('k');
    await user.keyboard('m');
    expect(video.paused).toBe(true);
    expect(video.muted).toBe(false);
    button.blur();
    await user.keyboard('{Control>}k{/Control}{Alt>}m{/Alt}{Meta>}l{/Meta}');
    expect(video.paused).toBe(true);
    expect(video.muted).toBe(false);
    expect(video.currentTime).toBe(0);
  });
});
