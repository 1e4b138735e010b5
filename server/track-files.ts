import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PUBLISHED } from '../config/media-layout.js';
import { MAX_TRACK_LENGTH, parseWebVtt } from '../machines/webvtt.js';
import type { ServerConfig } from './config.js';

type Track = 'captions' | 'chapters';

/**
 * The captions' and the chapters' files the video routes serve: the served publish's (its folder
 * in MEDIA_DIR, server/published.ts), or the settings'.
 */
export function trackFiles(config: ServerConfig, publishDir: string | null): Record<Track, string> {
  return {
    captions: publishDir ? join(publishDir, PUBLISHED.captions) : config.captionsFile,
    chapters: publishDir ? join(publishDir, PUBLISHED.chapters) : config.chaptersFile,
  };
}

/** Whether the file holds at least one cue; absent, unreadable or not WebVTT is none. */
async function hasCues(path: string): Promise<boolean> {
  const size = await stat(path).then(
    (stats) => stats.size,
    () => Infinity,
  );
  if (size > MAX_TRACK_LENGTH) return false;
  const text = await readFile(path, 'utf8').catch(() => '');
  return (parseWebVtt(text)?.length ?? 0) > 0;
}

/** The tracks with nothing to show (no chapters yet, prepare-video's captions stub). */
export async function emptyTracks(files: Record<Track, string>): Promise<Track[]> {
  const [captions, chapters] = await Promise.all([
    hasCues(files.captions),
    hasCues(files.chapters),
  ]);
  return [...(captions ? [] : ['captions' as const]), ...(chapters ? [] : ['chapters' as const])];
}

/**
 * The page with `data-no-captions`, `data-no-chapters` on its root: the panels are one line high
 * from the first paint (panels.css) instead of shrinking when the empty track arrives.
 */
export function withEmptyTracks(html: string, empty: Track[]): string {
  if (empty.length === 0) return html;
  const marks = empty.map((track) => ` data-no-${track}`).join('');
  return html.replace(/<html\b/, (tag) => `${tag}${marks}`);
}
