import { act, screen, waitFor } from '@testing-library/react';
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
it('sends a password submitted before the signin code arrived as soon as it does, once', async () => {
  const load = vi.mocked(loader.loadSigninMutation);
  const actual = load.getMockImplementation()!;
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  load.mockImplementationOnce(() => held.then(actual));
  const { user } = renderApp({
    handlers: [
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: EMPRESA, nombres: NOMBRES })),
    ],
  });
  await user.type(screen.getByLabelText('Contraseña'), 'rápida{Enter}');
  await user.keyboard('{Enter}');
  expect(screen.getByRole('status')).toHaveTextContent('Cargando...');
  await act(() => new Promise((resolve) => setTimeout(resolve, 30)));
  expect(countRequests('POST', SIGNIN_URL)).toBe(0);

  await act(async () => release());
  await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
  expect(countRequests('POST', SIGNIN_URL)).toBe(1);
  expect(load).toHaveBeenCalledOnce();
});
