/**
 * `npm run prepare-video -- SOURCE [--out DIR] [--chapters FILE]`: turns the company's video (mp4, mov, mkv; any
 * size or shape) into what `MEDIA_DIR=DIR npm start` serves: an H.264/AAC HLS ladder in fMP4
 * segments, its playlists, a progressive fallback MP4, a poster and Spanish captions. The
 * segments are encrypted under a new key, written to the keys folder (`--keys DIR`, beside DIR).
 * The source is decoded once first: a damaged one changes nothing. Each publish is made in a
 * folder of its own and served by one rename (media-versions.ts): visitors watching the
 * previous one keep it, and an interrupted publish leaves the served one as it was.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chaptersToWebVtt, describeProblem, parseChapters } from '../../machines/chapters.js';
import {
  FIRST_SEGMENT_S,
  PUBLISHED,
  RUNG_FILES,
  SEGMENT_S,
  keyFileName,
  keysDirFor,
  segmentName,
  type Manifest,
  type PublishedRung as Rung,
} from '../../config/media-layout.js';
import { readSettings } from '../../config/settings.js';
import {
  PublishBusyError,
  STAGING_PREFIX,
  lockFolder,
  removeExpired,
  removeLeftovers,
  switchTo,
  versionName,
} from './media-versions.js';
import { checkSource, type SourceCheck } from './source-check.js';
import { playFromSourceTime, splitFragments } from './fragments.js';
import { KeyError, checkKeysDir, encryptRung, newKey, writeKey } from './media-crypto.js';

interface RungSpec {
  /** The short side in pixels (the height of a landscape video). */
  short: number;
  /** Video bitrate cap, kbit/s; the encoder spends less on easy pictures (capped CRF). */
  videoKbps: number;
  audioKbps: number;
  audioChannels: number;
}

/**
 * Sized for the links in the issue: 240p fits Slow 3G (400 kbit/s, 2 s RTT, 6 s segments carry
 * about 267 kbit/s), 480p fits Fast 3G; 144p is the near-audio-only rung for the worst links
 * (hls.js drops pure audio variants when video ones exist) and the start on slow ones: its init and
 * first fragment are what a first frame on Slow 3G waits for.
 */
const LADDER: RungSpec[] = [
  { short: 1080, videoKbps: 4000, audioKbps: 96, audioChannels: 2 },
  { short: 720, videoKbps: 2000, audioKbps: 96, audioChannels: 2 },
  { short: 480, videoKbps: 850, audioKbps: 64, audioChannels: 2 },
  { short: 360, videoKbps: 500, audioKbps: 64, audioChannels: 2 },
  { short: 240, videoKbps: 160, audioKbps: 48, audioChannels: 1 },
  { short: 144, videoKbps: 40, audioKbps: 32, audioChannels: 1 },
];

/** Apple's authoring spec: 6 s segments (two round trips of 2 s cost a third, not all, of a 6 s one), a keyframe every 2 s. */
const KEYFRAME_S = 2;
/**
 * x264's B-frames show each keyframe this many frames after it is decoded (b-pyramid). The
 * pictures are published without that lag (negative composition offsets) and the audio that much
 * early: each segment's audio then reaches its last picture's end, where hls.js looks for the
 * next segment. The edit lists then say where each track starts (playFromSourceTime).
 */
const REORDER_FRAMES = 2;
/**
 * The first segment's fragments: a Media Source shows a frame once its fragment is whole, so the
 * first is cut in eight (splitFragments) and the first frame waits for the keyframe and a quarter
 * of a second, not 2 s. The link brings the rest faster than it plays.
 */
export const FIRST_FRAGMENT_S = 0.25;

export class PrepareError extends Error {}

interface Probe {
  width: number;
  height: number;
  frameRate: number;
  durationS: number;
  hasAudio: boolean;
  textSubtitle: boolean;
}

const FFMPEG_MISSING =
  'ffmpeg was not found. Install it with `sudo apt-get install -y ffmpeg` (Debian/Ubuntu), then run this again.';

function checkFfmpeg(): void {
  for (const tool of ['ffmpeg', 'ffprobe']) {
    const result = spawnSync(tool, ['-version'], { stdio: 'ignore' });
    if (result.error || result.status !== 0) throw new PrepareError(FFMPEG_MISSING);
  }
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

const ratio = (text: string | undefined): number => {
  const [a, b] = (text ?? '').split(/[:/]/).map(Number);
  return a && b ? a / b : 0;
};

const TEXT_SUBTITLES = new Set(['mov_text', 'subrip', 'srt', 'ass', 'ssa', 'webvtt', 'text']);

function probe(source: string): Probe {
  const result = spawnSync(
    'ffprobe',
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', source],
    { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 },
  );
  const unreadable = (why: string) =>
    new PrepareError(`ffmpeg cannot read ${source} as a video (${why}). Nothing was changed.`);
  if (result.status !== 0) throw unreadable(result.stderr.trim().split('\n').pop() || 'unknown');
  const info = JSON.parse(result.stdout) as {
    streams?: ProbeStream[];
    format?: { duration?: string };
  };
  const streams = info.streams ?? [];
  const video = streams.find(
    (s) => s.codec_type === 'video' && s.width && s.height && s.codec_name !== 'mjpeg',
  );
  if (!video?.width || !video.height) throw unreadable('no video stream');
  const durationS = Number(info.format?.duration);
  if (!(durationS > 0)) throw unreadable('no duration');
  // Display size: non-square pixels stretched, phone rotation applied (ffmpeg rotates on decode).
  const sar = ratio(video.sample_aspect_ratio) || 1;
  let width = Math.round(video.width * sar);
  let height = video.height;
  const rotation = Number(
    video.side_data_list?.find((d) => d.rotation)?.rotation ?? video.tags?.rotate ?? 0,
  );
  if (Math.abs(rotation) % 180 === 90) [width, height] = [height, width];
  const frameRate = ratio(video.avg_frame_rate) || ratio(video.r_frame_rate) || 30;
  return {
    width,
    height,
    frameRate,
    durationS,
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    textSubtitle: streams.some(
      (s) => s.codec_type === 'subtitle' && TEXT_SUBTITLES.has(s.codec_name ?? ''),
    ),
  };
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The rungs that do not upscale, each keeping the source's shape. */
export function planLadder(width: number, height: number) {
  const short = Math.min(width, height);
  const fitting = LADDER.filter((rung) => rung.short <= short);
  // A source smaller than every rung is published at its own size.
  const rungs = fitting.length ? fitting : [{ ...LADDER[LADDER.length - 1]!, short }];
  return rungs.map((rung) => {
    const scale = rung.short / short;
    return { ...rung, width: even(width * scale), height: even(height * scale) };
  });
}

function runFfmpeg(args: string[], what: string, signal?: AbortSignal): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const halted = stopped(signal);
    if (halted) return reject(halted);
    const child = spawn(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args],
      { stdio: ['ignore', 'ignore', 'pipe'], signal },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    // An abort kills ffmpeg and reports at once; the promise waits until it has exited, so that
    // nothing is still writing into the stage when the stage is removed.
    child.on('error', () => {
      if (!signal?.aborted) reject(new PrepareError(FFMPEG_MISSING));
    });
    child.on('close', (code) =>
      code === 0
        ? resolvePromise()
        : reject(
            stopped(signal) ?? new PrepareError(`ffmpeg failed while ${what}:\n${stderr.trim()}`),
          ),
    );
  });
}

/** ffmpeg's pieces, KEYFRAME_S each, before joinSegments makes the published segments. */
const PIECES = 'piece%05d.m4s';

/**
 * ffmpeg cuts a piece at every keyframe (KEYFRAME_S). The first piece is the first segment
 * (FIRST_SEGMENT_S), cut into FIRST_FRAGMENT_S fragments (the first frame waits for one); the
 * others are joined SEGMENT_S at a time. fMP4 fragments laid end to end are one valid segment,
 * so nothing is encoded twice.
 */
function joinSegments(dir: string) {
  const path = join(dir, RUNG_FILES.playlist);
  const lines = readFileSync(path, 'utf8').split('\n');
  const pieces: { file: string; seconds: number }[] = [];
  lines.forEach((line, i) => {
    if (line.startsWith('#EXTINF:'))
      pieces.push({ file: lines[i + 1]!.trim(), seconds: Number.parseFloat(line.slice(8)) });
  });
  const perSegment = SEGMENT_S / KEYFRAME_S;
  const groups = [pieces.slice(0, FIRST_SEGMENT_S / KEYFRAME_S)];
  for (let i = groups[0]!.length; i < pieces.length; i += perSegment)
    groups.push(pieces.slice(i, i + perSegment));
  const segments = groups.map((group, index) => {
    const name = segmentName(index);
    // One segment's bytes at a time: a long source's rung does not fit in memory whole.
    const bytes = Buffer.concat(group.map((p) => readFileSync(join(dir, p.file))));
    const first = index === 0 && group.length === 1;
    writeFileSync(
      join(dir, name),
      first ? splitFragments(bytes, Math.round(FIRST_SEGMENT_S / FIRST_FRAGMENT_S)) : bytes,
    );
    for (const piece of group) rmSync(join(dir, piece.file));
    return { name, seconds: group.reduce((sum, piece) => sum + piece.seconds, 0) };
  });
  const header = lines.filter(
    (line) =>
      line.startsWith('#EXT') && !/^#(EXTINF|EXT-X-TARGETDURATION|EXT-X-ENDLIST)/.test(line),
  );
  const target = Math.ceil(Math.max(...segments.map((segment) => segment.seconds)));
  writeFileSync(
    path,
    [
      ...header.slice(0, 1),
      `#EXT-X-TARGETDURATION:${target}`,
      ...header.slice(1),
      ...segments.flatMap((segment) => [`#EXTINF:${segment.seconds.toFixed(6)},`, segment.name]),
      '#EXT-X-ENDLIST',
      '',
    ].join('\n'),
  );
}

/** Bits per second over the whole rung (average) and over its busiest segment (peak). */
function measureRung(dir: string): { average: number; peak: number; bytes: number } {
  const playlist = readFileSync(join(dir, 'index.m3u8'), 'utf8').split('\n');
  const init = /URI="([^"]+)"/.exec(playlist.find((l) => l.startsWith('#EXT-X-MAP')) ?? '')?.[1];
  let bytes = init ? statSync(join(dir, init)).size : 0;
  let seconds = 0;
  let peak = 0;
  playlist.forEach((line, i) => {
    if (!line.startsWith('#EXTINF:')) return;
    const duration = Number.parseFloat(line.slice(8));
    const size = statSync(join(dir, playlist[i + 1]!.trim())).size;
    bytes += size;
    seconds += duration;
    // A short last segment says little about the rate the player must sustain.
    if (duration >= KEYFRAME_S) peak = Math.max(peak, (size * 8) / duration);
  });
  const average = seconds ? (bytes * 8) / seconds : 0;
  return { average: Math.ceil(average), peak: Math.ceil(Math.max(peak, average)), bytes };
}

function findCaptions(source: string): string | undefined {
  const stem = join(dirname(source), basename(source, extname(source)));
  return [`${stem}.es.vtt`, `${stem}.vtt`].find((path) => existsSync(path));
}

const STUB_CAPTIONS =
  'WEBVTT\n\nNOTE Subtítulos en español pendientes: reemplace este archivo por los del video.\n';

export interface PrepareOptions {
  preset?: string;
  chapters?: string;
  /** Publish a source the check found damaged: what decodes, said in the summary. */
  acceptTruncated?: boolean;
  /** How long a replaced version stays for pages still playing it (keptOldS below). */
  keepOldS?: number;
  /** Stops the publish (Ctrl+C, SIGTERM): ffmpeg is stopped and the served publish kept. */
  signal?: AbortSignal;
  /** The clock, for the switch's time and the clean-up. */
  now?: () => Date;
  /** Where the publish's key is written; keysDirFor(the media folder) by default. */
  keysDir?: string;
}

/**
 * How long a replaced version stays: two session lifetimes (SESSION_TTL_S). A returning
 * visitor's service worker shows its copy of the page, naming the version, for up to one
 * (the page's X-Page-Copy-S); a session begun from that copy lasts one more.
 */
const keptOldS = (env: NodeJS.ProcessEnv) => 2 * readSettings(env, ['SESSION_TTL_S']).SESSION_TTL_S;
const DEFAULT_KEEP_OLD_S = keptOldS({});

const mmss = (s: number) => `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;

function refuse(sourceArg: string, check: SourceCheck): PrepareError {
  return new PrepareError(
    [
      `${sourceArg} is damaged: ${check.problems.join('; ')}.`,
      `Only ${mmss(check.playsS)} of its ${mmss(check.containerS)} would play. Nothing was changed.`,
      'Copy the file again from its origin, or publish what plays with --accept-truncated.',
    ].join('\n'),
  );
}

/** The folder's publish lock; another publish holding it is the operator's error, said plainly. */
function lockForPublish(dir: string): () => void {
  try {
    return lockFolder(dir);
  } catch (error) {
    if (error instanceof PublishBusyError) throw new PrepareError(error.message);
    throw error;
  }
}

/** Publishes `source` into `outDir`; returns what it made. */
export async function prepareVideo(
  sourceArg: string,
  outDirArg: string,
  options: PrepareOptions = {},
): Promise<Manifest> {
  checkFfmpeg();
  const source = resolve(sourceArg);
  if (!existsSync(source) || !statSync(source).isFile())
    throw new PrepareError(`${sourceArg} is not a file.`);
  const probed = probe(source);
  // Decoded whole before anything is written: a copy cut off halfway announces its full length.
  const check = await checkSource(source, probed, options.signal).catch(() => {
    throw stopped(options.signal) ?? new PrepareError(FFMPEG_MISSING);
  });
  if (check.problems.length && !options.acceptTruncated) throw refuse(sourceArg, check);
  const info = check.problems.length ? { ...probed, durationS: check.playsS } : probed;
  // Checked before minutes of encoding: a wrong line stops here, naming it.
  const chaptersTrack = options.chapters
    ? readChapters(options.chapters, info.durationS)
    : chaptersBeside(source);
  const outDir = resolve(outDirArg);
  const keysDir = resolve(options.keysDir ?? keysDirFor(outDir));
  checkKeys(outDir, keysDir);
  // Before minutes of encoding: a keys folder it cannot write stops here.
  try {
    mkdirSync(keysDir, { recursive: true, mode: 0o700 });
    accessSync(keysDir, constants.W_OK);
  } catch (error) {
    throw new PrepareError(
      `the keys folder ${keysDir} cannot be written (${(error as NodeJS.ErrnoException).code}). Nothing was published.`,
    );
  }
  mkdirSync(outDir, { recursive: true });
  const now = options.now ?? (() => new Date());
  const release = lockForPublish(outDir);
  try {
    removeLeftovers(outDir, keysDir);
    const id = newPublishId();
    const stage = join(outDir, `${STAGING_PREFIX}${id}`);
    mkdirSync(stage);
    let manifest: Manifest;
    try {
      const key = newKey();
      manifest = await publish(source, info, stage, id, {
        preset: options.preset ?? 'veryfast',
        chapters: chaptersTrack,
        signal: options.signal,
        now,
        key,
      });
      if (check.problems.length)
        manifest.cut = { containerS: check.containerS, problems: check.problems };
      writeFileSync(join(stage, PUBLISHED.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
      serveWithKey(outDir, stage, manifest.version, now(), () => writeKey(keysDir, id, key));
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
    removeExpired(outDir, options.keepOldS ?? DEFAULT_KEEP_OLD_S, now(), keysDir);
    return manifest;
  } finally {
    release();
  }
}

/** A new publish's id: its version folder, its renditions and its key are named by it. */
export const newPublishId = () =>
  randomBytes(5).readUIntBE(0, 5).toString(36).padStart(8, '0').slice(-8);

/** The keys folder beside the media folder, said as a PrepareError otherwise. */
function checkKeys(outDir: string, keysDir: string): void {
  try {
    checkKeysDir(outDir, keysDir);
  } catch (error) {
    if (error instanceof KeyError) throw new PrepareError(`${error.message} Nothing was changed.`);
    throw error;
  }
}

/**
 * Serves the finished `stage` as `version` (switchTo), its key written first: the server answers
 * the key as soon as the pointer names the version. A failed switch takes the key away again.
 */
export function serveWithKey(
  dir: string,
  stage: string,
  version: string,
  now: Date,
  saveKey: () => string,
): void {
  const keyFile = saveKey();
  try {
    switchTo(dir, stage, version, now);
  } catch (error) {
    rmSync(keyFile, { force: true });
    throw error;
  }
}

/** Removes what no page can still play (`npm run prepare-video -- --clean DIR`). */
export function cleanMediaDir(
  dirArg: string,
  options: { keepOldS?: number; now?: Date; keysDir?: string } = {},
): string[] {
  const dir = resolve(dirArg);
  if (!existsSync(dir)) throw new PrepareError(`${dirArg} does not exist.`);
  const keysDir = resolve(options.keysDir ?? keysDirFor(dir));
  checkKeys(dir, keysDir);
  const release = lockForPublish(dir);
  try {
    return removeExpired(
      dir,
      options.keepOldS ?? DEFAULT_KEEP_OLD_S,
      options.now ?? new Date(),
      keysDir,
    );
  } finally {
    release();
  }
}

/** The error to end with when `signal` stopped the publish. */
function stopped(signal: AbortSignal | undefined): PrepareError | undefined {
  if (!signal?.aborted) return undefined;
  return new PrepareError(
    `stopped (${String(signal.reason ?? 'aborted')}): the served publish is as it was.`,
  );
}

/** Makes the whole publish inside `stage`; nothing outside it changes. */
async function publish(
  source: string,
  info: Probe,
  stage: string,
  id: string,
  options: {
    preset: string;
    chapters: { vtt: string; count: number } | null;
    signal?: AbortSignal;
    now: () => Date;
    key: Buffer;
  },
): Promise<Manifest> {
  const { preset, chapters } = options;
  const run = (args: string[], what: string) => runFfmpeg(args, what, options.signal);
  const ladder = planLadder(info.width, info.height);
  // 50 or 60 frames a second double the bits for little a training video needs.
  const frameRate = info.frameRate > 31 ? info.frameRate / 2 : info.frameRate;
  const split = ladder.map((_, i) => `[s${i}]`).join('');
  const filters = [
    `[0:v:0]fps=${frameRate.toFixed(3)},split=${ladder.length}${split}`,
    ...ladder.map((r, i) => `[s${i}]scale=${r.width}:${r.height},setsar=1,format=yuv420p[v${i}]`),
  ].join(';');
  const args = ['-i', source, '-filter_complex', filters];
  ladder.forEach((rung, i) => {
    args.push('-map', `[v${i}]`);
    if (info.hasAudio) args.push('-map', '0:a:0');
    args.push(`-maxrate:v:${i}`, `${rung.videoKbps}k`, `-bufsize:v:${i}`, `${rung.videoKbps * 2}k`);
    if (info.hasAudio)
      args.push(`-b:a:${i}`, `${rung.audioKbps}k`, `-ac:a:${i}`, String(rung.audioChannels));
  });
  args.push(
    ...['-c:v', 'libx264', '-preset', preset, '-profile:v', 'high', '-crf', '23'],
    // Every rung has a keyframe at the same instants, so segments line up for switching.
    ...['-force_key_frames', `expr:gte(t,n_forced*${KEYFRAME_S})`, '-sc_threshold', '0'],
    ...(info.hasAudio ? ['-c:a', 'aac', '-ar', '48000'] : []),
    ...(info.hasAudio ? ['-filter:a', `asetpts=PTS-${REORDER_FRAMES}/${frameRate}/TB`] : []),
    ...['-f', 'hls', '-hls_time', String(KEYFRAME_S), '-hls_playlist_type', 'vod'],
    ...['-hls_segment_type', 'fmp4', '-hls_flags', 'independent_segments'],
    ...['-hls_segment_options', 'movflags=+negative_cts_offsets'],
    ...['-hls_fmp4_init_filename', RUNG_FILES.init],
    ...['-hls_segment_filename', join(stage, 'v%v', PIECES)],
    ...['-master_pl_name', 'ffmpeg-master.m3u8'],
    '-var_stream_map',
    ladder.map((_, i) => (info.hasAudio ? `v:${i},a:${i}` : `v:${i}`)).join(' '),
    join(stage, 'v%v', RUNG_FILES.playlist),
  );
  await run(args, `encoding ${ladder.length} renditions`);

  // ffmpeg 5.1's master declares (video + audio) × 1.1 and no AVERAGE-BANDWIDTH: keep only its
  // CODECS, write measured figures.
  const ffmpegMaster = readFileSync(join(stage, 'ffmpeg-master.m3u8'), 'utf8');
  const codecsByDir = new Map<string, string>();
  const lines = ffmpegMaster.split('\n');
  lines.forEach((line, i) => {
    const codecs = /CODECS="([^"]+)"/.exec(line)?.[1];
    if (codecs) codecsByDir.set(lines[i + 1]!.trim().split('/')[0]!, codecs);
  });
  const dirs = ladder.map((rung, i) => {
    const from = join(stage, `v${i}`);
    // ffmpeg names the init file init_N.mp4 whatever it is told.
    for (const name of readdirSync(from))
      if (/^init_\d+\.mp4$/.test(name)) renameSync(join(from, name), join(from, 'init.mp4'));
    const init = readFileSync(join(from, 'init.mp4'));
    if (!playFromSourceTime(init))
      throw new PrepareError(`ffmpeg wrote edit lists this does not know in ${from}/init.mp4.`);
    writeFileSync(join(from, 'init.mp4'), init);
    const playlist = join(from, 'index.m3u8');
    writeFileSync(playlist, readFileSync(playlist, 'utf8').replace(/init_\d+\.mp4/, 'init.mp4'));
    joinSegments(from);
    const dir = `${id}-${Math.min(rung.width, rung.height)}p`;
    renameSync(from, join(stage, dir));
    return dir;
  });
  rmSync(join(stage, 'ffmpeg-master.m3u8'));

  // Safari starts on the first variant listed: the middle one (the fallback's), then the others
  // from the highest down. hls.js sorts them itself and starts from its estimate.
  const middleIndex = Math.floor(ladder.length / 2);
  // The fallback: the middle rung's segments joined into one faststart MP4 (no second encode),
  // read while they are clear: it is served whole behind the session, never encrypted.
  // ffmpeg reads the pictures REORDER_FRAMES late from segments with negative composition
  // offsets (Media Source does not): the MP4 takes the audio that much later too.
  const playlist = join(stage, dirs[middleIndex]!, RUNG_FILES.playlist);
  const late = (REORDER_FRAMES / frameRate).toFixed(6);
  await run(
    [
      ...['-i', playlist],
      ...(info.hasAudio ? ['-itsoffset', late, '-i', playlist, '-map', '0:v', '-map', '1:a'] : []),
      ...['-c', 'copy', '-movflags', '+faststart', join(stage, PUBLISHED.fallback)],
    ],
    'writing the fallback MP4',
  );

  const rungs: Rung[] = ladder.map((rung, i) => {
    const dir = dirs[i]!;
    // Last of all that reads segment bytes (the fragments' cut rewrote boxes), and measured
    // after: the rates are those of the bytes served.
    encryptRung(join(stage, dir), join(stage, dir), options.key);
    const measured = measureRung(join(stage, dir));
    return {
      dir,
      width: rung.width,
      height: rung.height,
      averageBandwidth: measured.average,
      peakBandwidth: measured.peak,
      codecs: codecsByDir.get(`v${i}`) ?? (info.hasAudio ? 'avc1.640028,mp4a.40.2' : 'avc1.640028'),
      bytes: measured.bytes,
    };
  });

  const middle = rungs[middleIndex]!;
  const listed = [middle, ...rungs.filter((r) => r !== middle)];
  const master = [
    '#EXTM3U',
    '#EXT-X-VERSION:7',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    ...listed.flatMap((r) => [
      `#EXT-X-STREAM-INF:BANDWIDTH=${r.peakBandwidth},AVERAGE-BANDWIDTH=${r.averageBandwidth},RESOLUTION=${r.width}x${r.height},FRAME-RATE=${frameRate.toFixed(3)},CODECS="${r.codecs}"`,
      `${r.dir}/index.m3u8`,
    ]),
    '',
  ].join('\n');
  writeFileSync(join(stage, PUBLISHED.master), master);

  // The poster is on screen only until the first frame, and on a slow link it shares the
  // bandwidth with that frame: 480p at q 5 is far smaller than 720p at q 4 (docs/benchmarks.md).
  const posterRung = rungs.find((r) => Math.min(r.width, r.height) <= 480) ?? rungs.at(-1)!;
  await run(
    [
      ...['-ss', (info.durationS * 0.1).toFixed(2), '-i', source, '-frames:v', '1'],
      ...['-vf', `scale=${posterRung.width}:${posterRung.height},setsar=1`, '-q:v', '5'],
      join(stage, PUBLISHED.poster),
    ],
    'taking the poster',
  );

  let captions: Manifest['captions'] = 'stub';
  const beside = findCaptions(source);
  if (beside) {
    copyFileSync(beside, join(stage, PUBLISHED.captions));
    captions = 'kept';
  } else if (info.textSubtitle) {
    try {
      await run(['-i', source, '-map', '0:s:0', join(stage, PUBLISHED.captions)], 'captions');
      captions = 'embedded';
    } catch {
      // An unusual subtitle codec: the stub below, the video still publishes.
    }
  }
  if (captions === 'stub') writeFileSync(join(stage, PUBLISHED.captions), STUB_CAPTIONS);
  if (chapters) writeFileSync(join(stage, PUBLISHED.chapters), chapters.vtt);

  return {
    id,
    version: versionName(id, options.now()),
    source: basename(source),
    durationS: Math.round(info.durationS * 1000) / 1000,
    frameRate,
    rungs,
    fallback: { rung: middle.dir, bytes: statSync(join(stage, PUBLISHED.fallback)).size },
    captions,
    chapters: chapters?.count ?? 0,
    firstSegmentS: FIRST_SEGMENT_S,
    encrypted: true,
  };
}

/**
 * A ready WebVTT chapters track beside the source (`NAME.chapters.vtt`, as the sample has), used
 * when no `--chapters` list is given, as the captions beside it are.
 */
function chaptersBeside(source: string): { vtt: string; count: number } | null {
  const file = `${join(dirname(source), basename(source, extname(source)))}.chapters.vtt`;
  if (!existsSync(file)) return null;
  const vtt = readFileSync(file, 'utf8');
  const count = vtt.split('\n').filter((line) => line.includes('-->')).length;
  if (!/^\uFEFF?WEBVTT\b/.test(vtt) || count === 0)
    throw new PrepareError(`${file} is not a WebVTT chapters track; nothing was changed.`);
  return { vtt, count };
}

/** The operator's chapters file as a WebVTT track; every malformed line named, or it throws. */
function readChapters(file: string, durationS: number): { vtt: string; count: number } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new PrepareError(
      `${file}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}.`,
    );
  }
  const result = parseChapters(text, { durationS });
  if (!result.ok)
    throw new PrepareError(
      `${file} has problems; nothing was changed:\n${result.problems.map((p) => `  ${describeProblem(p)}`).join('\n')}`,
    );
  return { vtt: chaptersToWebVtt(result.chapters, durationS), count: result.chapters.length };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const kbps = (bps: number) => `${Math.round(bps / 1000)} kbit/s`;

/**
 * `source` as the operator named it, for the commands the summary suggests; `keysDir` as named,
 * when it is not the default.
 */
export function describe(
  manifest: Manifest,
  outDir: string,
  source = manifest.source,
  keysDir?: string,
): string {
  const minutes = Math.floor(manifest.durationS / 60);
  const seconds = Math.round(manifest.durationS % 60);
  const keysArg = keysDir ? ` --keys ${keysDir}` : '';
  const again = `npm run prepare-video -- ${source} --out ${outDir}${keysArg}`;
  const captionsBeside = `${join(dirname(source), basename(source, extname(source)))}.es.vtt`;
  return [
    `Published ${manifest.source} (${minutes} min ${seconds} s) into ${join(outDir, manifest.version)}:`,
    ...(manifest.cut
      ? [
          `  cut       ${mmss(manifest.cut.containerS - manifest.durationS)} of its ${mmss(manifest.cut.containerS)} did not decode and is not published (${manifest.cut.problems.join('; ')})`,
        ]
      : []),
    ...manifest.rungs.map(
      (r) =>
        `  ${`${r.width}x${r.height}`.padEnd(10)} ${kbps(r.averageBandwidth).padStart(12)} average, ${kbps(r.peakBandwidth).padStart(12)} peak, ${mb(r.bytes).padStart(9)}  ${r.dir}/`,
    ),
    `  fallback  ${PUBLISHED.fallback} (${manifest.fallback.rung}), ${mb(manifest.fallback.bytes)}`,
    `  poster    ${PUBLISHED.poster}`,
    ...(manifest.encrypted
      ? [
          `  key       ${join(keysDir ?? keysDirFor(outDir), keyFileName(manifest.id))}: every segment is encrypted under it; keep it out of backups you share`,
        ]
      : []),
    manifest.chapters
      ? `  chapters  ${PUBLISHED.chapters} (${manifest.chapters})`
      : `  chapters  MISSING: the page says "todavía no tiene capítulos". Add them (one "MM:SS Title" a line): ${again} --chapters chapters.txt`,
    manifest.captions === 'stub'
      ? `  captions  ${PUBLISHED.captions} is a STUB with no lines: no captions, no transcript. Add them: put the Spanish WebVTT at ${captionsBeside}, then ${again}`
      : `  captions  ${PUBLISHED.captions} (${{ kept: 'kept from beside the source', embedded: 'taken from the file' }[manifest.captions]})`,
    `Serve it with: MEDIA_DIR=${outDir}${keysDir ? ` MEDIA_KEYS_DIR=${keysDir}` : ''} npm start`,
  ].join('\n');
}

interface Args {
  source: string;
  out: string;
  preset?: string;
  chapters?: string;
  acceptTruncated: boolean;
  /** `--clean DIR`: only the clean-up. */
  clean?: string;
  keepOldS?: number;
  keys?: string;
}

const USAGE = [
  'Usage: npm run prepare-video -- SOURCE [--out DIR] [--keys DIR] [--chapters FILE] [--preset veryfast] [--accept-truncated] [--keep-old SECONDS]',
  '       npm run prepare-video -- --clean DIR [--keys DIR] [--keep-old SECONDS]',
].join('\n');

function parseArgs(argv: string[]): Args {
  const positional: string[] = [];
  const args: Args = { source: '', out: 'media', acceptTruncated: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--out') args.out = argv[++i] ?? '';
    else if (arg.startsWith('--out=')) args.out = arg.slice(6);
    else if (arg === '--preset') args.preset = argv[++i];
    else if (arg === '--chapters') args.chapters = argv[++i];
    else if (arg === '--accept-truncated') args.acceptTruncated = true;
    else if (arg === '--clean') args.clean = argv[++i] ?? '';
    else if (arg === '--keys') args.keys = argv[++i] ?? '';
    else if (arg === '--keep-old') {
      args.keepOldS = Number(argv[++i]);
      if (!Number.isSafeInteger(args.keepOldS) || args.keepOldS < 0)
        throw new PrepareError(`--keep-old takes a whole number of seconds.\n${USAGE}`);
    } else if (arg.startsWith('--')) throw new PrepareError(`Unknown option ${arg}.`);
    else positional.push(arg);
  }
  if (args.clean !== undefined ? !args.clean || positional.length : positional.length !== 1)
    throw new PrepareError(USAGE);
  if (!args.out || args.keys === '') throw new PrepareError(USAGE);
  return { ...args, source: positional[0] ?? '' };
}

async function main() {
  // Ctrl+C or SIGTERM: ffmpeg is stopped, the work folder removed, the served publish kept.
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    // A second one does not wait for the tidying.
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    controller.abort(signal);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    const args = parseArgs(process.argv.slice(2));
    const keepOldS = args.keepOldS ?? keptOldS(process.env);
    if (args.clean !== undefined) {
      const removed = cleanMediaDir(args.clean, { keepOldS, keysDir: args.keys });
      console.log(
        removed.length
          ? `Removed from ${args.clean}: ${removed.join(', ')}`
          : `Nothing to remove in ${args.clean}: every old version may still be playing (kept ${keepOldS} s after it was replaced).`,
      );
      return;
    }
    const started = Date.now();
    const manifest = await prepareVideo(args.source, args.out, {
      preset: args.preset,
      chapters: args.chapters,
      acceptTruncated: args.acceptTruncated,
      keepOldS,
      signal: controller.signal,
      keysDir: args.keys,
    });
    console.log(describe(manifest, args.out, args.source, args.keys));
    console.log(`Done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  } catch (error) {
    if (!(error instanceof PrepareError)) throw error;
    console.error(`prepare-video: ${error.message}`);
    process.exitCode = controller.signal.aborted
      ? controller.signal.reason === 'SIGINT'
        ? 130
        : 143
      : 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
