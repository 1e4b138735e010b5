/**
 * `npm start` on the defaults serves the sample as adaptive video (scripts/ops/sample-publish.ts):
 * published once with the real ffmpeg, made again when the sample changes, the single MP4 where
 * ffmpeg is missing. tests/server/stop.test.ts starts `npm start` on the defaults.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CURRENT_FILE, PUBLISHED, keyFileName, keysDirFor } from '../../config/media-layout';
import {
  SAMPLE_PUBLISH_DIR,
  onSampleDefaults,
  samplePublish,
} from '../../scripts/ops/sample-publish';
import { makeClip } from '../../scripts/test-support/test-clip';

const work = mkdtempSync(join(tmpdir(), 'sample-publish-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A root with a short clip as its sample. */
function rootWithSample(seconds: number): string {
  const root = mkdtempSync(join(work, 'root-'));
  mkdirSync(join(root, 'media'));
  makeClip(join(root, 'media', 'sample.mp4'), seconds);
  return root;
}

const served = (root: string) =>
  JSON.parse(readFileSync(join(root, SAMPLE_PUBLISH_DIR, CURRENT_FILE), 'utf8')) as {
    version: string;
  };

describe('the sample publish', () => {
  it('is used only when the operator named no video of their own', () => {
    expect(onSampleDefaults({})).toBe(true);
    expect(onSampleDefaults({ MEDIA_DIR: '' })).toBe(false);
    expect(onSampleDefaults({ MEDIA_DIR: 'media/published' })).toBe(false);
    expect(onSampleDefaults({ VIDEO_FILE: 'video.mp4' })).toBe(false);
  });

  it('is published once, with its ladder, and made again only when the sample changes', async () => {
    const root = rootWithSample(4);
    // A ready chapters track beside the source is published as it is, as the captions are.
    const chapters =
      'WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.000\nUno\n\n2\n00:00:02.000 --> 00:00:04.000\nDos\n';
    writeFileSync(join(root, 'media', 'sample.chapters.vtt'), chapters);
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    expect(await samplePublish(root, { log })).toBe(SAMPLE_PUBLISH_DIR);
    expect(lines).toEqual([expect.stringMatching(/^Publishing media\/sample\.mp4/)]);
    const first = served(root).version;
    const master = readFileSync(join(root, SAMPLE_PUBLISH_DIR, first, PUBLISHED.master), 'utf8');
    expect(master.match(/#EXT-X-STREAM-INF/g)).toHaveLength(3);
    const published = join(root, SAMPLE_PUBLISH_DIR, first);
    expect(readFileSync(join(published, PUBLISHED.chapters), 'utf8')).toBe(chapters);
    const manifest = JSON.parse(readFileSync(join(published, PUBLISHED.manifest), 'utf8'));
    expect(manifest).toMatchObject({ chapters: 2, encrypted: true });
    const keys = keysDirFor(join(root, SAMPLE_PUBLISH_DIR));
    expect(readdirSync(keys)).toEqual([keyFileName(manifest.id)]);

    expect(await samplePublish(root, { log })).toBe(SAMPLE_PUBLISH_DIR);
    expect(lines).toHaveLength(1);
    expect(served(root).version).toBe(first);

    // Without its key nothing of the publish plays: made again.
    rmSync(keys, { recursive: true });
    expect(await samplePublish(root, { log })).toBe(SAMPLE_PUBLISH_DIR);
    expect(lines).toHaveLength(2);
    const second = served(root).version;
    expect(second).not.toBe(first);

    makeClip(join(root, 'media', 'sample.mp4'), 3, { tone: 660 });
    expect(await samplePublish(root, { log })).toBe(SAMPLE_PUBLISH_DIR);
    expect(lines).toHaveLength(3);
    expect(served(root).version).not.toBe(second);
  }, 120_000);

  it('without ffmpeg: the single MP4, and the start says how to get the rest', async () => {
    const root = rootWithSample(2);
    const path = process.env.PATH;
    process.env.PATH = mkdtempSync(join(work, 'no-ffmpeg-'));
    const lines: string[] = [];
    try {
      expect(await samplePublish(root, { log: (line) => lines.push(line) })).toBeNull();
    } finally {
      process.env.PATH = path;
    }
    expect(lines).toEqual([expect.stringContaining('apt-get install -y ffmpeg')]);
    expect(readdirSync(root)).toEqual(['media']);
  });
});
