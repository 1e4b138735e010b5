/**
 * prepare-video publishes every media segment encrypted (AES-128, IV = sequence number, the init
 * clear, the key beside the media folder), and `npm run rekey` serves the same video again under
 * a new key and new URLs, leaving nothing the old key opens. Real ffmpeg, a short clip.
 */
import { spawnSync } from 'node:child_process';
import { createDecipheriv, createHash } from 'node:crypto';
import {
  existsSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CURRENT_FILE,
  KEY_BYTES,
  PUBLISHED,
  RUNG_FILES,
  keyFileName,
  keysDirFor,
  type Manifest,
} from '../../config/media-layout';
import { segmentIv } from '../../config/segment-iv';
import { cleanMediaDir, prepareVideo } from '../../scripts/ops/prepare-video';
import { KeyError, checkKeysDir } from '../../scripts/ops/media-crypto';
import { rekey } from '../../scripts/ops/rekey';
import { publishTestClip } from '../../scripts/test-support/test-clip';

let dir: string;
let keys: string;
let first: Manifest;
beforeAll(async () => {
  ({ dir, manifest: first } = await publishTestClip(8));
  keys = keysDirFor(dir);
}, 60_000);
afterAll(() => rmSync(dirname(dir), { recursive: true, force: true }));

const served = () =>
  JSON.parse(readFileSync(join(dir, CURRENT_FILE), 'utf8')) as {
    version: string;
    retired: { version: string }[];
  };
const manifestOf = (version: string) =>
  JSON.parse(readFileSync(join(dir, version, PUBLISHED.manifest), 'utf8')) as Manifest;
const keyOf = (id: string) => readFileSync(join(keys, keyFileName(id)));

/** The top-level boxes' types, or null when the bytes are not a chain of MP4 boxes. */
function boxTypes(data: Buffer): string[] | null {
  const types: string[] = [];
  for (let at = 0; at < data.length;) {
    const size = at + 8 <= data.length ? data.readUInt32BE(at) : 0;
    if (size < 8 || at + size > data.length) return null;
    types.push(data.toString('latin1', at + 4, at + 8));
    at += size;
  }
  return types;
}

/** The first box of each segment ffmpeg writes (type, major brand, minor version 0, brands). */
const STYP = Buffer.concat([
  Buffer.from([0, 0, 0, 24]),
  Buffer.from('stypmsdh', 'latin1'),
  Buffer.alloc(4),
  Buffer.from('msdhmsix', 'latin1'),
]);

/** The contract's decryption, written out here rather than taken from the code under test. */
function decrypt(data: Buffer, key: Buffer, sequence: number): Buffer | null {
  try {
    const decipher = createDecipheriv('aes-128-cbc', key, segmentIv(sequence));
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    return null;
  }
}

/** Each rendition's segments of `manifest`, in playlist order, as stored. */
function segmentsOf(manifest: Manifest) {
  return manifest.rungs.flatMap((rung) => {
    const folder = join(dir, manifest.version, rung.dir);
    const playlist = readFileSync(join(folder, RUNG_FILES.playlist), 'utf8');
    expect(playlist).toContain('#EXT-X-MEDIA-SEQUENCE:0');
    return playlist
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((name, sequence) => ({
        rung: rung.dir,
        name,
        sequence,
        stored: readFileSync(join(folder, name)),
      }));
  });
}

/** The packets' sizes and flags of the video stream, as ffprobe reads `file`. */
const videoPackets = (file: string) =>
  spawnSync(
    'ffprobe',
    [
      ...['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=size,flags'],
      ...['-of', 'csv=p=0', file],
    ],
    { encoding: 'utf8' },
  ).stdout;

/** A short name for bytes, so that a failure prints digests, not megabytes. */
const digest = (data: Buffer | null) =>
  data ? createHash('sha256').update(data).digest('hex') : 'does not decrypt';

/** Every segment decrypted with `key` (`manifest`'s by default), by rendition and name. */
function clearSegments(manifest: Manifest, key = keyOf(manifest.id)): Map<string, string> {
  return new Map(
    segmentsOf(manifest).map((s) => [
      `${s.rung.slice(manifest.id.length)}/${s.name}`,
      digest(decrypt(s.stored, key, s.sequence)),
    ]),
  );
}

describe('an encrypted publish', () => {
  it('stores every segment encrypted under a 16-byte key kept beside the media folder', () => {
    expect(first.encrypted).toBe(true);
    expect(manifestOf(first.version).encrypted).toBe(true);
    const keyFile = join(keys, keyFileName(first.id));
    expect(relative(dir, keyFile).startsWith('..')).toBe(true);
    expect(statSync(keyFile).size).toBe(KEY_BYTES);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(keys).mode & 0o777).toBe(0o700);
    // Nothing of the key in the served folder.
    const key = keyOf(first.id);
    for (const rung of first.rungs)
      for (const name of readdirSync(join(dir, first.version, rung.dir)))
        expect(readFileSync(join(dir, first.version, rung.dir, name)).includes(key)).toBe(false);

    const segments = segmentsOf(first);
    expect(segments.map((s) => s.sequence)).toEqual([0, 1, 0, 1, 0, 1]);
    for (const { stored, sequence } of segments) {
      expect(boxTypes(stored)).toBeNull();
      expect(stored.length % 16).toBe(0);
      const clear = decrypt(stored, key, sequence)!;
      // Whole boxes to the last byte, beginning as ffmpeg begins every clear segment.
      expect(boxTypes(clear)).toContain('mdat');
      expect(clear.subarray(0, STYP.length).toString('hex')).toBe(STYP.toString('hex'));
      // The IV is the sequence number: another one changes the first block.
      expect(decrypt(stored, key, sequence + 1)?.equals(clear)).toBe(false);
    }
  });

  it('keeps the init clear and names the key once, right after EXT-X-MAP, in each playlist', () => {
    for (const rung of first.rungs) {
      const folder = join(dir, first.version, rung.dir);
      expect(boxTypes(readFileSync(join(folder, RUNG_FILES.init)))?.[0]).toBe('ftyp');
      const lines = readFileSync(join(folder, RUNG_FILES.playlist), 'utf8').split('\n');
      const keyLines = lines.filter((line) => line.startsWith('#EXT-X-KEY'));
      expect(keyLines).toEqual(['#EXT-X-KEY:METHOD=AES-128,URI="key.bin"']);
      expect(lines.indexOf(keyLines[0]!)).toBe(
        lines.findIndex((line) => line.startsWith('#EXT-X-MAP')) + 1,
      );
    }
    const master = readFileSync(join(dir, first.version, PUBLISHED.master), 'utf8');
    expect(master).not.toContain('EXT-X-KEY');
  });

  it('decrypts into the clear cut: the same video the clear fallback holds', () => {
    const middle = join(dir, first.version, first.fallback.rung);
    const key = keyOf(first.id);
    const joined = join(dirname(dir), 'decrypted.mp4');
    writeFileSync(
      joined,
      Buffer.concat([
        readFileSync(join(middle, RUNG_FILES.init)),
        ...segmentsOf(first)
          .filter((s) => s.rung === first.fallback.rung)
          .map((s) => decrypt(s.stored, key, s.sequence)!),
      ]),
    );
    const fallback = join(dir, first.version, PUBLISHED.fallback);
    expect(boxTypes(readFileSync(fallback))).toContain('moov');
    expect(videoPackets(joined).split('\n').length).toBeGreaterThan(150);
    expect(videoPackets(joined)).toBe(videoPackets(fallback));
  });
});

describe('npm run rekey', () => {
  it('serves the same video under a new id and key, and removes every other version and key', async () => {
    // A second publish: the first is retired, kept with its key for pages still playing it.
    const source = join(dirname(dir), 'clip.mp4');
    const second = await prepareVideo(source, dir, { preset: 'ultrafast' });
    expect(served().retired.map((r) => r.version)).toEqual([first.version]);
    expect(existsSync(join(keys, keyFileName(first.id)))).toBe(true);
    const clear = clearSegments(second);
    const oldKey = keyOf(second.id);
    const fallback = readFileSync(join(dir, second.version, PUBLISHED.fallback));

    const done = rekey(dir);
    expect(done).toMatchObject({ from: second.version, rungs: 3, segments: 6 });
    expect(served()).toMatchObject({ version: done.to, retired: [] });
    expect(readdirSync(dir).filter((name) => !name.startsWith('.'))).toEqual([
      CURRENT_FILE,
      done.to,
    ]);
    const now = manifestOf(done.to);
    expect(now.id).not.toBe(second.id);
    expect(done.to).toBe(now.version);
    expect(readdirSync(keys)).toEqual([keyFileName(now.id)]);
    expect(statSync(join(keys, keyFileName(now.id))).mode & 0o777).toBe(0o600);
    expect(keyOf(now.id).equals(oldKey)).toBe(false);

    expect(now.encrypted).toBe(true);
    expect(now.rungs.map((r) => r.dir)).toEqual(
      second.rungs.map((r) => `${now.id}${r.dir.slice(second.id.length)}`),
    );
    expect(now.fallback.rung).toBe(`${now.id}${second.fallback.rung.slice(second.id.length)}`);
    const master = readFileSync(join(dir, done.to, PUBLISHED.master), 'utf8');
    expect(master).not.toContain(second.id);
    for (const rung of now.rungs) expect(master).toContain(`\n${rung.dir}/index.m3u8\n`);
    expect(readFileSync(join(dir, done.to, PUBLISHED.fallback)).equals(fallback)).toBe(true);

    expect(clearSegments(now)).toEqual(clear);
    // The old key opens none of them.
    for (const [name, opened] of clearSegments(now, oldKey))
      expect(opened).not.toBe(clear.get(name));
  }, 60_000);

  it('removes a replaced publish’s key with the publish, and keeps the served one’s', async () => {
    const source = join(dirname(dir), 'clip.mp4');
    const before = served().version;
    const next = await prepareVideo(source, dir, { preset: 'ultrafast' });
    const beforeId = manifestOf(before).id;
    expect(readdirSync(keys).sort()).toEqual([keyFileName(beforeId), keyFileName(next.id)].sort());
    expect(cleanMediaDir(dir, { keepOldS: 0 })).toEqual([before]);
    expect(readdirSync(keys)).toEqual([keyFileName(next.id)]);
  }, 60_000);

  it('refuses with one line and changes nothing when the key is missing or nothing is served', () => {
    const snapshot = () => ({
      media: readdirSync(dir).sort(),
      pointer: readFileSync(join(dir, CURRENT_FILE), 'utf8'),
      keys: readdirSync(keys).sort(),
    });
    const id = manifestOf(served().version).id;
    const keyFile = join(keys, keyFileName(id));
    renameSync(keyFile, `${keyFile}.away`);
    try {
      const was = snapshot();
      expect(() => rekey(dir)).toThrow(/key .*cannot be read \(ENOENT\)\. Nothing was changed\.$/);
      expect(snapshot()).toEqual(was);
      const cli = spawnSync('node_modules/.bin/tsx', ['scripts/ops/rekey.ts', '--media', dir], {
        encoding: 'utf8',
      });
      expect(cli.status).toBe(1);
      expect(cli.stderr).toMatch(
        /^rekey: the key .* cannot be read \(ENOENT\)\. Nothing was changed\.\n$/,
      );
      expect(snapshot()).toEqual(was);
    } finally {
      renameSync(`${keyFile}.away`, keyFile);
    }
    expect(() => rekey(dirname(dir))).toThrow(/has no current\.json/);
  }, 30_000);
});

describe('the keys folder', () => {
  it('is refused inside the media folder, whatever its name, and taken beside it', () => {
    const media = '/srv/media';
    for (const inside of ['/srv/media', '/srv/media/keys', '/srv/media/..keys', '/srv/media/.keys'])
      expect(() => checkKeysDir(media, inside), inside).toThrow(KeyError);
    for (const beside of ['/srv/media.keys', '/srv/keys', '/var/keys'])
      expect(() => checkKeysDir(media, beside), beside).not.toThrow();
  });
});
