/**
 * `npm start` on the defaults shows the product as it is: the sample published as adaptive video
 * (ladder, quality menu, short first segment, download) by prepare-video, once, into
 * SAMPLE_PUBLISH_DIR; made again only when the sample or the publishing code changes. Where
 * ffmpeg is missing the single MP4 is served, and the start says how to get the rest.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyFileName, keysDirFor } from '../../config/media-layout';
import type { Env } from '../../config/settings';
import { readPointer, versionId } from './media-versions';
import { PrepareError, prepareVideo } from './prepare-video';

export const SAMPLE_PUBLISH_DIR = join('data', 'sample-publish');
const SAMPLE = join('media', 'sample.mp4');
/** What the publish is made from: a change to any of them makes it again. */
const MADE_FROM = [
  SAMPLE,
  'media/sample.es.vtt',
  'media/sample.chapters.vtt',
  'scripts/ops/prepare-video.ts',
  'scripts/ops/fragments.ts',
  'scripts/ops/media-crypto.ts',
  'scripts/ops/media-versions.ts',
  'config/media-layout.ts',
];
/** A dotfile in the publish's folder: the server never serves MEDIA_DIR's root files. */
const STAMP = '.made-from';

/** The defaults: the operator named no video of their own (an empty MEDIA_DIR is a choice too). */
export const onSampleDefaults = (env: Env) =>
  env.MEDIA_DIR === undefined && env.VIDEO_FILE === undefined;

function fingerprint(root: string): string {
  const hash = createHash('sha256');
  for (const file of MADE_FROM) {
    const path = join(root, file);
    hash.update(`${file}\0`).update(existsSync(path) ? readFileSync(path) : '');
  }
  return hash.digest('hex');
}

/** A publish is served, and its key is there: without it nothing of the publish plays. */
function keyed(dir: string): boolean {
  const pointer = readPointer(dir);
  return !!pointer && existsSync(join(keysDirFor(dir), keyFileName(versionId(pointer.version))));
}

const hasFfmpeg = () =>
  ['ffmpeg', 'ffprobe'].every(
    (tool) => spawnSync(tool, ['-version'], { stdio: 'ignore' }).status === 0,
  );

/**
 * The folder to serve as MEDIA_DIR (relative to `root`), published first if it is missing or
 * stale; null when it cannot be made, after saying why on `log`.
 */
export async function samplePublish(
  root: string,
  { log = console.log, signal }: { log?: (line: string) => void; signal?: AbortSignal } = {},
): Promise<string | null> {
  const dir = join(root, SAMPLE_PUBLISH_DIR);
  const stamp = join(dir, STAMP);
  const wanted = fingerprint(root);
  const made = existsSync(stamp) && readFileSync(stamp, 'utf8');
  if (made === wanted && keyed(dir)) return SAMPLE_PUBLISH_DIR;
  if (!hasFfmpeg()) {
    log(
      'ffmpeg not found: serving the single MP4 (no quality menu, no adaptive video). `sudo apt-get install -y ffmpeg`, then `npm start` again, publishes the sample as adaptive video.',
    );
    return null;
  }
  log(`Publishing ${SAMPLE} as adaptive video into ${SAMPLE_PUBLISH_DIR} (once)…`);
  try {
    await prepareVideo(join(root, SAMPLE), dir, { signal });
  } catch (error) {
    if (!(error instanceof PrepareError)) throw error;
    if (signal?.aborted) return null;
    log(`Could not publish the sample (${error.message}): serving the single MP4.`);
    return null;
  }
  writeFileSync(stamp, wanted);
  return SAMPLE_PUBLISH_DIR;
}
