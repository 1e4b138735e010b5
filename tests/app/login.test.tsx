import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import { SIGNIN_URL, countRequests, server } from './msw';
import { renderApp } from './render-app';
import { EMPRESA, NOMBRES } from './sessions';

const passwordField = () => screen.getByLabelText<HTMLInputElement>('Contraseña');
const submitButton = () => screen.getByRole('button', { name: 'Ingresar' });

/** A signin that hangs until the test answers it. */
function heldSignin() {
  const waiting: ((response: Response) => void)[] = [];
  server.use(
    http.post(SIGNIN_URL, () => new Promise<Response>((resolve) => waiting.push(resolve))),
  );
  return {
    get count() {
      return waiting.length;
    },
    answer: (response: Response) => act(async () => waiting.shift()?.(response)),
  };
}

const welcomed = () => screen.findByRole('button', { name: `Hola ${NOMBRES} / ${EMPRESA}` });

describe('the login form', () => {
  it('has a hidden read-only username, a required password labelled "Contraseña", and "Ingresar"', () => {
    const { container } = renderApp();
    const username = container.querySelector<HTMLInputElement>('input[name="username"]')!;
    expect(username).toHaveValue(config.username);
    expect(username).toHaveAttribute('readonly');
    expect(username).not.toBeVisible();
    expect(username).toHaveAttribute('autocomplete', 'username');

    const password = passwordField();
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('placeholder', 'Ingresar contraseña');
    expect(password).toBeRequired();
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    expect(submitButton()).toHaveAttribute('type', 'submit');
    expect(screen.getByRole('img', { name: 'Logo de la empresa' })).toHaveAttribute('width', '240');
  });

  it('is titled "Ingresar — Capacitación silo bolsa"', () => {
    renderApp();
    expect(document.title).toBe('Ingresar — Capacitación silo bolsa');
  });

  it('posts { form: { usuario, contraseña } } as JSON to {api}/api/users/signin', async () => {
    const seen: { method: string; url: string; type: string | null; body: unknown }[] = [];
    const { user } = renderApp({
      handlers: [
        http.post(SIGNIN_URL, async ({ request }) => {
          seen.push({
            method: request.method,
            url: request.url,
            type: request.headers.get('content-type'),
            body: await request.json(),
          });
          return HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES });
        }),
      ],
    });
    await user.type(passwordField(), 'ñandú 2023{Enter}');
    await welcomed();
    expect(seen).toEqual([
      {
        method: 'POST',
        url: new URL(`${config.apiUrl}/api/users/signin`, window.location.href).href,
        type: 'application/json',
        body: { form: { usuario: config.username, contraseña: 'ñandú 2023' } },
      },
    ]);
  });

  it('sends one request however often Enter and the button are pressed while it is in flight', async () => {
    const signin = heldSignin();
    const { user } = renderApp();
    await user.type(passwordField(), 'secreto');
    for (let i = 0; i < 5; i++) {
      await user.click(submitButton());
      await user.keyboard('{Enter}');
    }
    await waitFor(() => expect(signin.count).toBe(1));
    // Give any further request the time to show up before counting.
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(countRequests('POST', SIGNIN_URL)).toBe(1);
    expect(screen.getByRole('status')).toHaveTextContent('Cargando...');
    await signin.answer(HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES }));
    await welcomed();
  });

  it('does nothing at all with an empty password: no request, no message', async () => {
    const { user } = renderApp();
    await user.click(submitButton());
    passwordField().focus();
    await user.keyboard('{Enter}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(countRequests('POST', SIGNIN_URL)).toBe(0);
    expect(screen.getByRole('status')).toHaveTextContent(/^$/);
    expect(screen.getByRole('alert')).toHaveTextContent(/^$/);
    expect(window.location.pathname).toBe(PATHS.login);
  });

  it('shows a red "Cargando..." while the request is in flight', async () => {
    const signin = heldSignin();
    const { user } = renderApp();
    await user.type(passwordField(), 'secreto{Enter}');
    expect(await screen.findByText('Cargando...')).toHaveClass('login__message');
    await signin.answer(new HttpResponse(null, { status: 401 }));
    expect(screen.queryByText('Cargando...')).toBeNull();
  });

  it.each([
    ['a 401', () => new HttpResponse(null, { status: 401 })],
    ['a 200 with null', () => HttpResponse.json(null)],
    ['a 200 with false', () => HttpResponse.json(false)],
    ['a 200 with 0', () => HttpResponse.json(0)],
    ['a 200 with an empty string', () => HttpResponse.json('')],
    ['a 200 with no body', () => new HttpResponse(null, { status: 200 })],
  ])('reads %s as a wrong password, and lets the visitor try again', async (_, answer) => {
    const { user } = renderApp({ handlers: [http.post(SIGNIN_URL, answer, { once: true })] });
    await user.type(passwordField(), 'equivocada{Enter}');
    const alert = await screen.findByRole('alert');
    await waitFor(() => expect(alert).toHaveTextContent('Error, contraseña incorrecta'));
    expect(passwordField()).toHaveAttribute('aria-invalid', 'true');
    expect(localStorage.getItem('session')).toBeNull();

    server.use(
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
    );
    await user.clear(passwordField());
    await user.type(passwordField(), 'correcta{Enter}');
    await welcomed();
    expect(window.location.pathname).toBe(PATHS.video);
  });

  it.each([
    ['a 500', () => new HttpResponse(null, { status: 500 })],
    ['a 503', () => new HttpResponse('<html>Bad gateway</html>', { status: 503 })],
    ['a network error (offline)', () => HttpResponse.error()],
    ['a 200 that is not JSON', () => new HttpResponse('<html>proxy page</html>', { status: 200 })],
    ['a 200 without empresa and nombres', () => HttpResponse.json({ ok: true })],
    ['a 400', () => HttpResponse.json({ error: 'bad_request' }, { status: 400 })],
  ])('shows the connection message after %s, logs it, and allows a retry', async (_, answer) => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { user } = renderApp({ handlers: [http.post(SIGNIN_URL, answer, { once: true })] });
    await user.type(passwordField(), 'secreto{Enter}');
    const alert = await screen.findByRole('alert');
    await waitFor(() =>
      expect(alert).toHaveTextContent('No se pudo conectar con el servidor. Intente nuevamente.'),
    );
    expect(screen.queryByText('Cargando...')).toBeNull();
    expect(consoleError.mock.calls.map(([message]) => String(message))).toEqual([
      expect.stringMatching(/^Signin failed/),
    ]);

    server.use(
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
    );
    await user.click(submitButton());
    await welcomed();
  });

  it('says how many seconds to wait after a 429, and counts down', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const { user } = renderApp({
      handlers: [
        http.post(
          SIGNIN_URL,
          () => new HttpResponse(null, { status: 429, headers: { 'Retry-After': '30' } }),
        ),
      ],
    });
    await user.type(passwordField(), 'secreto{Enter}');
    const alert = await screen.findByRole('alert');
    await waitFor(() =>
      expect(alert).toHaveTextContent(
        'Demasiados intentos. Espere 30 segundos e intente nuevamente.',
      ),
    );
    expect(alert).toHaveClass('login__message');
    act(() => vi.advanceTimersByTime(1_000));
    expect(alert).toHaveTextContent('Espere 29 segundos');
    act(() => vi.advanceTimersByTime(28_000));
    expect(alert).toHaveTextContent('Espere 1 segundo e intente');
    act(() => vi.advanceTimersByTime(1_000));
    expect(alert).toHaveTextContent('Ya puede intentar nuevamente.');
  });
});
