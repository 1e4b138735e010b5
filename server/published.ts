import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CURRENT_FILE,
  ROOT_VERSION,
  VERSION_DIR_PATTERN,
  parsePointer,
} from '../config/media-layout.js';

/** What MEDIA_DIR serves right now. */
export interface Served {
  /** The version folder's name, or null for the flat layout (no current.json). */
  version: string | null;
  /** The folder holding the served master, media.json, fallback, poster and captions. */
  dir: string;
  /** Every version a page may still be playing (the served one first), by folder name. */
  kept: string[];
}

/**
 * MEDIA_DIR's pointer (current.json), read again only when its file changes: a publish replaces
 * it by rename, so a new inode. A pointer that cannot be read means the flat layout.
 */
export function servedVersions(mediaDir: string): () => Promise<Served> {
  const file = join(mediaDir, CURRENT_FILE);
  const flat: Served = { version: null, dir: mediaDir, kept: [] };
  let cached: { key: string; served: Served } | null = null;
  return async () => {
    const stats = await stat(file).catch(() => null);
    if (!stats) return flat;
    const key = `${stats.ino}-${stats.mtimeMs}-${stats.size}`;
    if (cached?.key === key) return cached.served;
    const pointer = parsePointer(await readFile(file, 'utf8').catch(() => ''));
    const served: Served = pointer
      ? {
          version: pointer.version,
          dir: join(mediaDir, pointer.version),
          kept: [pointer.version, ...pointer.retired.map((r) => r.version)],
        }
      : flat;
    cached = { key, served };
    return served;
  };
}

/** The folder of a kept version named in a URL, or undefined: nothing else is served. */
export function keptFolder(mediaDir: string, served: Served, version: string): string | undefined {
  if (!VERSION_DIR_PATTERN.test(version) || !served.kept.includes(version)) return undefined;
  return join(mediaDir, version);
}

/**
 * The folder holding rendition `rung` (its name starts with its publish's id, which ends its
 * version's name): the served version, a kept one, or the flat layout's root.
 */
export function rungParent(mediaDir: string, served: Served, rung: string): string {
  const id = rung.slice(0, rung.indexOf('-'));
  const version = served.kept.find((name) => name.endsWith(`-${id}`));
  return version && version !== ROOT_VERSION ? join(mediaDir, version) : mediaDir;
}
