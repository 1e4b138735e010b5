/**
 * A short clip for the tests, made by ffmpeg (a test pattern and a tone) and published with
 * prepare-video: 640×360, so the ladder has three renditions (360p, 240p, 144p), with 6 s
 * segments. Published with prepare-video's own preset, B-frames included, as a real video is:
 * a few seconds of CPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest } from '../../config/media-layout.js';
import { prepareVideo } from '../ops/prepare-video.js';

export interface ClipOptions {
  size?: string;
  fps?: number;
  tone?: number;
  /**
   * Noise over the pattern, which the encoder cannot shrink, at this video bitrate (kbit/s),
   * faststart: the bench's stand-in for a real camera's video. Without it, the fastest encode.
   */
  noisyKbps?: number;
}

export function makeClip(
  path: string,
  seconds: number,
  { size = '640x360', fps = 25, tone = 440, noisyKbps }: ClipOptions = {},
): void {
  const pattern = `testsrc2=size=${size}:rate=${fps}:duration=${seconds}`;
  const encode = noisyKbps
    ? [
        ...['-preset', 'veryfast', '-b:v', `${noisyKbps}k`, '-maxrate', `${noisyKbps + 200}k`],
        ...['-bufsize', `${2 * (noisyKbps + 200)}k`, '-pix_fmt', 'yuv420p', '-b:a', '128k'],
        ...['-movflags', '+faststart'],
      ]
    : ['-preset', 'ultrafast'];
  const result = spawnSync(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'error', '-nostdin', '-y'],
      ...['-f', 'lavfi', '-i', noisyKbps ? `${pattern},noise=alls=30:allf=t+u` : pattern],
      ...['-f', 'lavfi', '-i', `sine=frequency=${tone}:duration=${seconds}`],
      ...['-c:v', 'libx264', ...encode, '-c:a', 'aac', '-shortest', path],
    ],
    { encoding: 'utf8' },
  );
  if (result.error || result.status !== 0)
    throw new Error(
      `ffmpeg could not make the test clip (apt-get install ffmpeg): ${result.stderr ?? result.error}`,
    );
}

/** Makes a clip of `seconds` and publishes it into a new temporary folder. */
export async function publishTestClip(
  seconds: number,
  options: { chapters?: string } = {},
): Promise<{ dir: string; manifest: Manifest }> {
  const work = mkdtempSync(join(tmpdir(), 'clip-'));
  const source = join(work, 'clip.mp4');
  makeClip(source, seconds);
  const dir = join(work, 'media');
  const manifest = await prepareVideo(source, dir, options);
  return { dir, manifest };
}
