import { act, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { StrictMode } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { createQueryClient } from '../../src/api/signin';
import { App } from '../../src/App';
import { createAppAuthMachine } from '../../src/auth/AuthProvider';
import logoUrl from '../../src/assets/logo.svg';
import { resilientStorage } from '../../src/auth/storage';
import { PATHS, settleFirstRoute } from '../../src/routes';
import { VIDEO_SHELL_PLACEHOLDER } from '../../scripts/video-shell';
import { LOGO_SOURCE, indexHtml, staticRootMarkup } from './indexHtml';
import { SIGNIN_URL, server } from './msw';
import { freshSession } from './sessions';

const fragment = (html: string) => {
  const template = document.createElement('template');
  template.innerHTML = html;
  // React also emits resource hints (a preload of the logo) that a browser hoists into <head>.
  for (const hint of [...template.content.children]) if (hint.localName === 'link') hint.remove();
  return template.content;
};

function appAtLogin() {
  window.history.replaceState(null, '', PATHS.login);
  const machine = createAppAuthMachine(resilientStorage());
  return (
    <StrictMode>
      <App machine={machine} queryClient={createQueryClient()} />
    </StrictMode>
  );
}

describe('the login screen shown by index.html before the JavaScript arrives', () => {
  it('is exactly what React renders first for the login screen, node for node', () => {
    const fromReact = fragment(renderToString(appAtLogin()));
    const fromIndexHtml = fragment(staticRootMarkup());
    const serialize = (node: DocumentFragment) =>
      [...node.childNodes].map((child) =>
        child instanceof Element ? child.outerHTML : child.textContent,
      );
    // isEqualNode ignores attribute order, as hydration does; the serialization is for the diff.
    if (!fromReact.isEqualNode(fromIndexHtml)) {
      expect(serialize(fromIndexHtml)).toEqual(serialize(fromReact));
    }
    expect(fromReact.isEqualNode(fromIndexHtml)).toBe(true);
  });

  it('shows the logo inlined, so that the largest paint waits for no request', () => {
    expect(indexHtml).toContain(LOGO_SOURCE);
    expect(logoUrl).toMatch(/^data:image\/svg\+xml[;,]/);
    expect(staticRootMarkup()).toContain(`src="${logoUrl}"`);
  });

  it('has the page language, a title and no inline script or style but the build’s (allowed by hash)', () => {
    expect(indexHtml).toMatch(/<html lang="es">/);
    // The build writes the video shell's script here (scripts/video-shell.ts), and the CSS.
    expect(indexHtml.split(VIDEO_SHELL_PLACEHOLDER)).toHaveLength(2);
    expect(indexHtml).toMatch(/<title>Ingresar — Capacitación silo bolsa<\/title>/);
    const doc = new DOMParser().parseFromString(indexHtml, 'text/html');
    expect([...doc.querySelectorAll('script')].every((script) => script.src !== '')).toBe(true);
    expect(doc.querySelectorAll('style, [style]')).toHaveLength(0);
    expect(doc.querySelector('link[rel="modulepreload"], link[rel="prefetch"]')).toBeNull();
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
    const container = document.createElement('div');
    container.id = 'root';
    container.innerHTML = staticRootMarkup();
    document.body.append(container);
    const staticInput = container.querySelector<HTMLInputElement>('#password')!;
    const staticButton = container.querySelector('button')!;
    expect(staticButton).toBeDisabled();
    staticInput.value = 'escrita antes';

    const recoverable: unknown[] = [];
    const root = await act(async () =>
      hydrateRoot(container, appAtLogin(), {
        onRecoverableError: (error) => recoverable.push(error),
      }),
    );

    expect(recoverable).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Contraseña')).toBe(staticInput);
    expect(staticInput).toHaveValue('escrita antes');
    expect(screen.getByRole('button', { name: 'Ingresar' })).toBe(staticButton);
    expect(staticButton).toBeEnabled();

    await userEvent.setup().click(staticButton);
    expect(await screen.findByText('Error, contraseña incorrecta')).toBeInTheDocument();
    expect(bodies).toEqual([{ form: { usuario: 'capacitacion', contraseña: 'escrita antes' } }]);
    act(() => root.unmount());
    container.remove();
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

  it('is the video for a visitor with a fresh session, whose address is left to the router', () => {
    localStorage.setItem('session', freshSession());
    window.history.replaceState(null, '', '/capacitacion/otra');
    expect(settleFirstRoute(createAppAuthMachine(resilientStorage()))).toBe('video');
    expect(window.location.pathname).toBe('/capacitacion/otra');
  });
});
