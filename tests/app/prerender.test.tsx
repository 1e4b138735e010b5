/**
 * index.html before the app and as the app takes it over: the login prerendered in #root, the
 * video screen prerendered for a returning visitor and shown by the boot script, and React
 * hydrating either without replacing what is on screen.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, inject, it, vi } from 'vitest';
import { createAppAuthMachine } from '../../src/auth/auth-provider';
import { resilientStorage } from '../../src/auth/storage';
import { createAppChunks } from '../../src/chunks';
import { APP_WAIT_MS } from '../../src/boot/boot-config';
import { config } from '../../src/config';
import { PATHS, settleFirstRoute } from '../../src/routes';
import { SCREEN_MODULE, appEntryScripts, openIndexHtml, startAppIn } from './index-html';
import { SIGNIN_URL, server } from './msw';
import { EMPRESA, NOMBRES, freshSession, storedSession } from './sessions';

const LABEL = `Hola ${NOMBRES} / ${EMPRESA}`;

describe('the login, prerendered in #root', () => {
  it('is on screen before the JavaScript, with the fixed username, and "Ingresar" off until the boot script runs', async () => {
    // With no script at all a press would submit natively, the password in the address.
    expect(inject('screens').login).toMatch(/<button[^>]*disabled[^>]*>Ingresar</);
    const root = await openIndexHtml(PATHS.login, null);
    expect(root.querySelector('input[name="username"]')).toHaveValue(config.username);
    expect(root.querySelector('input[name="username"]')).toHaveAttribute('readonly');
    expect(screen.getByLabelText('Contraseña')).toHaveAttribute(
      'placeholder',
      'Ingresar contraseña',
    );
    expect(screen.getByRole('button', { name: 'Ingresar' })).toBeEnabled();
    expect(screen.getByRole('img', { name: 'Logo de la empresa' })).toBeInTheDocument();
  });

  it.each([
    ['the right password', 'the video screen', 200],
    ['a wrong password', 'the error', 401],
  ])(
    'answers a press with %s before the app: one signin at once, "Cargando...", then %s from the machine',
    async (_password, _end, status) => {
      const bodies: unknown[] = [];
      server.use(
        http.post(SIGNIN_URL, async ({ request }) => {
          bodies.push(await request.json());
          return status === 200
            ? HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })
            : new HttpResponse(null, { status });
        }),
      );
      const consoleError = vi.spyOn(console, 'error');
      const root = await openIndexHtml(PATHS.login, null);
      root.querySelector<HTMLInputElement>('#password')!.value = 'escrita antes';
      root.querySelector('button')!.click();

      expect(screen.getByRole('status')).toHaveTextContent('Cargando...');
      await waitFor(() => expect(bodies).toHaveLength(1));
      expect(bodies).toEqual([{ form: { usuario: 'capacitacion', contraseña: 'escrita antes' } }]);
      // The video screen's chunk comes with the press (after the video's first bytes: none here).
      expect(
        document.head.querySelector(`link[rel="modulepreload"][href="${SCREEN_MODULE}"]`),
      ).not.toBeNull();

      await startAppIn(root);

      if (status === 200) {
        expect(await screen.findByRole('button', { name: LABEL })).toBeInTheDocument();
        expect(window.location.pathname).toBe(PATHS.video);
        expect(JSON.parse(localStorage.getItem('session')!)).toMatchObject({
          empresa: EMPRESA,
          nombres: NOMBRES,
        });
      } else {
        expect(await screen.findByText('Error, contraseña incorrecta')).toBeInTheDocument();
        expect(screen.getByRole('status')).toHaveTextContent('');
        expect(localStorage.getItem('session')).toBeNull();
      }
      expect(bodies).toHaveLength(1);
      // Adopted as it was, "Cargando..." and the live button included: no hydration mismatch.
      expect(consoleError).not.toHaveBeenCalled();
    },
  );

  it('shows the video screen at the success of a press it answered before the app; the app then has the machine store the session and hydrates that screen', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(SIGNIN_URL, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES });
      }),
    );
    const consoleError = vi.spyOn(console, 'error');
    const root = await openIndexHtml(PATHS.login, null);
    root.querySelector<HTMLInputElement>('#password')!.value = 'escrita antes';
    root.querySelector('button')!.click();

    // The boot's own: the greeting from the answer, the video, the address; no session stored.
    const button = await screen.findByRole('button', { name: LABEL });
    const video = root.querySelector('video');
    expect(video).not.toBeNull();
    expect(window.location.pathname).toBe(PATHS.video);
    expect(localStorage.getItem('session')).toBeNull();

    await startAppIn(root);
    expect(JSON.parse(localStorage.getItem('session')!)).toMatchObject({
      loggedIn: true,
      username: config.username,
      empresa: EMPRESA,
      nombres: NOMBRES,
    });
    await waitFor(() => expect(root.querySelector('video')).toBe(video));
    expect(screen.getByRole('button', { name: LABEL })).toBe(button);
    expect(bodies).toHaveLength(1);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('leaves a signin whose answer comes after the app arrived to the login screen and the machine', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.post(SIGNIN_URL, async () => {
        await answered;
        return HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES });
      }),
    );
    const root = await openIndexHtml(PATHS.login, null);
    root.querySelector<HTMLInputElement>('#password')!.value = 'escrita antes';
    root.querySelector('button')!.click();
    const login = root.firstElementChild;
    await startAppIn(root);
    answer();
    const button = await screen.findByRole('button', { name: LABEL });
    expect(JSON.parse(localStorage.getItem('session')!)).toMatchObject({ nombres: NOMBRES });
    // React's render, not the boot's markup put under React's feet.
    expect(login?.isConnected).toBe(false);
    expect(Object.keys(button).some((key) => key.startsWith('__react'))).toBe(true);
    expect(window.location.pathname).toBe(PATHS.video);
  });

  it('does nothing on a press with an empty password before the app, as the machine would', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(SIGNIN_URL, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(null);
      }),
    );
    const root = await openIndexHtml(PATHS.login, null);
    root.querySelector('button')!.click();
    expect(screen.getByRole('status')).toHaveTextContent('');
    await startAppIn(root);
    expect(screen.getByRole('status')).toHaveTextContent('');
    expect(bodies).toEqual([]);
  });

  it('is adopted by React without replacing it, keeping a password typed before the JavaScript ran', async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(SIGNIN_URL, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(null);
      }),
    );
    const consoleError = vi.spyOn(console, 'error');
    const root = await openIndexHtml(PATHS.login, null);
    const input = root.querySelector<HTMLInputElement>('#password')!;
    const button = root.querySelector('button')!;
    input.value = 'escrita antes';

    await startAppIn(root);

    await waitFor(() => expect(button).toBeEnabled());
    expect(consoleError).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Contraseña')).toBe(input);
    expect(input).toHaveValue('escrita antes');
    expect(screen.getByRole('button', { name: 'Ingresar' })).toBe(button);
    await userEvent.setup().click(button);
    expect(await screen.findByText('Error, contraseña incorrecta')).toBeInTheDocument();
    expect(bodies).toEqual([{ form: { usuario: 'capacitacion', contraseña: 'escrita antes' } }]);
  });
});

describe("the video screen's chunk, from the login", () => {
  const loader = () => vi.fn(() => import('../../src/screens/video-player/video-player-screen'));

  it('is asked for as React adopts a login whose password was typed before the app came', async () => {
    const root = await openIndexHtml(PATHS.login, null);
    root.querySelector<HTMLInputElement>('#password')!.value = 'escrita antes';
    const load = loader();
    await startAppIn(root, createAppChunks(load));
    await waitFor(() => expect(load).toHaveBeenCalledTimes(1));
  });

  it('is not asked for when the field is empty as React adopts the login', async () => {
    const root = await openIndexHtml(PATHS.login, null);
    const load = loader();
    await startAppIn(root, createAppChunks(load));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Ingresar' })).toBeEnabled());
    await new Promise((wait) => setTimeout(wait, 50));
    expect(load).not.toHaveBeenCalled();
  });
});

describe('the video screen, prerendered, for a visitor with a live stored session', () => {
  it('replaces the login before the bundle, with the greeting and the video loading; the chunk comes with the bundle', async () => {
    const root = await openIndexHtml(PATHS.video, freshSession());
    expect(root.querySelector('#password')).toBeNull();
    const video = root.querySelector('video')!;
    expect(video).toHaveAttribute('src', config.videoUrl);
    expect(video).toHaveAttribute('poster', config.posterUrl);
    expect(screen.getByRole('button', { name: LABEL })).toBeDisabled();
    expect(document.title).toBe('Video — Capacitación silo bolsa');
    const screenChunk = () =>
      document.head.querySelector(`link[rel="modulepreload"][href="${SCREEN_MODULE}"]`);
    expect(screenChunk()).toBeNull();
    fireEvent.loadedMetadata(video);
    expect(appEntryScripts()).toHaveLength(1);
    expect(screenChunk()).not.toBeNull();
  });

  it('is hydrated by React: the same elements, the video that was already loading included', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const root = await openIndexHtml(PATHS.video, freshSession());
    const before = [...root.querySelectorAll('*')];
    const video = root.querySelector('video')!;

    await startAppIn(root);

    await waitFor(() => expect(screen.getByRole('button', { name: LABEL })).toBeEnabled());
    expect(consoleError).not.toHaveBeenCalled();
    expect(root.querySelector('video')).toBe(video);
    const after = [...root.querySelectorAll('*')];
    expect(after.filter((element) => !before.includes(element))).toEqual([]);
  });

  it('keeps where the visitor started watching before the app arrived', async () => {
    localStorage.setItem(`videoPosition:${config.videoUrl}`, '30');
    const root = await openIndexHtml(PATHS.video, freshSession());
    const video = root.querySelector('video')!;
    await video.play();
    await startAppIn(root);
    await waitFor(() => expect(screen.getByRole('button', { name: LABEL })).toBeEnabled());
    fireEvent.loadedMetadata(video);
    expect(video.currentTime).toBe(0);
  });

  it('reports a video load that failed before React arrived', async () => {
    server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 401 })));
    const root = await openIndexHtml(PATHS.video, freshSession());
    const video = root.querySelector('video')!;
    // As a browser reports a failed load: the element keeps the error.
    Object.defineProperty(video, 'error', { value: { code: 2 } });
    fireEvent.error(video);
    await startAppIn(root);
    // The Player checks the session on a failure; the server refused it: expired.
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Su sesión expiró. Ingrese nuevamente.',
    );
  });

  it('puts the stored names in as text, never as markup', async () => {
    const nombres = '<img src=x onerror="window.hacked=1">';
    const root = await openIndexHtml(PATHS.video, storedSession({ nombres }));
    const button = root.querySelector('.session-button')!;
    expect(button.textContent).toBe(`Hola ${nombres} / ${EMPRESA}`);
    expect(button.children).toHaveLength(0);
  });
});

describe('the app bundle, which the boot starts', () => {
  it('starts at once without a live session', async () => {
    await openIndexHtml(PATHS.login, null);
    expect(appEntryScripts()).toHaveLength(1);
    expect(appEntryScripts()[0]).toHaveAttribute('crossorigin', '');
  });

  it.each([
    ['the video knows its metadata', (video: HTMLVideoElement) => fireEvent.loadedMetadata(video)],
    ['the video failed', (video: HTMLVideoElement) => fireEvent.error(video)],
  ])(
    'waits, with the video screen shown, until %s: the bundle would share the slow link with it',
    async (_, settle) => {
      const root = await openIndexHtml(PATHS.video, freshSession());
      expect(appEntryScripts()).toHaveLength(0);
      settle(root.querySelector('video')!);
      expect(appEntryScripts()).toHaveLength(1);
      fireEvent.loadedMetadata(root.querySelector('video')!);
      expect(appEntryScripts()).toHaveLength(1);
    },
  );

  it(`starts after ${APP_WAIT_MS / 1000} s when the video has neither metadata nor failed`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    await openIndexHtml(PATHS.video, freshSession());
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
    ['names longer than anyone types', storedSession({ nombres: 'x'.repeat(500) })],
  ])('leaves the login alone (%s)', async (_, seed) => {
    const root = await openIndexHtml(PATHS.video, seed);
    expect(root.querySelector('#password')).not.toBeNull();
    expect(document.querySelector('#root video')).toBeNull();
    await Promise.resolve();
    expect(document.head.querySelector('link[rel="modulepreload"]')).toBeNull();
  });
});

describe('a video screen shown for a session the machine no longer accepts', () => {
  it('ends at the login, rendered afresh, with the video stopped', async () => {
    const root = await openIndexHtml(PATHS.video, freshSession());
    const video = root.querySelector('video')!;
    // Expired between the boot and the app (another tab logged out meanwhile).
    localStorage.removeItem('session');
    await startAppIn(root);
    expect(await screen.findByLabelText('Contraseña')).toBeVisible();
    expect(video).not.toHaveAttribute('src');
    expect(root.querySelector('video')).toBeNull();
    expect(window.location.pathname).toBe(PATHS.login);
  });
});

describe('the first route, settled before React starts', () => {
  it('is the login at any address for a visitor without a session, and the address says so', () => {
    for (const address of ['/', '/capacitacion', `${PATHS.video}`, '/capacitacion/otra?x=1']) {
      window.history.replaceState(null, '', address);
      expect(settleFirstRoute(createAppAuthMachine(resilientStorage()))).toBe('login');
      expect(window.location.pathname).toBe(PATHS.login);
    }
  });

  it('is the video at any address for a visitor with a fresh session, and the address says so', () => {
    localStorage.setItem('session', freshSession());
    for (const address of [PATHS.login, '/capacitacion/otra', '/']) {
      window.history.replaceState(null, '', address);
      expect(settleFirstRoute(createAppAuthMachine(resilientStorage()))).toBe('video');
      expect(window.location.pathname).toBe(PATHS.video);
    }
  });

  it('hydrates the video screen a returning visitor opened at the login address', async () => {
    const consoleError = vi.spyOn(console, 'error');
    const root = await openIndexHtml(PATHS.login, freshSession());
    const video = root.querySelector('video')!;
    await startAppIn(root);
    await waitFor(() => expect(screen.getByRole('button', { name: LABEL })).toBeEnabled());
    expect(screen.getAllByRole('button', { name: LABEL })).toHaveLength(1);
    expect(root.querySelector('video')).toBe(video);
    expect(window.location.pathname).toBe(PATHS.video);
    expect(consoleError).not.toHaveBeenCalled();
  });
});
