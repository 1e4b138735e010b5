import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaInfo } from '../../config/media-layout';
import { VIDEO_KEY_KEY, memoryStorage } from '../../machines/session';
import { startAhead } from '../../src/screens/video-player/video-start';
import { server } from './msw';

const ID = 'k3f9a1c2';
const info = (encrypted: boolean): MediaInfo => ({
  version: `v20261127000000-${ID}`,
  firstSegmentS: 2,
  durationS: 24,
  ...(encrypted ? { encrypted } : {}),
  rungs: [
    { dir: `${ID}-144p`, height: 144, peakBandwidth: 150_000, codecs: 'avc1.64000c,mp4a.40.2' },
  ],
});

/** The files asked ahead, by name inside the version folder. */
const asked = () =>
  [...(window.startAhead?.keys() ?? [])].map((url) => url.replace(/^.*\/hls\/v\d{14}-\w{8}\//, ''));

describe('what the start asks for before the video screen is there', () => {
  beforeEach(() => {
    server.use(http.get('*/api/video/hls/*', () => HttpResponse.arrayBuffer(new ArrayBuffer(16))));
    window.startAhead = undefined;
  });
  afterEach(() => vi.unstubAllGlobals());

  /** A browser with Media Source, whose start shows its own first frame or leaves it to hls.js. */
  const mediaSource = (ownFrame: boolean) =>
    vi.stubGlobal('MediaSource', { isTypeSupported: () => ownFrame });

  it("asks, before the signin, for an encrypted publish's init and first segment only: never its key or the playlists", () => {
    for (const ownFrame of [true, false]) {
      mediaSource(ownFrame);
      window.startAhead = undefined;
      startAhead(info(true), memoryStorage(), false);
      expect(asked()).toEqual([`${ID}-144p/init.mp4`, `${ID}-144p/seg00000.m4s`]);
    }
  });

  it('asks nothing before the signin of a clear publish: its files need the session', () => {
    mediaSource(true);
    startAhead(info(false), memoryStorage(), false);
    expect(asked()).toEqual([]);
  });

  it('adds, once signed in, what the start needs beside them, each once, but never the key (the start asks for it)', () => {
    mediaSource(false);
    const storage = memoryStorage();
    startAhead(info(true), storage, false);
    startAhead(info(true), storage, true);
    expect(asked().sort()).toEqual([
      `${ID}-144p/index.m3u8`,
      `${ID}-144p/init.mp4`,
      `${ID}-144p/seg00000.m4s`,
      'master.m3u8',
    ]);
  });

  it('asks nothing where there is no Media Source (native HLS plays the master itself)', () => {
    startAhead(info(true), memoryStorage({ [VIDEO_KEY_KEY]: '{}' }), true);
    expect(asked()).toEqual([]);
  });
});
