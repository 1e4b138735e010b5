import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { App, APP_ERROR_MESSAGE } from '../../src/app';
import { createAppAuthMachine } from '../../src/auth/auth-provider';
import { resilientStorage } from '../../src/auth/storage';
import { ownHandoff } from '../../src/boot/own-handoff';
import { createAppChunks } from '../../src/chunks';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import { CHUNK_ERROR_MESSAGE } from '../../src/screens/video-player/video-player-route';
import { SIGNIN_URL } from './msw';
import { renderApp } from './render-app';
import { EMPRESA, NOMBRES, freshSession } from './sessions';

const importScreen = () => import('../../src/screens/video-player/video-player-screen');

/** The real screen module, behind a loader the test can make fail or hang first. */
function observedLoader(first: 'fails' | 'hangs') {
  const loader = vi.fn(importScreen);
  loader.mockImplementationOnce(() =>
    first === 'fails'
      ? Promise.reject(new TypeError('Failed to fetch dynamically imported module'))
      : new Promise(() => {}),
  );
  return { loader, chunks: createAppChunks(loader) };
}

/** The login, with the right password, on an app whose screen chunk comes from `loader`. */
async function signInWith(loader: Parameters<typeof createAppChunks>[0]) {
  const { user } = renderApp({
    chunks: createAppChunks(loader),
    handlers: [
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
    ],
  });
  await user.type(screen.getByLabelText('Contraseña'), 'silobolsa2023');
  await user.click(screen.getByRole('button', { name: 'Ingresar' }));
}

describe('the lazy VideoPlayer chunk', () => {
  it('shows a message and "Reintentar" when it fails to load, and retrying loads it afresh', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { loader, chunks } = observedLoader('fails');
    const { user } = renderApp({ route: PATHS.video, seed: freshSession(), chunks });

    expect(await screen.findByText(CHUNK_ERROR_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(CHUNK_ERROR_MESSAGE);
    expect(consoleError).toHaveBeenCalled();
    expect(loader).toHaveBeenCalledTimes(1);

    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(
      await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` }),
    ).toBeInTheDocument();
    // A new attempt, not the cached failure of the first.
    expect(loader).toHaveBeenCalledTimes(2);
    expect(screen.queryByText(CHUNK_ERROR_MESSAGE)).toBeNull();
  });

  it('is asked for once when the login preloads it and the route then renders it', async () => {
    const loader = vi.fn(importScreen);
    await signInWith(loader);
    expect(await screen.findByRole('button', { name: /^Hola / })).toBeInTheDocument();
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('leaves at the first keystroke of the password, while the link is idle, never on a login left alone', async () => {
    const loader = vi.fn(importScreen);
    const { user } = renderApp({ chunks: createAppChunks(loader) });
    const password = await screen.findByLabelText('Contraseña');
    await user.click(password);
    await act(() => new Promise((wait) => setTimeout(wait, 50)));
    expect(loader).not.toHaveBeenCalled();
    await user.type(password, 's');
    expect(loader).toHaveBeenCalledTimes(1);
    await user.type(password, 'ilo');
    expect(loader).toHaveBeenCalledTimes(1);
  });

  it('after the signin the login stays, saying "Cargando...", until the screen is here: no loading page', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const loader = vi.fn(() => held.then(importScreen));
    await signInWith(loader);
    // Signed in (the session is stored), the chunk still out: the login, loading.
    await waitFor(() => expect(localStorage.getItem('session')).not.toBeNull());
    await act(() => new Promise((wait) => setTimeout(wait, 50)));
    expect(screen.getByLabelText('Contraseña')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Cargando...');
    expect(screen.queryByText('Cargando el video...')).toBeNull();

    release();
    expect(await screen.findByRole('button', { name: /^Hola / })).toBeInTheDocument();
    expect(screen.queryByLabelText('Contraseña')).toBeNull();
  });

  it('a chunk that cannot load after the signin: the video route says so, with "Reintentar"', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const loader = vi.fn(() =>
      Promise.reject(new TypeError('Failed to fetch dynamically imported module')),
    );
    await signInWith(loader);
    expect(await screen.findByText(CHUNK_ERROR_MESSAGE)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
  });

  it('counts as failed when it has not arrived after the chunk timeout (120 s)', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldAdvanceTime: true });
    const { chunks } = observedLoader('hangs');
    renderApp({ route: PATHS.video, seed: freshSession(), chunks });
    expect(await screen.findByRole('status')).toHaveTextContent('Cargando el video...');

    act(() => vi.advanceTimersByTime(config.chunkTimeoutMs - 1_000));
    expect(screen.queryByText(CHUNK_ERROR_MESSAGE)).toBeNull();
    await act(async () => vi.advanceTimersByTime(1_000));
    await waitFor(() => expect(screen.getByText(CHUNK_ERROR_MESSAGE)).toBeInTheDocument());
    expect(config.chunkTimeoutMs).toBe(120_000);
  });
});

describe('a render error anywhere in the app', () => {
  it('shows a Spanish message with a way to reload, not a blank page', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });
    // A render error from anywhere inside the providers, here the router itself.
    const Broken = () => {
      throw new Error('boom');
    };
    render(
      <App
        machine={createAppAuthMachine(resilientStorage())}
        handoff={ownHandoff()}
        Router={Broken}
      />,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(APP_ERROR_MESSAGE);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(reload).toHaveBeenCalled();
  });
});
