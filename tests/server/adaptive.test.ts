import type { FastifyInstance } from 'fastify';
import { spawnSync } from 'node:child_process';
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import {
  FIRST_SEGMENT_S,
  KEY_FILE,
  PUBLISHED,
  SEGMENT_S,
  segmentName,
  type Manifest,
} from '../../config/media-layout.js';
import {
  boxes,
  firstFragmentBytes,
  splitFragments,
  type Box,
} from '../../scripts/ops/fragments.js';
import {
  FIRST_FRAGMENT_S,
  PrepareError,
  planLadder,
  prepareVideo,
} from '../../scripts/ops/prepare-video.js';
import { publishTestClip } from '../../scripts/test-support/test-clip.js';
import { clearSegment, setEncrypted } from './encryption.js';
import {
  REPO,
  SIGNOUT,
  expectNoLeak,
  listen,
  rawRequest,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

/** One 8 s clip (two segments per rendition) published once for the whole file, with chapters. */
const CHAPTERS = '00:00 Inicio\n00:04 Cierre de la bolsa\n';
let dir: string;
/** The version folder the publish is in, inside `dir`. */
let served: string;
let manifest: Manifest;
beforeAll(async () => {
  const chapters = join(REPO, 'reports', `chapters-${process.pid}.txt`);
  mkdirSync(dirname(chapters), { recursive: true });
  writeFileSync(chapters, CHAPTERS);
  ({ dir, manifest } = await publishTestClip(8, { chapters }));
  served = join(dir, manifest.version);
  rmSync(chapters);
}, 60_000);
afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));

const top = () => manifest.rungs[0]!;
/** A segment's encoded bytes (segments are stored encrypted). */
const segment = (rung: string, name: string) => clearSegment(dir, served, rung, name);
const segmentsOf = (rung: string) =>
  readdirSync(join(served, rung))
    .filter((name) => name.endsWith('.m4s'))
    .sort();

/** The top-level boxes' types of an MP4 file, in order. */
function topBoxes(data: Buffer): string[] {
  const types: string[] = [];
  for (let at = 0; at + 8 <= data.length; at += data.readUInt32BE(at))
    types.push(data.toString('latin1', at + 4, at + 8));
  return types;
}

/** Each packet ffprobe reads in `file`: stream, times, size and flags. */
function packets(file: string) {
  const csv = spawnSync(
    'ffprobe',
    [
      ...['-v', 'error', '-show_entries', 'packet=stream_index,pts_time,dts_time,size,flags'],
      ...['-of', 'csv=p=0', file],
    ],
    { encoding: 'utf8' },
  ).stdout;
  return csv
    .trim()
    .split('\n')
    .map((line) => {
      const [stream, pts, dts, size, flags] = line.split(',');
      return { stream, pts: Number(pts), dts: Number(dts), size: Number(size), flags };
    });
}

describe('prepare-video', () => {
  it('publishes a ladder that never upscales and keeps the shape, with a fallback, a poster and captions', () => {
    expect(manifest.rungs.map((r) => `${r.width}x${r.height}`)).toEqual([
      '640x360',
      '426x240',
      '256x144',
    ]);
    for (const rung of manifest.rungs) {
      expect(rung.averageBandwidth).toBeGreaterThan(0);
      expect(rung.peakBandwidth).toBeGreaterThanOrEqual(rung.averageBandwidth);
      expect(readFileSync(join(served, rung.dir, 'index.m3u8'), 'utf8')).toContain(
        '#EXT-X-ENDLIST',
      );
    }
    const master = readFileSync(join(served, PUBLISHED.master), 'utf8');
    for (const rung of manifest.rungs)
      expect(master).toContain(
        `BANDWIDTH=${rung.peakBandwidth},AVERAGE-BANDWIDTH=${rung.averageBandwidth},RESOLUTION=${rung.width}x${rung.height}`,
      );
    expect(master).toMatch(/CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2"/);
    expect(readFileSync(join(served, PUBLISHED.captions), 'utf8')).toMatch(/^WEBVTT/);
    expect(readFileSync(join(served, PUBLISHED.poster)).subarray(0, 2).toString('hex')).toBe(
      'ffd8',
    );
  });

  it('cuts a 2 s first segment and 6 s ones after it from one encode, each playable in turn', () => {
    expect(manifest.firstSegmentS).toBe(FIRST_SEGMENT_S);
    for (const rung of manifest.rungs) {
      const playlist = readFileSync(join(served, rung.dir, 'index.m3u8'), 'utf8');
      const seconds = [...playlist.matchAll(/#EXTINF:([\d.]+),/g)].map((m) => Number(m[1]));
      // The 8 s clip: 2 s, then 6 s.
      expect(seconds.map((s) => Math.round(s))).toEqual([FIRST_SEGMENT_S, SEGMENT_S]);
      expect(playlist).toContain(`#EXT-X-TARGETDURATION:${SEGMENT_S}`);
      expect(segmentsOf(rung.dir)).toEqual([segmentName(0), segmentName(1)]);
      // init + the joined segments decode whole: ffmpeg reads them as one file.
      const joined = join(dirname(dir), `${rung.dir}.mp4`);
      writeFileSync(
        joined,
        Buffer.concat([
          readFileSync(join(served, rung.dir, 'init.mp4')),
          ...segmentsOf(rung.dir).map((name) => segment(rung.dir, name)),
        ]),
      );
      const probe = spawnSync(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', joined],
        { encoding: 'utf8' },
      );
      expect(Number(probe.stdout)).toBeCloseTo(8, 0);
    }
  });

  it("starts each segment's pictures on its boundary and runs its audio to the next: where Chromium's buffer ends, hls.js finds the next segment, not this one again", () => {
    const inside = (data: Buffer, parent: Box, path: string[]): Box[] =>
      path.reduce<Box[]>(
        (found, type) =>
          found.flatMap((b) => boxes(data, b.start + 8, b.end).filter((c) => c.type === type)),
        [parent],
      );
    const whole = (data: Buffer): Box => ({ type: '', start: -8, end: data.length });
    for (const rung of manifest.rungs) {
      const init = readFileSync(join(served, rung.dir, 'init.mp4'));
      // Per track id: its handler, timescale and edit list (one entry: media_time).
      const tracks = new Map(
        inside(init, whole(init), ['moov', 'trak']).map((trak) => {
          const [tkhd] = inside(init, trak, ['tkhd']);
          const [mdhd] = inside(init, trak, ['mdia', 'mdhd']);
          const [hdlr] = inside(init, trak, ['mdia', 'hdlr']);
          const [elst] = inside(init, trak, ['edts', 'elst']);
          // Version 0 entries (duration, media_time, rate): the time before the track starts
          // (empty entries, media_time -1) and where in its media it starts.
          const entries = Array.from({ length: init.readUInt32BE(elst!.start + 12) }, (_, i) => ({
            duration: init.readUInt32BE(elst!.start + 16 + 12 * i),
            media: init.readInt32BE(elst!.start + 20 + 12 * i),
          }));
          const empty = entries.filter((e) => e.media === -1);
          expect(
            empty.map((e) => e.duration),
            'nothing before the track',
          ).toEqual(empty.map(() => 0));
          return [
            init.readUInt32BE(tkhd!.start + 20),
            {
              sound: init.toString('latin1', hdlr!.start + 16, hdlr!.start + 20) === 'soun',
              timescale: init.readUInt32BE(mdhd!.start + 20),
              edit: entries.find((e) => e.media !== -1)!.media,
            },
          ] as const;
        }),
      );
      // Both tracks from the start of their media: the pictures at their decode time, the audio
      // as encoded (its 21 ms of priming in front).
      expect([...tracks.values()].map((t) => t.edit)).toEqual([0, 0]);
      const playlist = readFileSync(join(served, rung.dir, 'index.m3u8'), 'utf8');
      const durations = playlist
        .match(/#EXTINF:([\d.]+),/g)!
        .map((tag) => Number(tag.slice(8, -1)));
      let boundary = 0;
      for (const [i, name] of segmentsOf(rung.dir).entries()) {
        const data = segment(rung.dir, name);
        const [moof] = boxes(data).filter((b) => b.type === 'moof');
        for (const traf of inside(data, moof!, ['traf'])) {
          const [tfhd, tfdt, trun] = ['tfhd', 'tfdt', 'trun'].map(
            (t) => inside(data, traf, [t])[0]!,
          );
          const track = tracks.get(data.readUInt32BE(tfhd!.start + 12))!;
          const wide = data.readUInt8(tfdt!.start + 8) === 1;
          const decode = Number(
            wide ? data.readBigUInt64BE(tfdt!.start + 12) : data.readUInt32BE(tfdt!.start + 12),
          );
          const start = (decode - track.edit) / track.timescale;
          if (track.sound) {
            // The audio before it reached this boundary: the buffered end is the pictures'.
            if (i > 0) expect(start, `${rung.dir} ${name} audio`).toBeGreaterThanOrEqual(boundary);
            continue;
          }
          // The keyframe is shown at its decode time (composition offset 0), on the boundary.
          const flags = data.readUInt32BE(trun!.start + 8) & 0xffffff;
          let at = trun!.start + 16 + (flags & 0x1 ? 4 : 0) + (flags & 0x4 ? 4 : 0);
          at += 4 * [0x100, 0x200, 0x400].filter((f) => flags & f).length;
          const offset = flags & 0x800 ? data.readInt32BE(at) : 0;
          expect(start + offset / track.timescale, `${rung.dir} ${name} pictures`).toBeCloseTo(
            boundary,
            5,
          );
        }
        boundary += durations[i]!;
      }
    }
  });

  it('cuts the first segment into 0.25 s fragments, the first decoding alone after init', () => {
    for (const rung of manifest.rungs) {
      const first = segment(rung.dir, segmentName(0));
      const moofs = topBoxes(first).filter((type) => type === 'moof');
      expect(moofs).toHaveLength(FIRST_SEGMENT_S / FIRST_FRAGMENT_S);
      // Alone after init, the first fragment decodes: a keyframe first, then its 0.25 s.
      const head = join(dirname(dir), `${rung.dir}-head.mp4`);
      writeFileSync(
        head,
        Buffer.concat([
          readFileSync(join(served, rung.dir, 'init.mp4')),
          first.subarray(0, firstFragmentBytes(first)),
        ]),
      );
      const frames = packets(head).filter((p) => p.stream === '0');
      expect(frames[0]!.flags).toMatch(/^K/);
      // 0.25 s of frames, cut by decode time: with B-frames the last may show 2 frames later.
      const shown = frames.map((f) => f.pts);
      expect(Math.max(...shown) - Math.min(...shown)).toBeLessThan(FIRST_FRAGMENT_S + 0.1);
    }
  });

  it('cuts a piece into fragments that hold every sample it had, and nothing else', () => {
    // ffmpeg's own 2 s single-fragment MP4 of the publish's fallback, cut in four.
    const whole = join(dirname(dir), 'whole.mp4');
    const cut = join(dirname(dir), 'cut.mp4');
    const made = spawnSync('ffmpeg', [
      ...['-v', 'error', '-y', '-i', join(served, PUBLISHED.fallback), '-t', '2', '-c', 'copy'],
      ...['-movflags', '+frag_custom+empty_moov+default_base_moof', '-f', 'mp4', whole],
    ]);
    expect(made.status).toBe(0);
    expect(topBoxes(readFileSync(whole)).filter((type) => type === 'moof')).toHaveLength(1);
    writeFileSync(cut, splitFragments(readFileSync(whole), 4));
    expect(topBoxes(readFileSync(cut)).filter((type) => type === 'moof')).toHaveLength(4);
    const sorted = (file: string) =>
      packets(file)
        .map((p) => JSON.stringify(p))
        .sort();
    expect(sorted(cut)).toEqual(sorted(whole));
    expect(sorted(cut).length).toBeGreaterThan(50);
    const frames = (file: string) =>
      spawnSync('ffmpeg', ['-v', 'error', '-i', file, '-map', '0', '-f', 'framemd5', '-'], {
        encoding: 'utf8',
      }).stdout;
    expect(frames(cut)).toEqual(frames(whole));
    // What it does not know it leaves as it is: a segment of several fragments, or not an MP4.
    const later = segment(top().dir, segmentName(1));
    expect(splitFragments(later, 4)).toBe(later);
    const text = Buffer.from('not an mp4 at all');
    expect(splitFragments(text, 4)).toBe(text);
  });

  it('plans portrait and small sources without upscaling', () => {
    expect(planLadder(1080, 1920).map((r) => `${r.width}x${r.height}`)).toEqual([
      '1080x1920',
      '720x1280',
      '480x854',
      '360x640',
      '240x426',
      '144x256',
    ]);
    expect(planLadder(1440, 1080)[0]).toMatchObject({ width: 1440, height: 1080 });
    expect(planLadder(160, 120).map((r) => `${r.width}x${r.height}`)).toEqual(['160x120']);
  });

  it('refuses a file ffmpeg cannot read with a clear message and changes nothing', async () => {
    const bad = join(dirname(dir), 'broken.mp4');
    writeFileSync(bad, 'this is not a video');
    const before = readdirSync(dir).sort();
    const master = readFileSync(join(served, PUBLISHED.master));
    await expect(prepareVideo(bad, dir)).rejects.toThrow(PrepareError);
    await expect(prepareVideo(bad, dir)).rejects.toThrow(/cannot read .*Nothing was changed/);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readFileSync(join(served, PUBLISHED.master)).equals(master)).toBe(true);
  });
});

describe('the adaptive video through a real port (MEDIA_DIR)', () => {
  let app: FastifyInstance;
  let base: string;
  let cookie: string;
  const get = (path: string, headers: Record<string, string> = {}) =>
    rawRequest(base, path, { headers: { cookie, ...headers } });

  beforeAll(async () => {
    // As prepare-video publishes: encrypted (made so here if it has not yet).
    setEncrypted(dir, served, true);
    app = await testServer({ MEDIA_DIR: dir });
    base = await listen(app);
    cookie = sessionCookie((await signin(app)).headers['set-cookie']);
  });
  afterAll(() => app.close());

  /** What only a session gets: the key, the playlists, everything that is not a segment. */
  const gated = () => [
    `/api/video/hls/${top().dir}/${KEY_FILE}`,
    '/api/video/hls/master.m3u8',
    `/api/video/hls/${top().dir}/index.m3u8`,
    '/api/video',
    '/api/video/captions.vtt',
    '/api/video/chapters.vtt',
    '/api/video/poster.jpg',
  ];
  /** What anyone gets: useless without the key. */
  const open = () => {
    const rung = top().dir;
    return [`/api/video/hls/${rung}/init.mp4`, `/api/video/hls/${rung}/${segmentsOf(rung)[0]}`];
  };

  it('answers 204 for the chapters of a video published without them: no error in the console', async () => {
    const chapters = join(served, PUBLISHED.chapters);
    renameSync(chapters, `${chapters}.away`);
    try {
      const res = await get('/api/video/chapters.vtt');
      expect(res.status).toBe(204);
      expect(res.headers['cache-control']).toMatch(/^private, /);
    } finally {
      renameSync(`${chapters}.away`, chapters);
    }
  });

  it('serves the chapters file given to prepare-video as a WebVTT chapters track', async () => {
    expect(manifest.chapters).toBe(2);
    const res = await get('/api/video/chapters.vtt');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/vtt; charset=utf-8');
    const text = res.body.toString();
    expect(text).toMatch(/^WEBVTT/);
    expect(text).toContain('00:00:04.000 --> 00:00:08.000\nCierre de la bolsa');
  });

  it('refuses the key, the playlists and the clear files with 401 JSON and no-store when there is no session', async () => {
    for (const path of gated()) {
      const res = await rawRequest(base, path, { headers: { range: 'bytes=0-1' } });
      expect(res.status, path).toBe(401);
      expect(JSON.parse(res.body.toString()).error).toBe('unauthorized');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('lets a shared cache keep the encrypted segments only, which need no session', async () => {
    for (const path of gated()) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toMatch(/^private, /);
    }
    for (const path of open()) {
      const res = await rawRequest(base, path);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toMatch(/^public, /);
    }
  });

  it('serves the master playlist compressed, as an HLS playlist, revalidated on every use', async () => {
    const res = await get('/api/video/hls/master.m3u8', { 'accept-encoding': 'gzip' });
    expect(res.headers['content-type']).toBe('application/vnd.apple.mpegurl');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const text = gunzipSync(res.body).toString();
    expect(text).toBe(readFileSync(join(served, PUBLISHED.master), 'utf8'));
    // Every rendition it names is there.
    for (const uri of text.split('\n').filter((l) => l.endsWith('.m3u8'))) {
      const playlist = await get(`/api/video/hls/${uri}`);
      expect(playlist.status, uri).toBe(200);
      expect(playlist.headers['content-type']).toBe('application/vnd.apple.mpegurl');
      expect(playlist.body.toString()).toContain('#EXT-X-MAP:URI="init.mp4"');
    }
  });

  it('serves init and media segments as MP4 with Range, kept a year by any cache', async () => {
    const rung = top().dir;
    const name = segmentsOf(rung)[0]!;
    const size = statSync(join(served, rung, name)).size;
    const res = await get(`/api/video/hls/${rung}/${name}`, { range: 'bytes=0-99' });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(res.headers['content-type']).toBe('video/mp4');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.body.equals(readFileSync(join(served, rung, name)).subarray(0, 100))).toBe(true);
    const init = await get(`/api/video/hls/${rung}/init.mp4`);
    expect(init.headers['content-type']).toBe('video/mp4');
    expect(init.body.subarray(4, 8).toString()).toBe('ftyp');
  });

  it('serves the fallback MP4 as /api/video: faststart, Range, revalidated (not immutable)', async () => {
    const whole = await get('/api/video');
    expect(whole.headers['content-type']).toBe('video/mp4');
    expect(whole.headers['cache-control']).toBe('private, no-cache');
    expect(whole.body.equals(readFileSync(join(served, PUBLISHED.fallback)))).toBe(true);
    // faststart: the index (moov) comes before the media data (mdat).
    expect(whole.body.indexOf('moov')).toBeLessThan(whole.body.indexOf('mdat'));
    const probe = await get('/api/video', { range: 'bytes=0-1' });
    expect(probe.status).toBe(206);
    expect(probe.headers['content-range']).toBe(`bytes 0-1/${whole.body.length}`);
  });

  it("serves the published poster and captions on the single video's routes", async () => {
    const poster = await get('/api/video/poster.jpg');
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect(poster.body.equals(readFileSync(join(served, PUBLISHED.poster)))).toBe(true);
    const captions = await get('/api/video/captions.vtt');
    expect(captions.headers['content-type']).toBe('text/vtt; charset=utf-8');
    expect(captions.body.toString()).toBe(readFileSync(join(served, PUBLISHED.captions), 'utf8'));
  });

  it('answers 404 JSON to any name outside the published files, encoded traversal included', async () => {
    const rung = top().dir;
    for (const path of [
      '/api/video/hls/media.json',
      `/api/video/hls/${rung}/..%2f${PUBLISHED.manifest}`,
      `/api/video/hls/..%2f${rung}/index.m3u8`,
      '/api/video/hls/%2e%2e/master.m3u8',
      `/api/video/hls/${rung}/seg99999.m4s`,
      `/api/video/hls/${rung}/.hidden`,
      `/api/video/hls/${rung}/index.m3u8.bak`,
      '/api/video/hls/aaaaaaaa-999p/index.m3u8',
      '/api/video/hls/../../server/config.ts',
      '/api/video/hls/%2e%2e%2f%2e%2e%2fpackage.json/x',
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expectNoLeak(res.body.toString());
    }
  });

  it('stops the key and the playlists once the session has ended mid-play, not the segments', async () => {
    const own = sessionCookie((await signin(app)).headers['set-cookie']);
    const rung = manifest.rungs.at(-1)!.dir;
    const stopped = [
      `/api/video/hls/${top().dir}/${KEY_FILE}`,
      '/api/video/hls/master.m3u8',
      // The rendition the player switches to next: its playlist is what tells it to stop.
      `/api/video/hls/${rung}/index.m3u8`,
    ];
    for (const path of stopped)
      expect((await rawRequest(base, path, { headers: { cookie: own } })).status, path).toBe(200);
    await app.inject({ method: 'POST', url: SIGNOUT, headers: { cookie: own } });
    for (const path of stopped)
      expect((await rawRequest(base, path, { headers: { cookie: own } })).status, path).toBe(401);
    const segment = `/api/video/hls/${rung}/${segmentsOf(rung)[0]}`;
    expect((await rawRequest(base, segment, { headers: { cookie: own } })).status).toBe(200);
  });
});

describe('without MEDIA_DIR (one MP4)', () => {
  it('answers the master playlist 204 to a session (the page keeps the MP4) and 401 without', async () => {
    const app = await testServer();
    const cookie = sessionCookie((await signin(app)).headers['set-cookie']);
    const res = await app.inject({ url: '/api/video/hls/master.m3u8', headers: { cookie } });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await app.inject({ url: '/api/video/hls/master.m3u8' })).statusCode).toBe(401);
    await app.close();
  });

  it('refuses a MEDIA_DIR without a published video, saying how to publish one', () => {
    expect(() => loadConfig({ MEDIA_DIR: 'media/nothing-here' }, REPO)).toThrow(
      /MEDIA_DIR has no master\.m3u8: publish a video there with `npm run prepare-video/,
    );
  });
});

describe('prepare-video with a chapters file', () => {
  it('refuses a malformed chapters file before encoding, naming its line, and changes nothing', async () => {
    const bad = join(dirname(dir), 'bad-chapters.txt');
    writeFileSync(bad, '00:00 Inicio\n00:04\n');
    const before = readFileSync(join(served, PUBLISHED.master), 'utf8');
    const source = join(dirname(dir), 'clip.mp4');
    const attempt = prepareVideo(source, dir, { preset: 'ultrafast', chapters: bad });
    await expect(attempt).rejects.toThrow(PrepareError);
    await expect(attempt).rejects.toThrow(/line 2/);
    expect(readFileSync(join(served, PUBLISHED.master), 'utf8')).toBe(before);
    expect(readFileSync(join(served, PUBLISHED.chapters), 'utf8')).toContain('Cierre de la bolsa');
  });
});
