/**
 * How prepare-video replaces what MEDIA_DIR serves without disturbing anyone: each publish is a
 * folder of its own (`v<UTC time>-<id>`), made under a dot-name the server never serves and
 * renamed into place whole; current.json, replaced by rename(2), then names it. The previous
 * versions stay while a page may still play them (prepare-video.ts's keptOldS). A version's key
 * (media-crypto.ts) lives in the keys folder as long as a version with its id is kept.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  CURRENT_FILE,
  PUBLISHED,
  ROOT_VERSION,
  RUNG_DIR_PATTERN,
  VERSION_DIR_PATTERN,
  keyFileName,
  parsePointer,
  type CurrentPointer,
} from '../../config/media-layout.js';

/** Work in progress (a publish's folder being made, a pointer being written): dot-names. */
export const STAGING_PREFIX = '.prepare-';
const POINTER_TEMP = `.${CURRENT_FILE}.`;
const LOCK_FILE = '.prepare.lock';

export class PublishBusyError extends Error {}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One publish (or clean-up) at a time per folder. A lock whose process is gone (kill -9, a
 * crash) is taken over. Returns the release.
 */
export function lockFolder(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid > 0 && pid !== process.pid && alive(pid))
        throw new PublishBusyError(
          `another prepare-video (process ${pid}) is publishing into ${dir}; wait for it to end.`,
        );
      unlinkSync(path);
    }
  }
  throw new PublishBusyError(`could not lock ${dir}.`);
}

export function readPointer(dir: string): CurrentPointer | null {
  try {
    return parsePointer(readFileSync(join(dir, CURRENT_FILE), 'utf8'));
  } catch {
    return null;
  }
}

/** current.json replaced whole: written and flushed under a dot-name, then renamed over it. */
function writePointer(dir: string, pointer: CurrentPointer): void {
  const temp = join(dir, `${POINTER_TEMP}${process.pid}`);
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, `${JSON.stringify(pointer, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, join(dir, CURRENT_FILE));
}

/** What an interrupted publish left (under the lock, so none is another's work in progress). */
export function removeLeftovers(dir: string, keysDir?: string): string[] {
  const pointer = readPointer(dir);
  const kept = new Set([pointer?.version, ...(pointer?.retired ?? []).map((r) => r.version)]);
  const left = readdirSync(dir).filter(
    (name) =>
      name.startsWith(STAGING_PREFIX) ||
      name.startsWith(POINTER_TEMP) ||
      // Renamed into place, but killed before current.json named it: never served.
      (VERSION_DIR_PATTERN.test(name) && !kept.has(name)),
  );
  for (const name of left) rmSync(join(dir, name), { recursive: true, force: true });
  if (keysDir) removeUnnamedKeys(dir, keysDir);
  return left;
}

/** `v` and the UTC time to the second, then the publish's id. */
export const versionName = (id: string, now: Date) =>
  `v${now.toISOString().replace(/\D/g, '').slice(0, 14)}-${id}`;

/** The publish id in a version's name (versionName): its key file's name. */
export const versionId = (version: string) => version.slice(version.lastIndexOf('-') + 1);

const KEY_NAME_PATTERN = /^[a-z0-9]{8}\.key$/;

/**
 * Removes the key files of every publish current.json does not name (a removed version's, an
 * interrupted publish's): a key outlives no version. The keys folder belongs to this one media
 * folder. Returns the names removed.
 */
export function removeUnnamedKeys(dir: string, keysDir: string): string[] {
  const pointer = readPointer(dir);
  const named = new Set(
    [pointer?.version, ...(pointer?.retired ?? []).map((r) => r.version)]
      .filter((version) => version && VERSION_DIR_PATTERN.test(version))
      .map((version) => keyFileName(versionId(version!))),
  );
  let names: string[];
  try {
    names = readdirSync(keysDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const stray = names.filter((name) => KEY_NAME_PATTERN.test(name) && !named.has(name));
  for (const name of stray) rmSync(join(keysDir, name), { force: true });
  return stray;
}

/**
 * Puts the finished `stage` in place as version `name` and serves it: one rename for the
 * folder, one for the pointer. The served publish (or the flat layout at the root) is kept,
 * retired now.
 */
export function switchTo(dir: string, stage: string, name: string, now: Date): void {
  const previous = readPointer(dir);
  const flat = !previous && existsSync(join(dir, PUBLISHED.master));
  const until = now.toISOString();
  const retired = previous
    ? [{ version: previous.version, until }, ...previous.retired]
    : flat
      ? [{ version: ROOT_VERSION, until }]
      : [];
  renameSync(stage, join(dir, name));
  try {
    writePointer(dir, { version: name, since: until, retired });
  } catch (error) {
    // A full disk: the folder goes again, the served publish stays served.
    rmSync(join(dir, name), { recursive: true, force: true });
    throw error;
  }
}

/** The flat layout's own files at MEDIA_DIR's root. */
function removeRootPublish(dir: string): void {
  for (const name of readdirSync(dir))
    if (RUNG_DIR_PATTERN.test(name) || Object.values(PUBLISHED).includes(name as never))
      rmSync(join(dir, name), { recursive: true, force: true });
}

/**
 * Removes the versions retired more than `keepS` ago (and what interrupted publishes left), and
 * their keys when `keysDir` is given; returns the versions removed. current.json drops them
 * first, so a crash half-way leaves only folders and keys nothing names, which the next run
 * removes.
 */
export function removeExpired(dir: string, keepS: number, now: Date, keysDir?: string): string[] {
  const pointer = readPointer(dir);
  const removed = removeLeftovers(dir, keysDir);
  if (!pointer) return removed;
  const expired = (until: string) => Date.parse(until) + keepS * 1000 <= now.getTime();
  const gone = pointer.retired.filter((r) => expired(r.until));
  if (!gone.length) return removed;
  writePointer(dir, { ...pointer, retired: pointer.retired.filter((r) => !expired(r.until)) });
  if (keysDir) removeUnnamedKeys(dir, keysDir);
  for (const { version } of gone) {
    if (version === ROOT_VERSION) removeRootPublish(dir);
    else rmSync(join(dir, version), { recursive: true, force: true });
    removed.push(version);
  }
  return removed;
}
