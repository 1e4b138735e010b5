import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { requests, server } from './msw';

// The whole suite runs in parallel with CPU-heavy server tests (scrypt): waits get some slack.
configure({ asyncUtilTimeout: 5_000 });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
  requests.length = 0;
  localStorage.clear();
  vi.useRealTimers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

/**
 * jsdom has no media pipeline: play(), pause() and load() only log "not implemented". These
 * stand-ins keep `paused` and fire the events a browser would, which is all the app reads.
 */
const paused = new WeakMap<HTMLMediaElement, boolean>();
Object.defineProperty(HTMLMediaElement.prototype, 'paused', {
  configurable: true,
  get(this: HTMLMediaElement) {
    return paused.get(this) ?? true;
  },
});
HTMLMediaElement.prototype.play = function play(this: HTMLMediaElement) {
  paused.set(this, false);
  this.dispatchEvent(new Event('play'));
  return Promise.resolve();
};
HTMLMediaElement.prototype.pause = function pause(this: HTMLMediaElement) {
  paused.set(this, true);
  this.dispatchEvent(new Event('pause'));
};
HTMLMediaElement.prototype.load = function load() {};
