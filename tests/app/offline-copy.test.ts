import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../../machines/session';
import {
  SERVER_SESSION_KEY,
  endPendingSignout,
  endServerSession,
  markServerSession,
} from '../../src/auth/server-session';
import { rewritePlaylist } from '../../src/offline/copy-source';
import type { DownloadRecord } from '../../src/offline/download-store';
import {
  COPY_NOTE_KEY,
  copyDays,
  copyStatus,
  copyUntil,
  readNote,
  settleCopy,
  takeEndedMessage,
  untilText,
  writeNote,
} from '../../src/offline/offline-copy';
import { signin } from '../../src/api/signin';
import { SIGNIN_URL, SIGNOUT_URL, countRequests, server } from './msw';

const DAY_MS = 86_400_000;
const DONE_AT = Date.UTC(2026, 10, 26, 15, 0);

const record = (fields: Partial<DownloadRecord>): DownloadRecord => ({
  kind: 'hls',
  publish: 'v1/k3f9a1c2-360p',
  height: 360,
  totalBytes: 10,
  storedBytes: 10,
  files: [],
  finish: { url: 'https://site.test/master.m3u8', contentType: 'x' },
  done: true,
  ...fields,
});

describe("the copy's own period", () => {
  it('reads the days the server wrote on the page; nothing or nonsense is 0', () => {
    const root = document.createElement('html');
    expect(copyDays(root)).toBe(0);
    root.setAttribute('data-offline-copy-days', '7');
    expect(copyDays(root)).toBe(7);
    for (const wrong of ['0', '-3', '1.5', 'siete', ''])
      expect(copyDays((root.setAttribute('data-offline-copy-days', wrong), root))).toBe(0);
  });

  it('counts the period from the end of the download; 0 days ends it with the session', () => {
    expect(copyUntil(DONE_AT, 7)).toBe(DONE_AT + 7 * DAY_MS);
    expect(copyUntil(DONE_AT, 0)).toBeNull();
  });

  it('tells a live copy from an expired one, to the millisecond', () => {
    const until = DONE_AT + 7 * DAY_MS;
    expect(copyStatus(null, DONE_AT)).toBe('none');
    expect(copyStatus(record({ done: false, until }), DONE_AT)).toBe('unfinished');
    expect(copyStatus(record({ until: null }), DONE_AT)).toBe('sessionOnly');
    // A copy stored before it had a period of its own.
    expect(copyStatus(record({}), DONE_AT)).toBe('sessionOnly');
    expect(copyStatus(record({ until }), until - 1)).toBe('live');
    expect(copyStatus(record({ until }), until)).toBe('expired');
  });

  it('says the date in Spanish, with the year only when it is not this one', () => {
    const until = Date.UTC(2026, 11, 3, 15);
    expect(untilText(until, DONE_AT)).toBe('3 de diciembre');
    expect(untilText(Date.UTC(2027, 0, 2, 15), DONE_AT)).toBe('2 de enero de 2027');
  });
});

describe('what the phone says of a copy that went', () => {
  it('says an expired copy once, with its date', () => {
    const storage = memoryStorage();
    writeNote(storage, { until: Date.UTC(2026, 11, 3, 15), ended: 'expired' });
    expect(takeEndedMessage(storage)).toBe(
      'La copia del video guardada en este teléfono venció el 3 de diciembre y se borró.',
    );
    expect(takeEndedMessage(storage)).toBeNull();
  });

  it('says an evicted copy as gone, never as a broken player', () => {
    const storage = memoryStorage();
    writeNote(storage, { until: DONE_AT, ended: 'evicted' });
    expect(takeEndedMessage(storage)).toMatch(/ya no está: el navegador la borró/);
  });

  it('says nothing of a live copy, and survives a broken note', () => {
    const storage = memoryStorage();
    writeNote(storage, { until: DONE_AT });
    expect(takeEndedMessage(storage)).toBeNull();
    expect(readNote(storage)).toEqual({ until: DONE_AT });
    storage.setItem(COPY_NOTE_KEY, '{not json');
    expect(readNote(storage)).toBeNull();
    expect(takeEndedMessage(storage)).toBeNull();
  });
});

describe('a copy gone without the page knowing', () => {
  it('is said expired past its period (the worker deleted it), else evicted', async () => {
    // No Cache Storage here: nothing is stored, as after the worker's or the browser's deletion.
    const storage = memoryStorage();
    writeNote(storage, { until: DONE_AT });
    await settleCopy(storage, { loggedIn: false, nowMs: DONE_AT });
    expect(readNote(storage)).toEqual({ until: DONE_AT, ended: 'expired' });
    writeNote(storage, { until: DONE_AT });
    await settleCopy(storage, { loggedIn: true, nowMs: DONE_AT - 1 });
    expect(readNote(storage)).toEqual({ until: DONE_AT, ended: 'evicted' });
  });
});

describe('the copy played from the phone: its playlists name its stored files', () => {
  it('replaces every segment and the init segment, resolved against the playlist', () => {
    const playlist = [
      '#EXTM3U',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:2.0,',
      'seg00000.m4s',
      '#EXTINF:6.0,',
      'https://site.test/hls/other/seg00001.m4s',
      '#EXT-X-ENDLIST',
    ].join('\n');
    const seen: string[] = [];
    const text = rewritePlaylist(playlist, 'https://site.test/hls/k-360p/index.m3u8', (url) => {
      seen.push(url);
      return `blob:${seen.length}`;
    });
    expect(seen).toEqual([
      'https://site.test/hls/k-360p/init.mp4',
      'https://site.test/hls/k-360p/seg00000.m4s',
      'https://site.test/hls/other/seg00001.m4s',
    ]);
    expect(text.split('\n')).toEqual([
      '#EXTM3U',
      '#EXT-X-MAP:URI="blob:1"',
      '#EXTINF:2.0,',
      'blob:2',
      '#EXTINF:6.0,',
      'blob:3',
      '#EXT-X-ENDLIST',
    ]);
  });
});

describe('a signout the server has not heard yet', () => {
  it('is sent at once and forgotten when the server answers', async () => {
    const storage = memoryStorage();
    markServerSession(storage);
    const before = countRequests('POST', SIGNOUT_URL);
    await endServerSession(storage);
    expect(countRequests('POST', SIGNOUT_URL)).toBe(before + 1);
    expect(storage.getItem(SERVER_SESSION_KEY)).toBeNull();
  });

  it('stays owed with no network, and is sent by the next chance', async () => {
    const storage = memoryStorage();
    server.use(http.post(SIGNOUT_URL, () => HttpResponse.error(), { once: true }));
    await endServerSession(storage);
    expect(storage.getItem(SERVER_SESSION_KEY)).toBe('ending');
    await endPendingSignout(storage);
    expect(storage.getItem(SERVER_SESSION_KEY)).toBeNull();
  });

  it('stays owed when the answer is not the server ending it (a 429, a 5xx)', async () => {
    const storage = memoryStorage();
    for (const status of [429, 503]) {
      server.use(http.post(SIGNOUT_URL, () => new HttpResponse(null, { status }), { once: true }));
      await endServerSession(storage);
      expect(storage.getItem(SERVER_SESSION_KEY)).toBe('ending');
    }
  });

  it('ends a session the server may hold for this phone, not one this page made; with none known, asks nothing', async () => {
    const storage = memoryStorage();
    const before = countRequests('POST', SIGNOUT_URL);
    await endPendingSignout(storage);
    expect(countRequests('POST', SIGNOUT_URL)).toBe(before);
    markServerSession(storage, 2_000);
    await endPendingSignout(storage, 1_000);
    expect(countRequests('POST', SIGNOUT_URL)).toBe(before);
    expect(storage.getItem(SERVER_SESSION_KEY)).toBe('live:2000');
    await endPendingSignout(storage, 3_000);
    expect(countRequests('POST', SIGNOUT_URL)).toBe(before + 1);
    expect(storage.getItem(SERVER_SESSION_KEY)).toBeNull();
  });

  it("holds a signin until a signout on its way is answered, and marks the signin's session", async () => {
    const storage = memoryStorage();
    let signoutAnswered = false;
    let signinSawAnswered: boolean | null = null;
    server.use(
      http.post(SIGNOUT_URL, async () => {
        await delay(50);
        signoutAnswered = true;
        return new HttpResponse(null, { status: 204 });
      }),
      http.post(SIGNIN_URL, () => {
        signinSawAnswered = signoutAnswered;
        return HttpResponse.json({ empresa: 'E', nombres: 'N' });
      }),
    );
    void endServerSession(storage);
    expect(await signin('clave')).toEqual({ kind: 'ok', empresa: 'E', nombres: 'N' });
    expect(signinSawAnswered).toBe(true);
    expect(localStorage.getItem(SERVER_SESSION_KEY)).toMatch(/^live:\d+$/);
  });
});
