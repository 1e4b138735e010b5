/**
 * The video screen's Capítulos and Transcripción (chapters.tsx, transcript.tsx, one panel.tsx) in
 * the real app: the tracks as the server sends them (MSW), the <video> driven through its events.
 */
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { createAppAuthMachine } from '../../src/auth/auth-provider';
import { APP_WAIT_MS } from '../../src/boot/boot-config';
import { AuthActor } from '../../src/auth/auth-provider';
import { resilientStorage } from '../../src/auth/storage';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import { Chapters, CHAPTERS_NOTES } from '../../src/screens/video-player/chapters';
import { TRANSCRIPT_NOTES, Transcript } from '../../src/screens/video-player/transcript';
import { useTrack } from '../../src/screens/video-player/use-track';
import { countRequests, server } from './msw';
import { renderApp, showFirstFrame, type RenderAppOptions } from './render-app';
import { freshSession } from './sessions';

async function openVideoScreen(options: RenderAppOptions = {}) {
  const app = renderApp({ route: PATHS.video, seed: freshSession(), ...options });
  const chapters = await screen.findByRole('region', { name: 'Capítulos' });
  const transcript = screen.getByRole('region', { name: 'Transcripción' });
  const video = document.querySelector('video')!;
  // The tracks wait for the video's first frame (they must not share the link with it).
  showFirstFrame(video);
  return { ...app, chapters, transcript, video };
}

/** The video reaching `timeS` as it plays. */
const playTo = (video: HTMLVideoElement, timeS: number) => {
  video.currentTime = timeS;
  fireEvent.timeUpdate(video);
};

const current = (region: HTMLElement) =>
  within(region)
    .queryAllByRole('button')
    .filter((button) => button.getAttribute('aria-current') === 'true')
    .map((button) => button.textContent);

const lines = (region: HTMLElement) =>
  within(region)
    .queryAllByRole('listitem')
    .map((item) => item.textContent);

describe('Capítulos', () => {
  it("lists the sample's five scenes with their start times", async () => {
    const { chapters } = await openVideoScreen();
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
    expect(lines(chapters)).toEqual([
      '0:08 Elección y preparación del terreno',
      '0:21 Embolsado: máquina y bolsa',
      '0:34 Llenado y estiba del grano',
      '0:47 Cierre de la bolsa y rotulado',
      '1:00 Monitoreo, calado y extracción',
    ]);
    expect(within(chapters).getAllByRole('listitem')[3]!.querySelector('time')).toHaveAttribute(
      'datetime',
      'PT0H0M47S',
    );
  });

  it('marks the chapter playing, and none before the first', async () => {
    const { chapters, video } = await openVideoScreen();
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
    playTo(video, 3);
    expect(current(chapters)).toEqual([]);
    playTo(video, 25);
    expect(current(chapters)).toEqual(['0:21 Embolsado: máquina y bolsa']);
    playTo(video, 72);
    expect(current(chapters)).toEqual(['1:00 Monitoreo, calado y extracción']);
  });

  it('plays from a chapter’s start on a click, and on Enter', async () => {
    const { chapters, video, user } = await openVideoScreen();
    const cierre = await within(chapters).findByRole('button', { name: /Cierre de la bolsa/ });
    await user.click(cierre);
    expect(video.currentTime).toBe(47);
    expect(video.paused).toBe(false);
    fireEvent.timeUpdate(video);
    expect(cierre).toHaveAttribute('aria-current', 'true');

    video.pause();
    within(chapters)
      .getByRole('button', { name: /Embolsado/ })
      .focus();
    await user.keyboard('{Enter}');
    expect(video.currentTime).toBe(21);
    expect(video.paused).toBe(false);
  });

  it('says so in Spanish when the chapters cannot be fetched, and tries again on request', async () => {
    server.use(http.get(config.chaptersUrl, () => HttpResponse.error(), { once: true }));
    const { chapters, user } = await openVideoScreen();
    const alert = await within(chapters).findByRole('alert');
    expect(alert).toHaveTextContent(CHAPTERS_NOTES.failed);
    await user.click(within(alert).getByRole('button', { name: 'Reintentar' }));
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
    expect(within(chapters).queryByRole('alert')).toBeNull();
  });
});

describe('after the first frame', () => {
  it('asks for the chapters and the captions only once the video has its first frame', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    const chapters = await screen.findByRole('region', { name: 'Capítulos' });
    const video = document.querySelector('video')!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(countRequests('GET', config.chaptersUrl)).toBe(0);
    expect(countRequests('GET', config.captionsUrl)).toBe(0);
    showFirstFrame(video);
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
    expect(countRequests('GET', config.chaptersUrl)).toBe(1);
    expect(countRequests('GET', config.captionsUrl)).toBe(1);
  });

  it('asks for them anyway when the video neither plays nor fails within APP_WAIT_MS', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    renderApp({ route: PATHS.video, seed: freshSession() });
    const chapters = await screen.findByRole('region', { name: 'Capítulos' });
    await act(() => vi.advanceTimersByTimeAsync(APP_WAIT_MS - 100));
    expect(countRequests('GET', config.chaptersUrl)).toBe(0);
    await act(() => vi.advanceTimersByTimeAsync(200));
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
  });

  it('asks for them at once when the video failed', async () => {
    // The player asks the server why (use-video-problem.ts): nothing special to say.
    server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 404 })));
    renderApp({ route: PATHS.video, seed: freshSession() });
    const chapters = await screen.findByRole('region', { name: 'Capítulos' });
    // As a browser reports it: the element's error first, then the event.
    const video = document.querySelector('video')!;
    Object.defineProperty(video, 'error', { configurable: true, value: { code: 4 } });
    fireEvent.error(video);
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
  });
});

describe('a video whose chapters and captions are not written yet', () => {
  /** What prepare-video publishes from a camera file: a captions file with only a NOTE. */
  const STUB = 'WEBVTT\n\nNOTE Subtítulos en español pendientes: reemplace este archivo.\n';
  const notWrittenYet = () =>
    server.use(
      // A publish without chapters answers 204 (server/routes/media.ts).
      http.get(config.chaptersUrl, () => new HttpResponse(null, { status: 204 })),
      http.get(config.captionsUrl, () => HttpResponse.text(STUB)),
    );

  it('says so in one line in each panel: no list, no search box, no retry, no alert', async () => {
    notWrittenYet();
    const { chapters, transcript } = await openVideoScreen();
    const chaptersNote = await within(chapters).findByText(CHAPTERS_NOTES.missing);
    const transcriptNote = await within(transcript).findByText(TRANSCRIPT_NOTES.missing);
    expect(CHAPTERS_NOTES.missing).toBe('Este video todavía no tiene capítulos.');
    expect(TRANSCRIPT_NOTES.missing).toBe('Este video todavía no tiene transcripción.');
    // The note is all the box holds: panels.css gives the missing state one line.
    for (const [region, note] of [
      [chapters, chaptersNote],
      [transcript, transcriptNote],
    ] as const) {
      expect(region).toHaveAttribute('data-state', 'missing');
      expect(region.querySelector('.panel__box')?.children).toEqual(
        expect.objectContaining({ length: 1, 0: note }),
      );
      expect(within(region).queryByRole('list')).toBeNull();
    }
    expect(within(transcript).queryByRole('searchbox')).toBeNull();
    expect(transcript.querySelector('.transcript__search')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Reintentar' })).toBeNull();
  });

  it('offers the player no captions track once the file turns out to have no cue', async () => {
    notWrittenYet();
    const { transcript, video } = await openVideoScreen();
    await within(transcript).findByText(TRANSCRIPT_NOTES.missing);
    expect(video.querySelector('track')).toBeNull();
  });

  it('keeps the captions track, the search and the lists for a video that has them', async () => {
    const { chapters, transcript, video } = await openVideoScreen();
    await waitFor(() => expect(lines(transcript)).toHaveLength(11));
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
    // The transcript's cues go into the track: no src, no second request for the file.
    expect(video.querySelector('track')).not.toHaveAttribute('src');
    expect(countRequests('GET', config.captionsUrl)).toBe(1);
    expect(within(transcript).getByRole('searchbox')).toBeEnabled();
    expect(chapters).toHaveAttribute('data-state', 'ready');
    expect(transcript).toHaveAttribute('data-state', 'ready');
  });

  it('says the same for tracks the server does not have at all (404)', async () => {
    server.use(
      http.get(config.chaptersUrl, () => new HttpResponse(null, { status: 404 })),
      http.get(config.captionsUrl, () => new HttpResponse(null, { status: 404 })),
    );
    const { chapters, transcript, video } = await openVideoScreen();
    expect(await within(chapters).findByText(CHAPTERS_NOTES.missing)).toBeVisible();
    expect(await within(transcript).findByText(TRANSCRIPT_NOTES.missing)).toBeVisible();
    expect(within(transcript).queryByRole('searchbox')).toBeNull();
    expect(video.querySelector('track')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('Transcripción', () => {
  it('shows the Spanish captions as lines of text with their times', async () => {
    const { transcript } = await openVideoScreen();
    await waitFor(() => expect(lines(transcript)).toHaveLength(11));
    expect(lines(transcript)[0]).toBe(
      '0:00 Muestra de la capacitación: manejo de silo bolsa, edición 2023.',
    );
    expect(lines(transcript)[4]).toBe('0:27 Revisamos el freno y la presión antes de empezar.');
  });

  it('highlights the line playing, following playback and seeks', async () => {
    const { transcript, video } = await openVideoScreen();
    await waitFor(() => expect(lines(transcript)).toHaveLength(11));
    playTo(video, 1);
    expect(current(transcript)).toEqual([
      '0:00 Muestra de la capacitación: manejo de silo bolsa, edición 2023.',
    ]);
    playTo(video, 30);
    expect(current(transcript)).toEqual(['0:27 Revisamos el freno y la presión antes de empezar.']);
    video.currentTime = 9;
    fireEvent(video, new Event('seeked'));
    expect(current(transcript)).toEqual(['0:08 Elegimos un terreno firme, alto y sin pendiente.']);
    playTo(video, 80);
    expect(current(transcript)).toEqual([]);
  });

  it('plays from a line when it is clicked', async () => {
    const { transcript, video, user } = await openVideoScreen();
    await user.click(
      await within(transcript).findByRole('button', { name: /Cerramos el extremo/ }),
    );
    expect(video.currentTime).toBe(47);
    expect(video.paused).toBe(false);
  });

  it('is one stop for Tab, on the line playing; the arrows, Home and End move between lines', async () => {
    const { transcript, video, user } = await openVideoScreen();
    const search = within(transcript).getByRole('searchbox');
    await waitFor(() => expect(lines(transcript)).toHaveLength(11));
    playTo(video, 30);
    search.focus();
    await user.tab();
    expect(document.activeElement).toHaveTextContent(/^0:27 Revisamos el freno/);
    await user.keyboard('{ArrowDown}');
    expect(document.activeElement).toHaveTextContent(/^0:34 El grano entra seco/);
    await user.keyboard('{ArrowUp}{ArrowUp}');
    expect(document.activeElement).toHaveTextContent(/^0:21 La embolsadora/);
    await user.keyboard('{End}{ArrowDown}');
    expect(document.activeElement).toHaveTextContent(/^1:06 Extraemos/);
    await user.keyboard('{Home}{ArrowUp}');
    expect(document.activeElement).toHaveTextContent(/^0:00 Muestra/);
    await user.keyboard('{ArrowDown}{Enter}');
    expect(video.currentTime).toBe(8);
    // Past the list in one Tab: whatever follows the transcript, not its second line.
    await user.tab();
    expect(transcript).not.toContainElement(document.activeElement as HTMLElement);

    // A search that hides the line playing: Tab lands on the first line shown.
    await user.clear(search);
    await user.type(search, 'humedad');
    await user.tab();
    expect(document.activeElement).toHaveTextContent(/^0:34 El grano entra seco/);
  });

  it('keeps only the lines holding every word searched, accents and case aside', async () => {
    const { transcript, user } = await openVideoScreen();
    const search = within(transcript).getByRole('searchbox', {
      name: 'Buscar en la transcripción',
    });
    await waitFor(() => expect(search).toBeEnabled());
    await user.type(search, 'PRESION');
    expect(lines(transcript)).toEqual(['0:27 Revisamos el freno y la presión antes de empezar.']);
    expect(within(transcript).getByRole('status')).toHaveTextContent('1 línea encontrada.');
    await user.clear(search);
    await user.type(search, 'humedad');
    expect(lines(transcript)).toHaveLength(2);
    expect(within(transcript).getByRole('status')).toHaveTextContent('2 líneas encontradas.');
    await user.type(search, ' tractor');
    expect(lines(transcript)).toEqual([]);
    expect(within(transcript).getByRole('status')).toHaveTextContent(
      'Ninguna línea contiene esas palabras.',
    );
    await user.clear(search);
    expect(lines(transcript)).toHaveLength(11);
    expect(within(transcript).getByRole('status')).toHaveTextContent(/^$/);
  });

  it.each([
    ['a server error', () => new HttpResponse('boom', { status: 500 })],
    ['an answer that is not WebVTT', () => HttpResponse.html('<!doctype html><p>hola</p>')],
    ['no answer', () => HttpResponse.error()],
  ])('says so in Spanish on %s, while the chapters still show', async (_, answer) => {
    server.use(http.get(config.captionsUrl, answer));
    const { transcript, chapters } = await openVideoScreen();
    expect(await within(transcript).findByRole('alert')).toHaveTextContent(TRANSCRIPT_NOTES.failed);
    expect(within(transcript).getByRole('searchbox')).toBeDisabled();
    await waitFor(() => expect(lines(chapters)).toHaveLength(5));
  });

  it('ends the session with the expired notice when the server refuses it (401)', async () => {
    server.use(http.get(config.captionsUrl, () => new HttpResponse(null, { status: 401 })));
    await openVideoScreen();
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByRole('status')).toHaveTextContent('Su sesión expiró');
  });
});

describe('rendered before the JavaScript (server or build)', () => {
  it('renders the same on the server as in the browser’s first render: hydration finds no difference', async () => {
    localStorage.setItem('session', freshSession());
    const videoRef = { current: null };
    function Panels() {
      const captions = useTrack(config.captionsUrl, true);
      return (
        <main className="video-main">
          <Chapters videoRef={videoRef} wanted />
          <Transcript videoRef={videoRef} track={captions} />
        </main>
      );
    }
    const panels = () => (
      <AuthActor.Provider logic={createAppAuthMachine(resilientStorage())}>
        <Panels />
      </AuthActor.Provider>
    );
    const html = renderToString(panels());
    expect(html).toContain('Cargando...');
    const container = document.createElement('div');
    container.innerHTML = html;
    document.body.append(container);
    const recoverable: unknown[] = [];
    const consoleError = vi.spyOn(console, 'error');
    const root = await act(async () =>
      hydrateRoot(container, panels(), { onRecoverableError: (error) => recoverable.push(error) }),
    );
    expect(recoverable).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    await waitFor(() => expect(container.querySelectorAll('li')).toHaveLength(16));
    act(() => root.unmount());
    container.remove();
  });
});
