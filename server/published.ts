import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CURRENT_FILE,
  KEY_BYTES,
  PUBLISHED,
  ROOT_VERSION,
  VERSION_DIR_PATTERN,
  keyFileName,
  parseMediaInfo,
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

/** The publish id a rendition's folder name starts with (RUNG_DIR_PATTERN). */
export const rungId = (rung: string) => rung.slice(0, rung.indexOf('-'));

/**
 * The folder holding rendition `rung` (its name starts with its publish's id, which ends its
 * version's name): a kept version, or the flat layout's root while it is served or kept.
 * Undefined for any other id: a publish no longer kept serves nothing.
 */
export function rungFolder(mediaDir: string, served: Served, rung: string): string | undefined {
  const id = rungId(rung);
  const version = served.kept.find((name) => name !== ROOT_VERSION && name.endsWith(`-${id}`));
  if (version) return join(mediaDir, version);
  return served.version === null || served.kept.includes(ROOT_VERSION) ? mediaDir : undefined;
}

/** What serving a publish needs from its media.json. */
interface PublishFacts {
  id: string;
  /** Its segments are under its key (config/media-layout.ts): public, unlike its playlists. */
  encrypted: boolean;
}

/** A 16-byte key, or why there is none (for the log: never the key itself). */
type KeyRead = { key: Buffer } | { problem: string };

/** MEDIA_DIR's publishes and their keys, read from the disk and cached while unchanged. */
export interface Publishes {
  mediaDir: string;
  served: () => Promise<Served>;
  /**
   * The publish in `folder` that rendition `rung` belongs to: its id is the rung's prefix and
   * the rung's folder is there. Null otherwise.
   */
  rungPublish: (folder: string, rung: string) => Promise<PublishFacts | null>;
  key: (id: string) => Promise<KeyRead>;
  /** The served publish's id and key when it is encrypted; null when it is clear. */
  servedKey: () => Promise<({ id: string } & KeyRead) | null>;
}

function factsOf(text: string): PublishFacts | null {
  try {
    const { id, encrypted } = JSON.parse(text) as { id?: unknown; encrypted?: unknown };
    return typeof id === 'string' ? { id, encrypted: encrypted === true } : null;
  } catch {
    return null;
  }
}

export function publishes(mediaDir: string, keysDir: string): Publishes {
  const served = servedVersions(mediaDir);
  // A version folder never changes, but the flat layout's root is published over in place:
  // each media.json is read again when its file changes, as current.json is.
  const cache = new Map<string, { key: string; facts: PublishFacts | null }>();
  // The media.json of a publish's folder; null when it has none that names an id.
  const facts = async (folder: string) => {
    const file = join(folder, PUBLISHED.manifest);
    const stats = await stat(file).catch(() => null);
    if (!stats) {
      cache.delete(folder);
      return null;
    }
    const key = `${stats.ino}-${stats.mtimeMs}-${stats.size}`;
    const known = cache.get(folder);
    if (known?.key === key) return known.facts;
    const read = factsOf(await readFile(file, 'utf8').catch(() => ''));
    cache.set(folder, { key, facts: read });
    return read;
  };
  const rungPublish = async (folder: string, rung: string) => {
    const publish = await facts(folder);
    return publish?.id === rungId(rung) && existsSync(join(folder, rung)) ? publish : null;
  };
  const key = async (id: string): Promise<KeyRead> => {
    const bytes = await readFile(join(keysDir, keyFileName(id))).catch(
      (error: NodeJS.ErrnoException) => error.code ?? 'unreadable',
    );
    if (typeof bytes === 'string') return { problem: `key file ${bytes}` };
    if (bytes.length !== KEY_BYTES)
      return { problem: `key file holds ${bytes.length} bytes, not ${KEY_BYTES}` };
    return { key: bytes };
  };
  const servedKey = async () => {
    const publish = await facts((await served()).dir);
    return publish?.encrypted ? { id: publish.id, ...(await key(publish.id)) } : null;
  };
  return { mediaDir, served, rungPublish, key, servedKey };
}

/** The served publish's length in seconds (its media.json), or null when it says none. */
export async function servedDurationS(mediaDir: string): Promise<number | null> {
  const { dir } = await servedVersions(mediaDir)();
  const text = await readFile(join(dir, PUBLISHED.manifest), 'utf8').catch(() => null);
  return parseMediaInfo(text)?.durationS ?? null;
}
