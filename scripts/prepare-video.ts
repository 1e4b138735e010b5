/**
 * `npm run prepare-video -- SOURCE [--out DIR] [--chapters FILE]`: turns the company's video (mp4, mov, mkv; any
 * size or shape) into what `MEDIA_DIR=DIR npm start` serves: an H.264/AAC HLS ladder in fMP4
 * segments, its playlists, a progressive fallback MP4, a poster and Spanish captions.
 * Everything is made in a staging folder first: a source ffmpeg cannot read changes nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
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
import { chaptersToWebVtt, describeProblem, parseChapters } from '../machines/chapters.js';
import {
  PUBLISHED,
  RUNG_DIR_PATTERN,
  RUNG_FILES,
  SEGMENT_S,
  type Manifest,
  type PublishedRung as Rung,
} from '../config/media-layout.js';

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
 * (hls.js drops pure audio variants when video ones exist) and the start on slow ones: its first
 * segment (about 55 KB) and hls.js are what a first frame on Slow 3G waits for.
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

function run(args: string[], what: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on('error', () => reject(new PrepareError(FFMPEG_MISSING)));
    child.on('close', (code) =>
      code === 0
        ? resolvePromise()
        : reject(new PrepareError(`ffmpeg failed while ${what}:\n${stderr.trim()}`)),
    );
  });
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

/** Publishes `source` into `outDir`; returns what it made. */
export async function prepareVideo(
  sourceArg: string,
  outDirArg: string,
  options: { preset?: string; chapters?: string } = {},
): Promise<Manifest> {
  checkFfmpeg();
  const source = resolve(sourceArg);
  if (!existsSync(source) || !statSync(source).isFile())
    throw new PrepareError(`${sourceArg} is not a file.`);
  const info = probe(source);
  // Checked before minutes of encoding: a wrong line stops here, naming it.
  const chaptersTrack = options.chapters ? readChapters(options.chapters, info.durationS) : null;
  const outDir = resolve(outDirArg);
  mkdirSync(outDir, { recursive: true });
  const id = randomBytes(5).readUIntBE(0, 5).toString(36).padStart(8, '0').slice(-8);
  const stage = join(outDir, `.prepare-${id}`);
  mkdirSync(stage);
  try {
    return await publish(
      source,
      info,
      outDir,
      stage,
      id,
      options.preset ?? 'veryfast',
      chaptersTrack,
    );
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

async function publish(
  source: string,
  info: Probe,
  outDir: string,
  stage: string,
  id: string,
  preset: string,
  chapters: { vtt: string; count: number } | null,
): Promise<Manifest> {
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
    ...['-f', 'hls', '-hls_time', String(SEGMENT_S), '-hls_playlist_type', 'vod'],
    ...['-hls_segment_type', 'fmp4', '-hls_flags', 'independent_segments'],
    ...['-hls_fmp4_init_filename', RUNG_FILES.init],
    ...['-hls_segment_filename', join(stage, 'v%v', RUNG_FILES.segments)],
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
  const rungs: Rung[] = ladder.map((rung, i) => {
    const from = join(stage, `v${i}`);
    // ffmpeg names the init file init_N.mp4 whatever it is told.
    for (const name of readdirSync(from))
      if (/^init_\d+\.mp4$/.test(name)) renameSync(join(from, name), join(from, 'init.mp4'));
    const playlist = join(from, 'index.m3u8');
    writeFileSync(playlist, readFileSync(playlist, 'utf8').replace(/init_\d+\.mp4/, 'init.mp4'));
    const measured = measureRung(from);
    const dir = `${id}-${Math.min(rung.width, rung.height)}p`;
    renameSync(from, join(stage, dir));
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
  rmSync(join(stage, 'ffmpeg-master.m3u8'));

  // Safari starts on the first variant listed: the middle one (the fallback's), then the others
  // from the highest down. hls.js sorts them itself and starts from its estimate.
  const middle = rungs[Math.floor(rungs.length / 2)]!;
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

  // The fallback: the middle rung's segments joined into one faststart MP4 (no second encode).
  await run(
    [
      '-i',
      join(stage, middle.dir, RUNG_FILES.playlist),
      ...['-c', 'copy', '-movflags', '+faststart', join(stage, PUBLISHED.fallback)],
    ],
    'writing the fallback MP4',
  );

  // The poster is on screen only until the first frame, and on a slow link it shares the
  // bandwidth with that frame: 480p at q 5 is a third of 720p at q 4 (27 KB vs 72 KB here).
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

  const manifest: Manifest = {
    id,
    source: basename(source),
    durationS: Math.round(info.durationS * 1000) / 1000,
    frameRate,
    rungs,
    fallback: { rung: middle.dir, bytes: statSync(join(stage, PUBLISHED.fallback)).size },
    captions,
    chapters: chapters?.count ?? 0,
  };
  writeFileSync(join(stage, PUBLISHED.manifest), `${JSON.stringify(manifest, null, 2)}\n`);

  // Switch over: new rung folders first, the master last, then the previous publish goes.
  const previous = readPrevious(outDir);
  for (const rung of rungs) renameSync(join(stage, rung.dir), join(outDir, rung.dir));
  for (const name of [PUBLISHED.fallback, PUBLISHED.poster, PUBLISHED.captions, PUBLISHED.manifest])
    renameSync(join(stage, name), join(outDir, name));
  // A video published without chapters must not show the previous one's.
  if (chapters) renameSync(join(stage, PUBLISHED.chapters), join(outDir, PUBLISHED.chapters));
  else rmSync(join(outDir, PUBLISHED.chapters), { force: true });
  renameSync(join(stage, PUBLISHED.master), join(outDir, PUBLISHED.master));
  for (const dir of previous)
    if (RUNG_DIR_PATTERN.test(dir) && !dir.startsWith(id))
      rmSync(join(outDir, dir), { recursive: true, force: true });
  return manifest;
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

function readPrevious(outDir: string): string[] {
  try {
    const old = JSON.parse(readFileSync(join(outDir, PUBLISHED.manifest), 'utf8')) as {
      rungs?: { dir?: unknown }[];
    };
    return (old.rungs ?? []).map((r) => r.dir).filter((d): d is string => typeof d === 'string');
  } catch {
    return [];
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const kbps = (bps: number) => `${Math.round(bps / 1000)} kbit/s`;

/** `source` as the operator named it, for the commands the summary suggests. */
export function describe(manifest: Manifest, outDir: string, source = manifest.source): string {
  const minutes = Math.floor(manifest.durationS / 60);
  const seconds = Math.round(manifest.durationS % 60);
  const again = `npm run prepare-video -- ${source} --out ${outDir}`;
  const captionsBeside = `${join(dirname(source), basename(source, extname(source)))}.es.vtt`;
  return [
    `Published ${manifest.source} (${minutes} min ${seconds} s) into ${outDir}:`,
    ...manifest.rungs.map(
      (r) =>
        `  ${`${r.width}x${r.height}`.padEnd(10)} ${kbps(r.averageBandwidth).padStart(12)} average, ${kbps(r.peakBandwidth).padStart(12)} peak, ${mb(r.bytes).padStart(9)}  ${r.dir}/`,
    ),
    `  fallback  ${PUBLISHED.fallback} (${manifest.fallback.rung}), ${mb(manifest.fallback.bytes)}`,
    `  poster    ${PUBLISHED.poster}`,
    manifest.chapters
      ? `  chapters  ${PUBLISHED.chapters} (${manifest.chapters})`
      : `  chapters  MISSING: the page says "todavía no tiene capítulos". Add them (one "MM:SS Title" a line): ${again} --chapters chapters.txt`,
    manifest.captions === 'stub'
      ? `  captions  ${PUBLISHED.captions} is a STUB with no lines: no captions, no transcript. Add them: put the Spanish WebVTT at ${captionsBeside}, then ${again}`
      : `  captions  ${PUBLISHED.captions} (${{ kept: 'kept from beside the source', embedded: 'taken from the file' }[manifest.captions]})`,
    `Serve it with: MEDIA_DIR=${outDir} npm start`,
  ].join('\n');
}

function parseArgs(argv: string[]): {
  source: string;
  out: string;
  preset?: string;
  chapters?: string;
} {
  const positional: string[] = [];
  let out = 'media';
  let preset: string | undefined;
  let chapters: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--out') out = argv[++i] ?? '';
    else if (arg.startsWith('--out=')) out = arg.slice(6);
    else if (arg === '--preset') preset = argv[++i];
    else if (arg === '--chapters') chapters = argv[++i];
    else if (arg.startsWith('--')) throw new PrepareError(`Unknown option ${arg}.`);
    else positional.push(arg);
  }
  if (positional.length !== 1 || !out)
    throw new PrepareError(
      'Usage: npm run prepare-video -- SOURCE [--out DIR] [--chapters FILE] [--preset veryfast]',
    );
  return { source: positional[0]!, out, preset, chapters };
}

async function main() {
  try {
    const { source, out, preset, chapters } = parseArgs(process.argv.slice(2));
    const started = Date.now();
    const manifest = await prepareVideo(source, out, { preset, chapters });
    console.log(describe(manifest, out, source));
    console.log(`Done in ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  } catch (error) {
    if (!(error instanceof PrepareError)) throw error;
    console.error(`prepare-video: ${error.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
