import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { PATHS } from '../../src/routes';
import { SIGNIN_URL } from './msw';
import { renderApp } from './render-app';
import { EMPRESA, NOMBRES, freshSession } from './sessions';

describe('the routes', () => {
  it.each([
    '/',
    '/capacitacion',
    '/capacitacion/',
    '/capacitacion/nada',
    '/capacitacion/login/extra',
    '/otra/cosa',
    '/VideoPlayer',
    '/capacitacion/VideoPlayer/extra',
  ])('send %s to the login', async (route) => {
    renderApp({ route });
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByLabelText('Contraseña')).toBeInTheDocument();
  });

  it('send a visitor without a session from the video to the login', async () => {
    renderApp({ route: PATHS.video });
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
    expect(await screen.findByLabelText('Contraseña')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Hola / })).toBeNull();
  });

  it('send a visitor with a session from the login, or anywhere, to the video', async () => {
    renderApp({ route: '/capacitacion/otra', seed: freshSession() });
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
    expect(
      await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` }),
    ).toBeInTheDocument();
  });

  it('take the visitor to the video after a successful login, with the session saved', async () => {
    const { user } = renderApp({
      handlers: [
        http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
      ],
    });
    await user.type(screen.getByLabelText('Contraseña'), 'clave{Enter}');
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
    expect(JSON.parse(localStorage.getItem('session')!)).toMatchObject({
      loggedIn: true,
      username: 'capacitacion',
      empresa: EMPRESA,
      nombres: NOMBRES,
    });
    expect(
      await screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` }),
    ).toBeInTheDocument();
  });

  it('keep the visitor on the video when the browser goes back to the login', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    await screen.findByRole('button', { name: /^Hola / });
    act(() => {
      window.history.pushState(null, '', PATHS.login);
      window.dispatchEvent(new PopStateEvent('popstate'));
    });
    expect(await screen.findByRole('button', { name: /^Hola / })).toBeInTheDocument();
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
  });
});
