import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { expect, it, vi } from 'vitest';
import { PATHS } from '../../src/routes';
import * as loader from '../../src/screens/Login/loadSigninMutation';
import { SIGNIN_URL, countRequests } from './msw';
import { renderApp } from './renderApp';
import { EMPRESA, NOMBRES } from './sessions';

vi.mock('../../src/screens/Login/loadSigninMutation', async (importOriginal) => {
  const actual = await importOriginal<typeof loader>();
  return { loadSigninMutation: vi.fn(actual.loadSigninMutation) };
});

// One test per file: once loaded, the chunk stays loaded for the page (the module).
it('shows the connection message when the signin code cannot be loaded, and loads it again at the next submit', async () => {
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
  const load = vi.mocked(loader.loadSigninMutation);
  load.mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'));
  const { user } = renderApp({
    handlers: [
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
    ],
  });
  await user.type(screen.getByLabelText('Contraseña'), 'clave{Enter}');
  expect(await screen.findByRole('alert')).toHaveTextContent(
    'No se pudo conectar con el servidor. Intente nuevamente.',
  );
  expect(consoleError).toHaveBeenCalledWith(
    expect.stringMatching(/^Signin failed/),
    expect.any(TypeError),
  );
  expect(countRequests('POST', SIGNIN_URL)).toBe(0);

  await user.click(screen.getByRole('button', { name: 'Ingresar' }));
  await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
  expect(load).toHaveBeenCalledTimes(2);
  expect(countRequests('POST', SIGNIN_URL)).toBe(1);
});
