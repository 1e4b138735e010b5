/**
 * The auth machine's generated paths (reports/paths/auth-paths.json), replayed against the app in
 * jsdom: each step is done the way a visitor (or another tab, or the server) would do it, and
 * each step's outcome is checked on the screen and in local storage against the spec's oracle.
 */
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { SESSION_TIMEOUT_EVENT, type AuthError } from '../../machines/auth-machine';
import { SESSION_KEY } from '../../machines/session';
import { config } from '../../src/config';
import { PATHS } from '../../src/routes';
import type { PathEvent, PlainPath } from '../model/model';
import { ERROR_AFTER, expectAfter, type Expected } from '../model/oracle';
import { PATHS_FILE, readPathsFile, writePathsFile } from '../model/paths-file';
import { SIGNIN_URL, countRequests, server } from './msw';
import { otherTabWrites, renderApp } from './render-app';

// tests/app/global-setup.ts writes the file when registered; without it, a fresh clone has none.
if (!existsSync(PATHS_FILE)) writePathsFile();
const paths = readPathsFile();

/** The signin server for one path: each request waits until the next step says how it ends. */
function heldSignin() {
  const waiting: ((response: Response) => void)[] = [];
  server.use(
    http.post(SIGNIN_URL, () => new Promise<Response>((resolve) => waiting.push(resolve))),
  );
  return {
    get waiting() {
      return waiting.length;
    },
    /** Answers the latest request (an earlier one may still hang, overtaken by another tab). */
    answer: (response: Response) => waiting.pop()?.(response),
    answerAll: (response: () => Response) =>
      waiting.splice(0).forEach((resolve) => resolve(response())),
  };
}

const ERROR_TEXT: Record<Exclude<AuthError, 'rateLimited'>, string> = {
  wrongPassword: 'Error, contraseña incorrecta',
  network: 'No se pudo conectar con el servidor. Intente nuevamente.',
};

async function replay(path: PlainPath, pathIndex: number) {
  const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
  const signin = heldSignin();
  let app: ReturnType<typeof renderApp> | undefined;
  let expected: Expected | null = null;
  let shownError: { kind: AuthError; retryAfterS: number } | null = null;
  const variant = pathIndex % 2 === 0;

  const passwordField = () => screen.getByLabelText<HTMLInputElement>('Contraseña');
  const submitButton = () => screen.getByRole('button', { name: 'Ingresar' });

  const perform = async (event: PathEvent, stepIndex: number) => {
    switch (event.type) {
      case 'xstate.init':
        app = renderApp({ route: PATHS.login, seed: path.seed, now: path.nowMs });
        return;
      case 'submit': {
        const before = countRequests('POST', SIGNIN_URL);
        const waitingBefore = signin.waiting;
        await app!.user.clear(passwordField());
        if (event.password) await app!.user.type(passwordField(), event.password);
        // Enter and the button must do the same: alternate between them along the paths.
        if (event.password && stepIndex % 2 === 1) await app!.user.keyboard('{Enter}');
        else await app!.user.click(submitButton());
        if (event.password) {
          await waitFor(() => expect(signin.waiting).toBe(waitingBefore + 1));
        } else {
          // Nothing at all may happen: give a request every chance to show up, then look.
          await act(() => new Promise((resolve) => setTimeout(resolve, 30)));
          expect(countRequests('POST', SIGNIN_URL)).toBe(before);
        }
        return;
      }
      case 'signin.succeeded':
        signin.answer(HttpResponse.json({ empresa: event.empresa, nombres: event.nombres }));
        return;
      case 'signin.rejected':
        // Both ways the spec and the server say "wrong password".
        signin.answer(variant ? new HttpResponse(null, { status: 401 }) : HttpResponse.json(null));
        shownError = { kind: ERROR_AFTER[event.type], retryAfterS: 0 };
        return;
      case 'signin.failed':
        signin.answer(variant ? HttpResponse.error() : new HttpResponse(null, { status: 503 }));
        shownError = { kind: ERROR_AFTER[event.type], retryAfterS: 0 };
        await waitFor(() => expect(consoleError).toHaveBeenCalled());
        return;
      case 'signin.rateLimited':
        signin.answer(
          new HttpResponse(null, {
            status: 429,
            headers: { 'Retry-After': String(event.retryAfterS) },
          }),
        );
        shownError = { kind: ERROR_AFTER[event.type], retryAfterS: event.retryAfterS };
        return;
      case 'logout': {
        const button = await screen.findByRole('button', { name: /^Hola / });
        // The label only changes once the button's width is fixed.
        await waitFor(() => expect(button.style.width).not.toBe(''));
        await app!.user.hover(button);
        await app!.user.click(button);
        return;
      }
      case 'session.refused': {
        server.use(http.head(config.videoUrl, () => new HttpResponse(null, { status: 401 })));
        const video = await waitFor(() => {
          const element = document.querySelector('video[src]');
          expect(element).not.toBeNull();
          return element!;
        });
        fireEvent.error(video);
        return;
      }
      case SESSION_TIMEOUT_EVENT:
        app!.advanceSessionClock(config.sessionTimeoutMs);
        return;
      case 'session.changedElsewhere':
        otherTabWrites(event.value);
        return;
    }
  };

  const expectScreen = async ({ state, stored }: Expected) => {
    await waitFor(() =>
      expect(window.location.pathname).toBe(state === 'loggedIn' ? PATHS.video : PATHS.login),
    );
    if (state === 'loggedIn') {
      const label = `Hola ${stored!.nombres} / ${stored!.empresa}`;
      expect(await screen.findByRole('button', { name: label })).toBeVisible();
      expect(screen.queryByLabelText('Contraseña')).toBeNull();
      return;
    }
    await waitFor(() => {
      const status = screen.getByRole('status');
      const alert = screen.getByRole('alert');
      expect(passwordField()).toBeInTheDocument();
      expect(status).toHaveTextContent(
        state === 'submitting'
          ? 'Cargando...'
          : state === 'expired'
            ? 'Su sesión expiró. Ingrese nuevamente.'
            : /^$/,
      );
      if (state !== 'error') expect(alert).toHaveTextContent(/^$/);
      else if (shownError?.kind === 'rateLimited') {
        expect(alert).toHaveTextContent(
          `Demasiados intentos. Espere ${shownError.retryAfterS} segundos e intente nuevamente.`,
        );
      } else expect(alert).toHaveTextContent(ERROR_TEXT[shownError!.kind]);
    });
  };

  for (const [stepIndex, step] of path.steps.entries()) {
    await perform(step.event, stepIndex);
    expected = expectAfter(expected, step.event, path);
    // The oracle (the spec) and the model (the machine) must agree before the app is judged.
    expect(expected.state).toBe(step.state);
    await expectScreen(expected);
    const stored = localStorage.getItem(SESSION_KEY);
    expect(stored === null ? null : JSON.parse(stored)).toEqual(expected.stored);
  }

  // Requests overtaken by another tab still hang: end them before the app goes away.
  signin.answerAll(() => new HttpResponse(null, { status: 401 }));
  await waitFor(() => expect(app!.queryClient.isMutating()).toBe(0));
  // Errors were silenced for the expected "Signin failed" logs; nothing else may have been said.
  for (const [message] of consoleError.mock.calls)
    expect(String(message)).toMatch(/^Signin failed/);
}

describe('every generated path of the auth machine, replayed in the app as a visitor would', () => {
  it('has paths to replay', () => {
    expect(paths.length).toBeGreaterThan(0);
  });
  paths.forEach((path, index) => {
    it(path.title, () => replay(path, index));
  });
});
