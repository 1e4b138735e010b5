import { describe, expect, it, vi } from 'vitest';
import { parseFieldReport, type FieldReport } from '../../config/field-report';
import { memoryStorage } from '../../machines/session';
import { createReportQueue, QUEUE_CAP, QUEUE_KEY } from '../../src/field-report/report-queue';
import { createReporter } from '../../src/field-report/reporter';
import { addRange, wholeSeconds } from '../../src/field-report/seen-ranges';
import { randomId, senderOf } from '../../src/field-report/sender';
import { recordView } from '../../src/field-report/view-recorder';

const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; SM-A146M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

/** A <video> whose time, size and state the test sets, and whose events it fires, in order. */
function scriptedVideo() {
  const video = document.createElement('video');
  const state = { currentTime: 0, seeking: false, duration: 24.02, readyState: 0, w: 640, h: 360 };
  const own = (name: string, get: () => unknown) =>
    Object.defineProperty(video, name, { configurable: true, get });
  own('currentTime', () => state.currentTime);
  own('seeking', () => state.seeking);
  own('duration', () => state.duration);
  own('readyState', () => state.readyState);
  own('videoWidth', () => state.w);
  own('videoHeight', () => state.h);
  const fire = (name: string) => video.dispatchEvent(new Event(name));
  return {
    video,
    state,
    fire,
    /** The first frame. */
    frame() {
      state.readyState = 4;
      fire('loadeddata');
    },
    /** Plays from the current time to `to`, a timeupdate every quarter second. */
    playTo(to: number) {
      while (state.currentTime < to - 1e-9) {
        state.currentTime = Math.min(to, state.currentTime + 0.25);
        fire('timeupdate');
      }
    },
    seek(to: number) {
      state.seeking = true;
      fire('seeking');
      state.currentTime = to;
      fire('timeupdate');
      state.seeking = false;
      fire('seeked');
    },
  };
}

const facts = (clock = { now: 0 }) => ({
  timing: () => ({ pressAt: null, firstFrameAt: null }),
  fromCopy: () => false,
  fromWorker: false,
  durationS: null,
  now: () => clock.now,
});

describe('the seconds seen', () => {
  it('join where they touch or overlap, so that a replay counts nothing twice', () => {
    let ranges = addRange([], 0, 5.2);
    ranges = addRange(ranges, 10, 12);
    ranges = addRange(ranges, 2, 6); // a replay over the end of the first
    ranges = addRange(ranges, 6, 10); // touches both
    ranges = addRange(ranges, 20, 21);
    expect(ranges).toEqual([
      [0, 12],
      [20, 21],
    ]);
  });

  it('are sent as whole seconds: a second counts when more than half of it played', () => {
    expect(
      wholeSeconds(
        [
          [0, 5.4],
          [6.6, 8.2],
          [8.4, 9.6], // rounds to [8, 10), which touches [7, 8)
          [12.6, 12.9],
          [20.2, 25], // past the end of the video
        ],
        24.02,
      ),
    ).toEqual([
      [0, 5],
      [7, 10],
      [20, 24],
    ]);
  });

  it('watching 0-5, seeking to 12 and watching to 17 gives exactly those seconds', () => {
    const clip = scriptedVideo();
    const view = recordView(clip.video, facts());
    clip.frame();
    clip.playTo(5);
    clip.seek(12);
    clip.playTo(17);
    const part = view.takePart();
    expect(part?.seen).toEqual([
      [0, 5],
      [12, 17],
    ]);
    expect(part?.seeks).toBe(1);
    expect(part?.renditions).toEqual({ '360p': 10 });
    // The next part holds only what came after.
    clip.playTo(18);
    expect(view.takePart()?.seen).toEqual([[17, 18]]);
  });
});

describe('the stalls', () => {
  it('count a wait for data after the first frame, with its seconds, not a seek or the start', () => {
    const clock = { now: 0 };
    const clip = scriptedVideo();
    const view = recordView(clip.video, facts(clock));
    clip.fire('waiting'); // before the first frame: the start, not a stall
    clip.frame();
    clip.playTo(3);
    clip.fire('waiting');
    clock.now = 2_500;
    clip.fire('playing');
    clip.state.seeking = true;
    clip.fire('seeking');
    clip.fire('waiting'); // waiting for the seek's data: not a stall
    clock.now = 9_000;
    clip.state.seeking = false;
    clip.fire('seeked');
    clip.fire('playing');
    const part = view.takePart();
    expect(part?.stalls).toBe(1);
    expect(part?.stallS).toBe(2.5);
  });

  it('a stall still running when the part is taken counts up to then, and on in the next part', () => {
    const clock = { now: 0 };
    const clip = scriptedVideo();
    const view = recordView(clip.video, facts(clock));
    clip.frame();
    clip.playTo(1);
    clip.fire('waiting');
    clock.now = 1_000;
    expect(view.takePart()).toMatchObject({ stalls: 1, stallS: 1 });
    clock.now = 3_000;
    clip.fire('playing');
    expect(view.takePart()).toMatchObject({ stalls: 0, stallS: 2, part: 1 });
  });
});

function answering(...statuses: number[]) {
  const calls: string[] = [];
  const fetch = vi.fn(async (_url: RequestInfo | URL, init?: RequestInit) => {
    calls.push(String(init?.body));
    const status = statuses.shift() ?? 204;
    if (status === 0) throw new TypeError('Failed to fetch');
    return new Response(null, { status });
  });
  return { fetch, calls };
}

const someReport = (): FieldReport => ({
  format: 1,
  id: randomId(),
  ...senderOf(ANDROID_CHROME),
  kind: 'events',
  events: [{ type: 'vital', name: 'LCP', value: 1200, metric: 'v5-1-2' }],
});

describe('the queue of reports', () => {
  const queueWith = (statuses: number[], online = true, signedIn = true) => {
    const storage = memoryStorage();
    const server = answering(...statuses);
    const queue = createReportQueue({
      url: '/api/reports',
      storage,
      fetch: server.fetch,
      sendBeacon: () => false,
      online: () => online,
      signedIn: () => signedIn,
    });
    return { queue, storage, server };
  };

  it('with no signal sends nothing and keeps every report, in storage', async () => {
    const { queue, storage, server } = queueWith([], false);
    queue.add(someReport());
    expect(await queue.flush()).toBe('offline');
    expect(server.fetch).not.toHaveBeenCalled();
    expect(JSON.parse(storage.getItem(QUEUE_KEY)!)).toHaveLength(1);
  });

  it('with no live session on the phone (signed out, expired) sends nothing and keeps every report', async () => {
    const { queue, server } = queueWith([], true, false);
    const report = someReport();
    queue.add(report);
    expect(await queue.flush()).toBe('refused');
    queue.beacon();
    expect(server.fetch).not.toHaveBeenCalled();
    expect(queue.pending()).toEqual([report]);
  });

  it('stops at a signout made while it sends: the reports after it wait for the next signin', async () => {
    let live = true;
    const storage = memoryStorage();
    const server = answering(204, 204);
    const queue = createReportQueue({
      url: '/api/reports',
      storage,
      fetch: (...args) => {
        live = false;
        return server.fetch(...args);
      },
      sendBeacon: () => false,
      online: () => true,
      signedIn: () => live,
    });
    queue.add(someReport());
    const kept = someReport();
    queue.add(kept);
    expect(await queue.flush()).toBe('refused');
    expect(server.fetch).toHaveBeenCalledTimes(1);
    expect(queue.pending()).toEqual([kept]);
  });

  it('keeps a report the server did not take (a failed request, 401, 429, 503) and drops a stored one', async () => {
    const { queue, server } = queueWith([0, 401, 429, 503, 204]);
    const report = someReport();
    queue.add(report);
    expect(await queue.flush()).toBe('offline');
    expect(await queue.flush()).toBe('refused');
    expect(await queue.flush()).toBe('later');
    expect(await queue.flush()).toBe('later');
    expect(queue.pending()).toEqual([report]);
    expect(await queue.flush()).toBe('sent');
    expect(queue.pending()).toEqual([]);
    // The same report every time: the server stores its id once.
    expect(new Set(server.calls).size).toBe(1);
  });

  it('drops a report the server refuses as invalid (400), and sends the next', async () => {
    const { queue } = queueWith([400, 204]);
    queue.add(someReport());
    queue.add(someReport());
    expect(await queue.flush()).toBe('sent');
    expect(queue.pending()).toEqual([]);
  });

  it(`holds at most ${QUEUE_CAP} reports, dropping the oldest`, () => {
    const { queue } = queueWith([]);
    const reports = Array.from({ length: QUEUE_CAP + 5 }, someReport);
    reports.forEach((report) => queue.add(report));
    expect(queue.pending().map((r) => r.id)).toEqual(reports.slice(5).map((r) => r.id));
  });

  it('on leaving, beacons each report once and keeps it until a flush confirms it', async () => {
    const storage = memoryStorage();
    const beacons: string[] = [];
    const queue = createReportQueue({
      url: '/api/reports',
      storage,
      fetch: answering().fetch,
      sendBeacon: (_url, body) => (beacons.push(body), true),
      online: () => true,
      signedIn: () => true,
    });
    queue.add(someReport());
    queue.beacon();
    queue.beacon();
    expect(beacons).toHaveLength(1);
    expect(queue.pending()).toHaveLength(1);
    expect(await queue.flush()).toBe('sent');
    expect(queue.pending()).toHaveLength(0);
  });
});

describe('the reports the page makes', () => {
  it('pass the server’s own validator (config/field-report.ts), a view and the events alike', async () => {
    const storage = memoryStorage();
    const queue = createReportQueue({
      url: '/api/reports',
      storage,
      fetch: answering().fetch,
      sendBeacon: () => true,
      online: () => false,
    });
    const reporter = createReporter({ queue, sender: senderOf(ANDROID_CHROME), fromWorker: true });
    const clip = scriptedVideo();
    const end = reporter.watch(clip.video, {
      ...facts(),
      timing: () => ({ pressAt: 100, firstFrameAt: 2_340.6 }),
    });
    clip.frame();
    clip.playTo(5);
    clip.fire('waiting');
    clip.fire('playing');
    clip.seek(12);
    clip.playTo(17);
    reporter.event({ type: 'download', outcome: 'finished', rendition: '240p', bytes: 1_234_567 });
    dispatchEvent(new Event('pagehide'));
    clip.playTo(20);
    end();
    const reports = queue.pending();
    expect(reports.map((r) => r.kind).sort()).toEqual(['events', 'view', 'view']);
    for (const report of reports) expect(parseFieldReport(report)).toEqual({ report });
    const [first] = reports.filter((r) => r.kind === 'view');
    expect(first).toMatchObject({ part: 0, firstFrameMs: 2241, fromWorker: true, stalls: 1 });
    // Small: a view's report is a few hundred bytes.
    expect(JSON.stringify(first).length).toBeLessThan(400);
  });

  it('name the browser family, major version and engine, never the user-agent string', () => {
    expect(senderOf(ANDROID_CHROME)).toEqual({
      browser: { family: 'chrome', major: 131, engine: 'blink' },
      device: 'phone',
    });
    expect(
      senderOf(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
      ),
    ).toEqual({ browser: { family: 'chrome', major: 131, engine: 'webkit' }, device: 'phone' });
    expect(
      senderOf('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'),
    ).toEqual({ browser: { family: 'firefox', major: 128, engine: 'gecko' }, device: 'desktop' });
    expect(
      senderOf(
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Safari/605.1.15',
      ),
    ).toEqual({ browser: { family: 'safari', major: 18, engine: 'webkit' }, device: 'desktop' });
  });
});
