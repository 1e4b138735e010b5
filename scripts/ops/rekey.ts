/**
 * `npm run rekey -- --media DIR [--keys DIR]`: after a leaked password, the served publish again
 * under a new key, with nothing encoded again, and every other version and key removed at once.
 * Whoever kept the old key (or segments fetched with it) opens nothing served afterwards. The new
 * publish has a new id, so every URL changes too: browsers keep segments as immutable under
 * their URL, and a copy cached under an old one must not be taken for the new bytes.
 */
import {
  cpSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CURRENT_FILE,
  PUBLISHED,
  keyFileName,
  keysDirFor,
  type Manifest,
} from '../../config/media-layout.js';
import { KeyError, checkKeysDir, encryptRung, newKey, readKey, writeKey } from './media-crypto.js';
import {
  PublishBusyError,
  STAGING_PREFIX,
  lockFolder,
  readPointer,
  removeExpired,
  removeUnnamedKeys,
  versionName,
} from './media-versions.js';
import { PrepareError, newPublishId, serveWithKey } from './prepare-video.js';

export class RekeyError extends Error {}
/** The new publish is served; what failed came after. */
class ServedError extends RekeyError {}

export interface Rekeyed {
  from: string;
  to: string;
  keyFile: string;
  rungs: number;
  segments: number;
  /** The versions removed, and the key files. */
  removed: string[];
  keysRemoved: string[];
}

/** The same bytes under a second name: nothing to copy for files the rekey does not change. */
function linkOrCopy(from: string, to: string): void {
  if (statSync(from).isDirectory()) return cpSync(from, to, { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    // Another file system, or one without hard links.
    copyFileSync(from, to);
  }
}

/** One line for an error the operator can act on; anything else is a bug and stays as it is. */
function explain(error: unknown): unknown {
  const { code, path } = error as NodeJS.ErrnoException;
  const why =
    error instanceof RekeyError ||
    error instanceof KeyError ||
    error instanceof PrepareError ||
    error instanceof PublishBusyError
      ? error.message
      : code && path
        ? `${path} cannot be used (${code}).`
        : error instanceof SyntaxError
          ? `the served version's ${PUBLISHED.manifest} is not JSON (${error.message}).`
          : null;
  return why === null ? error : new RekeyError(`${why} Nothing was changed.`);
}

/**
 * Writes the served version of `dir` again under a new id and key, serves it, then removes
 * every other version and key file. On any error before the switch the served publish is as
 * it was.
 */
export function rekey(dirArg: string, options: { keysDir?: string; now?: Date } = {}): Rekeyed {
  const dir = resolve(dirArg);
  const keysDir = resolve(options.keysDir ?? keysDirFor(dir));
  const now = options.now ?? new Date();
  let release: (() => void) | undefined;
  let stage: string | undefined;
  try {
    checkKeysDir(dir, keysDir);
    if (!existsSync(dir)) throw new RekeyError(`${dirArg} does not exist.`);
    release = lockFolder(dir);
    const pointer = readPointer(dir);
    if (!pointer)
      throw new RekeyError(
        existsSync(join(dir, CURRENT_FILE))
          ? `${join(dirArg, CURRENT_FILE)} is not one prepare-video wrote.`
          : `${dirArg} has no ${CURRENT_FILE}: publish with prepare-video first (a folder published before versions cannot be rekeyed).`,
      );
    const from = join(dir, pointer.version);
    const old = JSON.parse(readFileSync(join(from, PUBLISHED.manifest), 'utf8')) as Manifest;
    // A publish made before encryption is encrypted now, from its clear segments.
    const oldKey = old.encrypted ? readKey(keysDir, old.id) : null;

    const id = newPublishId();
    const version = versionName(id, now);
    const key = newKey();
    const renamed = (rungDir: string) => {
      if (!rungDir.startsWith(`${old.id}-`))
        throw new RekeyError(`media.json names a rendition ${rungDir} outside publish ${old.id}.`);
      return `${id}${rungDir.slice(old.id.length)}`;
    };
    const rungDirs = new Map(old.rungs.map((rung) => [rung.dir, renamed(rung.dir)]));

    stage = join(dir, `${STAGING_PREFIX}${id}`);
    mkdirSync(stage);
    let segments = 0;
    for (const [oldDir, newDir] of rungDirs) {
      const to = join(stage, newDir);
      mkdirSync(to);
      segments += encryptRung(join(from, oldDir), to, key, oldKey);
      // The init segment, clear, and anything else the rekey leaves as it is.
      for (const name of readdirSync(join(from, oldDir)))
        if (!existsSync(join(to, name))) linkOrCopy(join(from, oldDir, name), join(to, name));
    }
    const master = readFileSync(join(from, PUBLISHED.master), 'utf8')
      .split('\n')
      .map((line) => {
        const rung = line.split('/')[0]!;
        return rungDirs.has(rung) ? `${rungDirs.get(rung)}${line.slice(rung.length)}` : line;
      })
      .join('\n');
    writeFileSync(join(stage, PUBLISHED.master), master);
    // Sizes and rates stay: a clear publish encrypted here grows by at most 16 bytes a segment.
    const manifest: Manifest = {
      ...old,
      id,
      version,
      rungs: old.rungs.map((rung) => ({ ...rung, dir: rungDirs.get(rung.dir)! })),
      fallback: { ...old.fallback, rung: rungDirs.get(old.fallback.rung) ?? old.fallback.rung },
      encrypted: true,
    };
    writeFileSync(join(stage, PUBLISHED.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const name of readdirSync(from))
      if (!rungDirs.has(name) && !existsSync(join(stage, name)))
        linkOrCopy(join(from, name), join(stage, name));

    const keyFile = join(keysDir, keyFileName(id));
    serveWithKey(dir, stage, version, now, () => writeKey(keysDir, id, key));
    let removed: string[];
    let keysRemoved: string[];
    try {
      // Not kept for pages still playing: the old key must open nothing still served.
      removed = removeExpired(dir, 0, now);
      keysRemoved = removeUnnamedKeys(dir, keysDir);
    } catch (error) {
      throw new ServedError(
        `${version} is served under its new key, but the old versions or keys could not all be removed (${(error as Error).message}): remove them with npm run prepare-video -- --clean ${dirArg} --keep-old 0${options.keysDir ? ` --keys ${options.keysDir}` : ''}.`,
      );
    }
    return {
      from: pointer.version,
      to: version,
      keyFile,
      rungs: rungDirs.size,
      segments,
      removed,
      keysRemoved,
    };
  } catch (error) {
    throw error instanceof ServedError ? error : explain(error);
  } finally {
    if (stage) rmSync(stage, { recursive: true, force: true });
    release?.();
  }
}

const USAGE = 'Usage: npm run rekey -- --media DIR [--keys DIR]';

function parseArgs(argv: string[]): { media: string; keys?: string } {
  let media = '';
  let keys: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--media') media = argv[++i] ?? '';
    else if (arg === '--keys') keys = argv[++i] ?? '';
    else throw new RekeyError(`unknown argument ${arg}; ${USAGE}`);
  }
  if (!media || keys === '') throw new RekeyError(USAGE);
  return { media, keys };
}

function main() {
  const started = Date.now();
  try {
    const args = parseArgs(process.argv.slice(2));
    const done = rekey(args.media, { keysDir: args.keys });
    const list = (names: string[]) => (names.length ? names.join(', ') : 'none');
    console.log(
      [
        `Rekeyed ${args.media}: ${done.from} is now served as ${done.to} (new URLs), under a new key ${done.keyFile}.`,
        `  ${done.segments} segments in ${done.rungs} renditions re-encrypted; init, fallback, poster and tracks linked as they were.`,
        `  removed versions: ${list(done.removed)}; removed keys: ${list(done.keysRemoved)}.`,
        '  Pages playing an old version stop at their next segment; reloading plays the new one.',
        `Done in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
      ].join('\n'),
    );
  } catch (error) {
    if (!(error instanceof RekeyError)) throw error;
    console.error(`rekey: ${error.message}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
