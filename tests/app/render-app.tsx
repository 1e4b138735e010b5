import { act, fireEvent, render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RequestHandler } from 'msw';
import { onTestFinished, vi } from 'vitest';
import { SimulatedClock } from 'xstate';
import { SESSION_KEY } from '../../machines/session';
import { createQueryClient } from '../../src/api/signin';
import { App } from '../../src/app';
import { createAppAuthMachine } from '../../src/auth/auth-provider';
import { resilientStorage } from '../../src/auth/storage';
import { ownHandoff } from '../../src/boot/own-handoff';
import type { AppChunks } from '../../src/chunks';
import { PATHS } from '../../src/routes';
import { server } from './msw';

export interface RenderAppOptions {
  /** The address the visitor opens; the login by default. */
  route?: string;
  /** The raw `session` value in local storage before the app starts (null: none). */
  seed?: string | null;
  /** Fixes Date.now() at this instant for the whole test. */
  now?: number;
  handlers?: RequestHandler[];
  /** Where React renders: index.html's #root, say; a fresh element by default. */
  container?: HTMLElement;
  /** The app's lazy chunks, with loaders the test observes; the real ones by default. */
  chunks?: AppChunks;
}

/**
 * The app as main.tsx builds it, in jsdom: the real machine, router and providers, a fresh
 * QueryClient, and a simulated clock for the session timer (72,000,000 ms do not pass in a test).
 */
export function renderApp({
  route = PATHS.login,
  seed = null,
  now,
  handlers = [],
  container,
  chunks,
}: RenderAppOptions = {}) {
  // Only Date: timers stay real so that Testing Library's waiting and MSW work as usual.
  if (now !== undefined) vi.useFakeTimers({ now, toFake: ['Date'] });
  if (seed !== null) localStorage.setItem(SESSION_KEY, seed);
  server.use(...handlers);
  window.history.replaceState(null, '', route);

  const clock = new SimulatedClock();
  clock.set(Date.now());
  const queryClient = createQueryClient();
  // No pause between keystrokes: nothing in the app depends on typing speed.
  const user = userEvent.setup({ delay: null });
  const result = render(
    <App
      machine={createAppAuthMachine(resilientStorage())}
      handoff={ownHandoff()}
      queryClient={queryClient}
      chunks={chunks}
      actorOptions={{ clock }}
    />,
    container ? { container } : {},
  );
  onTestFinished(() => {
    queryClient.clear();
  });
  return {
    ...result,
    user,
    queryClient,
    /** Lets the session timer's time pass. */
    advanceSessionClock: (ms: number) => act(() => clock.increment(ms)),
  };
}

/** What another tab does when it logs in or out: write local storage, which fires `storage` here. */
export function otherTabWrites(value: string | null) {
  const oldValue = localStorage.getItem(SESSION_KEY);
  if (value === null) localStorage.removeItem(SESSION_KEY);
  else localStorage.setItem(SESSION_KEY, value);
  act(() => {
    window.dispatchEvent(
      new StorageEvent('storage', { key: SESSION_KEY, newValue: value, oldValue }),
    );
  });
}

/**
 * The video shows its first frame, as a browser reports it: readyState first, then loadeddata
 * (an effect that starts after the event reads the state; jsdom has no media pipeline).
 */
export function showFirstFrame(video: HTMLVideoElement) {
  Object.defineProperty(video, 'readyState', {
    configurable: true,
    value: HTMLMediaElement.HAVE_CURRENT_DATA,
  });
  fireEvent(video, new Event('loadeddata'));
}
