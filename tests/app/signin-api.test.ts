import { http, HttpResponse, delay } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_AFTER_S, parseRetryAfter, signin } from '../../src/api/signin';
import { SIGNIN_URL, server } from './msw';

describe('the signin client maps every answer to a typed result', () => {
  it('gives the names from a 200 with empresa and nombres', async () => {
    server.use(
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: 'E', nombres: 'N', x: 1 })),
    );
    expect(await signin('clave')).toEqual({ kind: 'ok', empresa: 'E', nombres: 'N' });
  });

  it('refuses names longer than a stored session may hold, as a failure', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: 'E', nombres: 'N'.repeat(201) })),
    );
    expect(await signin('clave')).toEqual({ kind: 'failed' });
  });

  it('gives up when no answer comes within the signin timeout, and logs it', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(http.post(SIGNIN_URL, () => delay('infinite')));
    expect(await signin('clave', { timeoutMs: 50 })).toEqual({ kind: 'failed' });
    expect(consoleError).toHaveBeenCalledWith(
      expect.stringMatching(/no answer/),
      expect.objectContaining({ name: 'TimeoutError' }),
    );
  });

  it('reads the wait of a 429 from Retry-After', async () => {
    server.use(
      http.post(
        SIGNIN_URL,
        () => new HttpResponse(null, { status: 429, headers: { 'Retry-After': '17' } }),
      ),
    );
    expect(await signin('clave')).toEqual({ kind: 'rateLimited', retryAfterS: 17 });
  });
});

describe('Retry-After', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);

  it('is read as seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter(' 5 ', now)).toBe(5);
  });

  it('is read as an HTTP date, rounded up to whole seconds from now', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:01:30 GMT', now)).toBe(90);
  });

  it('is at least one second', () => {
    expect(parseRetryAfter('0', now)).toBe(1);
    expect(parseRetryAfter('Sun, 22 Nov 2026 11:00:00 GMT', now)).toBe(1);
  });

  it.each([null, '', 'soon', '-3', '1.5', 'Fri, 99 Foo'])(
    'falls back to %s → 60 s when missing or unreadable',
    (header) => {
      expect(parseRetryAfter(header, now)).toBe(DEFAULT_RETRY_AFTER_S);
    },
  );
});

describe("the video's key in the signin's answer", () => {
  it('is passed on with the names, for the machine to store (video-key.ts checks it)', async () => {
    const videoKey = { id: 'k3f9a1c2', key: 'AAECAwQFBgcICQoLDA0ODw==' };
    server.use(
      http.post(SIGNIN_URL, () => HttpResponse.json({ empresa: 'E', nombres: 'N', videoKey })),
    );
    expect(await signin('clave')).toEqual({ kind: 'ok', empresa: 'E', nombres: 'N', videoKey });
  });
});
