import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import * as load from '../../src/screens/VideoPlayer/load';
import { loadIndexHtmlBody } from './indexHtml';
import { renderApp } from './renderApp';
import { EMPRESA, NOMBRES, freshSession } from './sessions';

// The real loader, observed: each test decides how its first load ends.
vi.mock('../../src/screens/VideoPlayer/load', async (importOriginal) => {
  const actual = await importOriginal<typeof load>();
  return {
    ...actual,
    loadVideoPlayerScreen: vi.fn(actual.loadVideoPlayerScreen),
    // Never "already here": every test goes through the lazy load.
    loadedVideoPlayerScreen: () => undefined,
  };
});

const MESSAGE =
  'No se pudo cargar el reproductor de video. Revise su conexión e intente nuevamente.';
const loader = vi.mocked(load.loadVideoPlayerScreen);

describe('the lazy VideoPlayer chunk', () => {
  it('shows a message and "Reintentar" when it fails to load, and retrying loads it afresh', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    loader.mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'));
    const { user } = renderApp({ route: PATHS.video, seed: freshSession() });

    expect(await screen.findByText(MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(MESSAGE);
    expect(consoleError).toHaveBeenCalled();
    expect(loader).toHaveBeenLastCalledWith(0);

    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(
      await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` }),
    ).toBeInTheDocument();
    // A new attempt, not the cached failure of the first.
    expect(loader).toHaveBeenLastCalledWith(1);
    expect(screen.queryByText(MESSAGE)).toBeNull();
  });

  it('keeps the video that index.html started, paused where it was, for the retry', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    loader.mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'));
    localStorage.setItem('session', freshSession());
    window.history.replaceState(null, '', PATHS.video);
    const root = await loadIndexHtmlBody();
    const shellVideo = document.querySelector<HTMLVideoElement>('#video-shell video')!;
    await shellVideo.play();
    const { user } = renderApp({ route: PATHS.video, container: root });

    // The shell would hide the message: it goes, and no video is on the page meanwhile.
    expect(await screen.findByText(MESSAGE)).toBeInTheDocument();
    expect(document.getElementById('video-shell')).toBeNull();
    expect(document.querySelector('video')).toBeNull();
    expect(shellVideo.paused).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` });
    expect(document.querySelector('video')).toBe(shellVideo);
    expect(shellVideo.querySelector('source')).toHaveAttribute('src', config.videoUrl);
  });

  it('counts as failed when it has not arrived after the chunk timeout (120 s)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    loader.mockReturnValueOnce(new Promise(() => {}));
    renderApp({ route: PATHS.video, seed: freshSession() });
    expect(await screen.findByRole('status')).toHaveTextContent('Cargando el video...');

    act(() => vi.advanceTimersByTime(config.chunkTimeoutMs - 1_000));
    expect(screen.queryByText(MESSAGE)).toBeNull();
    await act(async () => vi.advanceTimersByTime(1_000));
    await waitFor(() => expect(screen.getByText(MESSAGE)).toBeInTheDocument());
    expect(config.chunkTimeoutMs).toBe(120_000);
  });
});
