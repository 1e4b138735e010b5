/**
 * The video's start as the boot hands it to the app (src/video-start/): what it asks for and
 * when, computed once per start, each file once. The requests are real fetches (answered by
 * MSW); hls.js's chunk is the test's, which records what the start hands it.
 */
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MediaInfo } from '../../config/media-layout';
import { VIDEO_KEY_KEY, memoryStorage, type SessionStorage } from '../../machines/session';
import { config } from '../../src/config';
import type { DownloadRecord } from '../../src/offline/download-store';
import { saveEstimate } from '../../src/screens/video-player/quality';
import type { AttachOptions } from '../../src/video-start/contract';
import { AHEAD_S, runsLow, secondSegmentAt } from '../../src/video-start/link-schedule';
import { mediaRequests } from '../../src/video-start/media-requests';
import { firstRequests, planStart, requestsAhead } from '../../src/video-start/start-plan';
import { createVideoStart } from '../../src/video-start/video-start';
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
const KEY = JSON.stringify({ id: ID, key: btoa('k'.repeat(16)) });

/** A file by its name inside the version folder. */
const named = (url: string) => url.replace(/^.*\/hls\/v\d{14}-\w{8}\//, '');

/** A browser with Media Source, whose start shows its own first frame or leaves it to hls.js. */
const mediaSource = (ownFrame: boolean) =>
  vi.stubGlobal('MediaSource', { isTypeSupported: () => ownFrame });

let fetched: string[];
beforeEach(() => {
  fetched = [];
  server.use(
    http.get('*/api/video/*', ({ request }) => {
      fetched.push(named(request.url));
      return HttpResponse.arrayBuffer(new ArrayBuffer(16));
    }),
  );
});
afterEach(() => vi.unstubAllGlobals());

describe('what the start asks for (start-plan.ts)', () => {
  it("before the signin, an encrypted publish's init and first segment only: never its key or the playlists", () => {
    for (const ownFrame of [true, false]) {
      mediaSource(ownFrame);
      const plan = planStart(info(true), memoryStorage());
      expect(requestsAhead(plan, false).map(named)).toEqual([
        `${ID}-144p/init.mp4`,
        `${ID}-144p/seg00000.m4s`,
      ]);
    }
  });

  it('nothing of a clear publish before the signin: its files need the session', () => {
    mediaSource(true);
    expect(requestsAhead(planStart(info(false), memoryStorage()), false)).toEqual([]);
  });

  it('the key beside the first segment only when none is stored; the playlists beside them only when hls.js shows the first frame', () => {
    mediaSource(true);
    const own = planStart(info(true), memoryStorage());
    expect(firstRequests(own, false).map(named)).toEqual([
      `${ID}-144p/key.bin`,
      `${ID}-144p/init.mp4`,
      `${ID}-144p/seg00000.m4s`,
    ]);
    expect(firstRequests(own, true).map(named)).toEqual([
      `${ID}-144p/init.mp4`,
      `${ID}-144p/seg00000.m4s`,
    ]);
    mediaSource(false);
    const hls = planStart(info(false), memoryStorage());
    expect(firstRequests(hls, false).map(named)).toEqual([
      'master.m3u8',
      `${ID}-144p/index.m3u8`,
      `${ID}-144p/init.mp4`,
      `${ID}-144p/seg00000.m4s`,
    ]);
  });

  it('from the stored position: the segment that holds it', () => {
    mediaSource(true);
    const storage = memoryStorage({ [`videoPosition:${config.videoUrl}`]: '9.5' });
    const plan = planStart(info(false), storage);
    // A 2 s first segment, then 6 s ones: 9.5 s is in the third.
    expect([plan.from, named(plan.first)]).toEqual([9.5, `${ID}-144p/seg00002.m4s`]);
  });
  it("with no signal, the stored copy's rendition when it is this publish's: the estimate's would first fail on the dead link", () => {
    mediaSource(true);
    const ladder: MediaInfo = {
      ...info(true),
      rungs: [144, 240, 360].map((height) => ({
        dir: `${ID}-${height}p`,
        height,
        peakBandwidth: height * 2_000,
        codecs: 'avc1.64000c,mp4a.40.2',
      })),
    };
    // A fast link saved: the estimate alone starts at 360p.
    const storage = memoryStorage();
    saveEstimate(storage, 50_000_000);
    const copy = (dir: string, done = true): DownloadRecord => ({
      kind: 'hls',
      publish: `${ladder.version}/${dir}`,
      height: 240,
      totalBytes: 1,
      storedBytes: 1,
      files: [{ url: `http://localhost/api/video/hls/v/${dir}/index.m3u8`, key: 'k' }],
      finish: { url: 'http://localhost/api/video/hls/v/master.m3u8', contentType: 'x' },
      done,
    });
    const startsAt = (record: DownloadRecord | null) =>
      named(planStart(ladder, storage, record).first);
    expect(startsAt(null)).toBe(`${ID}-360p/seg00000.m4s`);
    expect(startsAt(copy(`${ID}-240p`))).toBe(`${ID}-240p/seg00000.m4s`);
    // Half a download, or another publish's copy, holds nothing this start could use.
    expect(startsAt(copy(`${ID}-240p`, false))).toBe(`${ID}-360p/seg00000.m4s`);
    expect(startsAt(copy('a1b2c3d4-240p'))).toBe(`${ID}-360p/seg00000.m4s`);
  });
});

describe('when the segments after the first may use the link (link-schedule.ts)', () => {
  it("the second once the first's transfer, as estimated, is over", () => {
    expect(secondSegmentAt(1_000, 800)).toBe(1_800);
  });

  it(`the next only while playing with less than ${AHEAD_S} s ahead, counting what is on its way`, () => {
    const at = (paused: boolean, bufferedEnd: number, comingS = 0) =>
      runsLow({ paused, bufferedEnd, currentTime: 3 }, comingS);
    expect(at(false, 3 + AHEAD_S - 0.5)).toBe(true);
    expect(at(false, 3 + AHEAD_S)).toBe(false);
    expect(at(false, 6, AHEAD_S - 2)).toBe(false);
    expect(at(true, 3)).toBe(false);
  });
});

describe('the start the boot hands the app (video-start.ts)', () => {
  /** A start whose hls.js records what it was handed. */
  function startWith(storage: SessionStorage, encrypted = true) {
    const handed: AttachOptions[] = [];
    const start = createVideoStart({
      info: info(encrypted),
      storage,
      loadAdaptive: () =>
        Promise.resolve({
          attachAdaptive: (options: AttachOptions) => {
            handed.push(options);
            return null;
          },
        }),
    });
    return { start, handed };
  }

  it('asks for each file once: what left while the visitor typed and at the signin is what hls.js is handed', async () => {
    mediaSource(false);
    const storage = memoryStorage();
    const { start, handed } = startWith(storage);
    void start.fetchAhead();
    // The machine stores the key from the signin's answer before the video screen shows.
    storage.setItem(VIDEO_KEY_KEY, KEY);
    start.signedIn();
    start.signedIn();
    const video = document.createElement('video');
    const player = start.play(video);
    expect(start.play(video)).toBe(player);
    await player;
    // Without a first frame of its own, the second segment leaves once the first arrives.
    await vi.waitFor(() => expect(fetched).toContain(`${ID}-144p/seg00001.m4s`));
    expect(handed).toHaveLength(1);
    const early = [...handed[0]!.early.keys()].map(named).sort();
    expect(early).toEqual([
      `${ID}-144p/index.m3u8`,
      `${ID}-144p/init.mp4`,
      `${ID}-144p/seg00000.m4s`,
      `${ID}-144p/seg00001.m4s`,
      'master.m3u8',
    ]);
    expect(fetched.sort()).toEqual(early);
    // The stored key answers hls.js's key request; another publish's key URL is the network's.
    expect(await handed[0]!.keyFor!(`/x/${ID}-144p/key.bin`)).toHaveLength(16);
    expect(await handed[0]!.keyFor!('/x/zzzzzzzz-144p/key.bin')).toBeNull();
  });

  it('asks for the key beside the first segment when none is stored, and hands hls.js its bytes', async () => {
    mediaSource(false);
    const { start, handed } = startWith(memoryStorage());
    await start.play(document.createElement('video'));
    expect(fetched).toContain(`${ID}-144p/key.bin`);
    expect(await handed[0]!.keyFor!(`/x/${ID}-144p/key.bin`)).toHaveLength(16);
  });

  it("opens the video with the signin's answer's key before the machine has stored it: no key request", async () => {
    mediaSource(false);
    const { start, handed } = startWith(memoryStorage());
    start.signedIn({ id: ID, key: btoa('k'.repeat(16)) });
    await start.play(document.createElement('video'));
    expect(fetched).not.toContain(`${ID}-144p/key.bin`);
    expect(await handed[0]!.keyFor!(`/x/${ID}-144p/key.bin`)).toHaveLength(16);
  });

  it("settles what it fetched ahead only once the first bytes are in (the boot asks for the video screen's chunk then)", async () => {
    mediaSource(true);
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get('*/api/video/*', async ({ request }) => {
        fetched.push(named(request.url));
        if (request.url.endsWith('seg00000.m4s')) await held;
        return HttpResponse.arrayBuffer(new ArrayBuffer(16));
      }),
    );
    const { start } = startWith(memoryStorage());
    let settled = false;
    void start.fetchAhead().then(() => (settled = true));
    await vi.waitFor(() => expect(fetched).toContain(`${ID}-144p/seg00000.m4s`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    answer();
    await vi.waitFor(() => expect(settled).toBe(true));
    // What it asked ahead goes: at the next test's press it would ask for the second segment.
    start.stop(document.createElement('video'));
  });

  it.each([
    ['a slow link: once the first has come', 50_000, false],
    [
      "a fast link: once the first's transfer as estimated is over, before it has come",
      100_000_000,
      true,
    ],
  ])(
    "at a press, an encrypted publish's second segment leaves beside the signin, %s; each press after asks nothing more",
    async (_link, estimateBps, beforeFirst) => {
      mediaSource(true);
      // Its own publish: the starts of the tests before listen to the press too.
      const own = 'p7q8r9s0';
      const [first, second] = [`${own}-144p/seg00000.m4s`, `${own}-144p/seg00001.m4s`];
      let answer!: () => void;
      const held = new Promise<void>((resolve) => (answer = resolve));
      server.use(
        http.get('*/api/video/*', async ({ request }) => {
          fetched.push(named(request.url));
          if (request.url.endsWith(first)) await held;
          return HttpResponse.arrayBuffer(new ArrayBuffer(16));
        }),
      );
      const storage = memoryStorage();
      saveEstimate(storage, estimateBps);
      const published = info(true);
      const start = createVideoStart({
        info: { ...published, rungs: published.rungs.map((r) => ({ ...r, dir: `${own}-144p` })) },
        storage,
        loadAdaptive: () => Promise.reject(new Error('not in this test')),
      });
      void start.fetchAhead();
      await vi.waitFor(() => expect(fetched).toContain(first));
      const press = () => document.dispatchEvent(new Event('submit'));
      press();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fetched.includes(second)).toBe(beforeFirst);
      answer();
      await vi.waitFor(() => expect(fetched).toContain(second));
      press();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fetched.filter((file) => file === second)).toHaveLength(1);
    },
  );

  it('asks ahead nothing the start has taken: each file once', async () => {
    const requests = mediaRequests();
    const url = 'http://localhost/api/video/taken-once.m4s';
    const asked = () => fetched.filter((file) => file === url);
    await requests.take([url]).get(url);
    await requests.ahead([url]);
    expect(asked()).toHaveLength(1);
    // A new start (the visitor signed in again) may ask for it.
    requests.forget();
    await requests.ahead([url]);
    expect(asked()).toHaveLength(2);
  });

  it('plans again after its video stopped: a second signin starts where the visitor left off', async () => {
    mediaSource(false);
    const storage = memoryStorage({ [VIDEO_KEY_KEY]: KEY });
    const { start } = startWith(storage, false);
    start.signedIn();
    const video = document.createElement('video');
    await start.play(video);
    storage.setItem(`videoPosition:${config.videoUrl}`, '9.5');
    start.stop(video);
    fetched = [];
    start.signedIn();
    await vi.waitFor(() => expect(fetched).toContain(`${ID}-144p/seg00002.m4s`));
    expect(fetched).not.toContain(`${ID}-144p/seg00000.m4s`);
  });

  it('asks nothing ahead where there is no Media Source (native HLS plays the master itself)', async () => {
    const { start } = startWith(memoryStorage({ [VIDEO_KEY_KEY]: KEY }));
    await start.fetchAhead();
    start.signedIn();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetched).toEqual([]);
  });
});
