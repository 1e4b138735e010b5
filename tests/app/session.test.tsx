import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PATHS } from '../../src/routes';
import { countRequests, SIGNOUT_URL } from './msw';
import { otherTabWrites, renderApp } from './render-app';
import { EMPRESA, NOMBRES, freshSession, storedSession } from './sessions';

const LABEL = `Hola ${NOMBRES} / ${EMPRESA}`;
const findTopBarButton = (name: string | RegExp = LABEL) => screen.findByRole('button', { name });
const expectLogin = async () => {
  await waitFor(() => expect(window.location.pathname).toBe(PATHS.login));
  expect(await screen.findByLabelText('Contraseña')).toBeInTheDocument();
};

describe('hostile stored sessions', () => {
  it('render HTML and script in nombres and empresa as plain text, never as markup', async () => {
    const nombres = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    const empresa = '<b>Empresa</b> & "Cía"';
    renderApp({ route: PATHS.video, seed: storedSession({ nombres, empresa }) });
    const button = await findTopBarButton(`Hola ${nombres} / ${empresa}`);
    expect(button.textContent).toBe(`Hola ${nombres} / ${empresa}`);
    expect(button.querySelector('*')).toBeNull();
    expect(document.querySelector('img[src="x"], b, main script')).toBeNull();
    expect((window as Window & { __pwned?: number }).__pwned).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"loggedIn":true,'],
    ['JSON null', 'null'],
    ['an array', '[true]'],
    ['a string', '"loggedIn"'],
    ['loggedIn as a string', storedSession({ loggedIn: 'true' })],
    ['nombres as a number', storedSession({ nombres: 42 })],
    ['empresa as an object', storedSession({ empresa: { toString: 'x' } })],
    ['no timestamp', storedSession({ timestamp: undefined })],
    ['a timestamp as a string', storedSession({ timestamp: '1790000000' })],
    ['a timestamp in the future', storedSession({ timestamp: Math.floor(Date.now() / 1000) + 60 })],
    ['a timestamp 7,200 s old', storedSession({ timestamp: Math.floor(Date.now() / 1000) - 7200 })],
    ['a megabyte of nombres', storedSession({ nombres: 'A'.repeat(1_000_000) })],
    ['a 201-character empresa', storedSession({ empresa: 'E'.repeat(201) })],
    ['a __proto__ key', '{"__proto__":{"loggedIn":true},"username":"x"}'],
  ])('treat %s as logged out, and remove it', async (_, seed) => {
    renderApp({ route: PATHS.video, seed });
    await expectLogin();
    expect(screen.queryByRole('button', { name: /^Hola / })).toBeNull();
    await waitFor(() => expect(localStorage.getItem('session')).toBeNull());
  });
});

describe('the session timer', () => {
  it('ends the session after 72,000,000 ms: the login says it expired, and the server is told', async () => {
    const { advanceSessionClock } = renderApp({ route: PATHS.video, seed: freshSession() });
    await findTopBarButton();
    advanceSessionClock(71_999_999);
    expect(window.location.pathname).toBe(PATHS.video);
    advanceSessionClock(1);
    await expectLogin();
    expect(screen.getByRole('status')).toHaveTextContent('Su sesión expiró. Ingrese nuevamente.');
    expect(localStorage.getItem('session')).toBeNull();
    await waitFor(() => expect(countRequests('POST', SIGNOUT_URL)).toBe(1));
  });
});

describe('several tabs', () => {
  it('a login in another tab lets this one in', async () => {
    renderApp();
    await screen.findByLabelText('Contraseña');
    otherTabWrites(freshSession());
    await waitFor(() => expect(window.location.pathname).toBe(PATHS.video));
    expect(await findTopBarButton()).toBeInTheDocument();
  });

  it('a logout in another tab logs this one out too, without a second signout', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    await findTopBarButton();
    otherTabWrites(null);
    await expectLogin();
    expect(screen.getByRole('status')).toHaveTextContent(/^$/);
    expect(countRequests('POST', SIGNOUT_URL)).toBe(0);
  });

  it('clearing all storage in another tab logs this one out', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    await findTopBarButton();
    localStorage.clear();
    window.dispatchEvent(new StorageEvent('storage', { key: null }));
    await expectLogin();
  });

  it('another tab logging in as someone else updates the top bar', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    await findTopBarButton();
    otherTabWrites(storedSession({ nombres: 'Otra Persona', empresa: 'Otra Empresa' }));
    expect(await findTopBarButton('Hola Otra Persona / Otra Empresa')).toBeInTheDocument();
  });

  it('changes to other keys in another tab change nothing', async () => {
    renderApp({ route: PATHS.video, seed: freshSession() });
    await findTopBarButton();
    act(() => {
      window.dispatchEvent(new StorageEvent('storage', { key: 'other', newValue: null }));
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(window.location.pathname).toBe(PATHS.video);
    expect(screen.getByRole('button', { name: LABEL })).toBeInTheDocument();
  });

  it.each([
    ['a stale session', storedSession({ timestamp: Math.floor(Date.now() / 1000) - 7200 })],
    ['a malformed session', '{"loggedIn":true'],
    ['a session with HTML too long to be a name', storedSession({ nombres: '<b>'.repeat(100) })],
  ])('%s written by another tab does not let this one in', async (_, value) => {
    renderApp();
    await screen.findByLabelText('Contraseña');
    otherTabWrites(value);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(window.location.pathname).toBe(PATHS.login);
    expect(screen.queryByRole('button', { name: /^Hola / })).toBeNull();
  });
});
