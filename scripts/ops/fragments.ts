/**
 * Cuts an fMP4 piece (ffmpeg's: styp, one sidx per track, one moof and its mdat) into shorter
 * fragments, bytes copied, nothing encoded again. A Media Source shows nothing of a fragment
 * until it is whole, and ffmpeg's holds 2 s of video then 2 s of audio: cut in eight, the first
 * frame waits for the first 0.25 s of bytes, not 2 s (docs/benchmarks.md). Fragments after
 * the first begin with a frame that is not a keyframe, which MSE and hls.js accept (a fragment
 * continues the one before).
 */

export interface Box {
  type: string;
  start: number;
  end: number;
}

/** The boxes in `data` between `from` and `to` (sizes of 0 or 64 bits do not occur here). */
export function boxes(data: Buffer, from = 0, to = data.length): Box[] {
  const found: Box[] = [];
  for (let start = from; start + 8 <= to;) {
    const size = data.readUInt32BE(start);
    if (size < 8 || start + size > to) throw new Error('not a box');
    found.push({ type: data.toString('latin1', start + 4, start + 8), start, end: start + size });
    start += size;
  }
  return found;
}

const box = (type: string, ...parts: Buffer[]) => {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + parts.reduce((sum, part) => sum + part.length, 0));
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, ...parts]);
};

const u32 = (...values: number[]) => {
  const out = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => out.writeUInt32BE(value >>> 0, 4 * i));
  return out;
};

/** tfhd, tfdt and trun flags this reads (ISO/IEC 14496-12). */
const TFHD = { baseOffset: 0x1, duration: 0x8, size: 0x10, flags: 0x20, baseIsMoof: 0x20000 };
const TRUN = {
  offset: 0x1,
  firstFlags: 0x4,
  duration: 0x100,
  size: 0x200,
  flags: 0x400,
  cto: 0x800,
};

interface Track {
  tfhd: Buffer;
  baseTime: bigint;
  /** trun's version and flags, and each sample's record as written. */
  trunHead: number;
  firstFlags: number | null;
  records: Buffer[];
  durations: number[];
  sizes: number[];
  /** Where the samples' bytes begin in the piece. */
  dataOffset: number;
}

function readTrack(data: Buffer, traf: Box, moofStart: number): Track | null {
  const inner = boxes(data, traf.start + 8, traf.end);
  // Anything else (sample groups, encryption) would be lost in the cut.
  if (inner.map((b) => b.type).join() !== 'tfhd,tfdt,trun') return null;
  const [tfhd, tfdt, trun] = inner as [Box, Box, Box];
  const tfhdFlags = data.readUInt32BE(tfhd.start + 8) & 0xffffff;
  // Offsets from the moof (ffmpeg's), which the cut recomputes for each fragment.
  if (tfhdFlags & TFHD.baseOffset || !(tfhdFlags & TFHD.baseIsMoof)) return null;
  // After the track id: base data offset (absent), sample description index, then the defaults.
  let at = tfhd.start + 16 + (tfhdFlags & 0x2 ? 4 : 0);
  const defaults = { duration: NaN, size: NaN, flags: NaN };
  for (const name of ['duration', 'size', 'flags'] as const)
    if (tfhdFlags & TFHD[name]) {
      defaults[name] = data.readUInt32BE(at);
      at += 4;
    }
  const tfdtVersion = data.readUInt8(tfdt.start + 8);
  const baseTime =
    tfdtVersion === 1
      ? data.readBigUInt64BE(tfdt.start + 12)
      : BigInt(data.readUInt32BE(tfdt.start + 12));
  const trunHead = data.readUInt32BE(trun.start + 8);
  const flags = trunHead & 0xffffff;
  // A first sample's own flags need the others' defaults from the tfhd to be cut after it.
  if (!(flags & TRUN.offset) || (flags & TRUN.firstFlags && !(tfhdFlags & TFHD.flags))) return null;
  const count = data.readUInt32BE(trun.start + 12);
  const dataOffset = data.readInt32BE(trun.start + 16);
  at = trun.start + 20;
  const firstFlags = flags & TRUN.firstFlags ? data.readUInt32BE(at) : null;
  if (firstFlags !== null) at += 4;
  const fields = [TRUN.duration, TRUN.size, TRUN.flags, TRUN.cto].filter((f) => flags & f);
  const recordSize = 4 * fields.length;
  const records: Buffer[] = [];
  const durations: number[] = [];
  const sizes: number[] = [];
  for (let i = 0; i < count; i += 1, at += recordSize) {
    records.push(data.subarray(at, at + recordSize));
    const field = (f: number) => data.readUInt32BE(at + 4 * fields.indexOf(f));
    durations.push(flags & TRUN.duration ? field(TRUN.duration) : defaults.duration);
    sizes.push(flags & TRUN.size ? field(TRUN.size) : defaults.size);
  }
  if ([...durations, ...sizes].some((n) => !Number.isFinite(n))) return null;
  return {
    tfhd: data.subarray(tfhd.start, tfhd.end),
    baseTime,
    trunHead,
    firstFlags,
    records,
    durations,
    sizes,
    dataOffset: moofStart + dataOffset,
  };
}

/** The samples of `track` that begin in the `k`th of `parts` equal spans of its time. */
function span(track: Track, k: number, parts: number) {
  const total = track.durations.reduce((sum, d) => sum + d, 0);
  let [time, first, last] = [0, -1, -1];
  track.durations.forEach((duration, i) => {
    const part = Math.min(parts - 1, Math.floor((time * parts) / total));
    if (part === k) {
      if (first < 0) first = i;
      last = i;
    }
    time += duration;
  });
  return first < 0 ? null : { first, last };
}

/** The `k`th fragment of `parts`: a moof and an mdat with each track's samples in that time. */
function fragment(data: Buffer, sequence: Buffer, tracks: Track[], k: number, parts: number) {
  const picked = tracks.flatMap((track) => {
    const range = span(track, k, parts);
    return range ? [{ track, range }] : [];
  });
  if (!picked.length) return Buffer.alloc(0);
  const trafs = (offsets: number[]) =>
    picked.map(({ track, range: { first, last } }, t) => {
      const time = track.durations.slice(0, first).reduce((sum, d) => sum + d, 0);
      const keepFirstFlags = track.firstFlags !== null && first === 0;
      const head = keepFirstFlags ? track.trunHead : track.trunHead & ~TRUN.firstFlags;
      const tfdt = Buffer.alloc(12);
      tfdt.writeUInt32BE(0x01000000);
      tfdt.writeBigUInt64BE(track.baseTime + BigInt(time), 4);
      return box(
        'traf',
        track.tfhd,
        box('tfdt', tfdt),
        box(
          'trun',
          u32(head, last - first + 1, offsets[t]!),
          keepFirstFlags ? u32(track.firstFlags!) : Buffer.alloc(0),
          ...track.records.slice(first, last + 1),
        ),
      );
    });
  const bytes = picked.map(({ track, range }) => {
    const before = track.sizes.slice(0, range.first).reduce((sum, s) => sum + s, 0);
    const length = track.sizes.slice(range.first, range.last + 1).reduce((sum, s) => sum + s, 0);
    return data.subarray(track.dataOffset + before, track.dataOffset + before + length);
  });
  // The offsets are from the moof's start to each track's bytes in the mdat after it.
  const moofSize = box('moof', sequence, ...trafs(picked.map(() => 0))).length;
  const offsets = bytes.map(
    (_, t) => moofSize + 8 + bytes.slice(0, t).reduce((sum, b) => sum + b.length, 0),
  );
  return Buffer.concat([box('moof', sequence, ...trafs(offsets)), box('mdat', ...bytes)]);
}

/**
 * `piece` cut into `parts` fragments of equal time; `piece` itself when it is not laid out as
 * ffmpeg writes it (one moof, one trun per track, offsets from the moof), which plays as it is.
 */
export function splitFragments(piece: Buffer, parts: number): Buffer {
  try {
    const top = boxes(piece);
    const moofs = top.filter((b) => b.type === 'moof');
    const mdat = top.find((b) => b.type === 'mdat');
    const moof = moofs[0];
    if (parts < 2 || moofs.length !== 1 || !moof || !mdat || mdat.start !== moof.end) return piece;
    const [mfhd, ...trafs] = boxes(piece, moof.start + 8, moof.end);
    if (mfhd?.type !== 'mfhd' || !trafs.length || trafs.some((b) => b.type !== 'traf'))
      return piece;
    const tracks = trafs.map((traf) => readTrack(piece, traf, moof.start));
    if (tracks.some((t) => t === null)) return piece;
    const sequence = box('mfhd', piece.subarray(mfhd.start + 8, mfhd.end));
    const cut = Array.from({ length: parts }, (_, k) =>
      fragment(piece, sequence, tracks as Track[], k, parts),
    );
    const added = cut.reduce((sum, f) => sum + f.length, 0) - (mdat.end - moof.start);
    const before = top.filter((b) => b.end <= moof.start).map((b) => sidxGrown(piece, b, added));
    if (before.includes(null)) return piece;
    return Buffer.concat([...(before as Buffer[]), ...cut, piece.subarray(mdat.end)]);
  } catch {
    return piece;
  }
}

/**
 * A box before the moof; a sidx grown by `added`: its one reference is the moof and its mdat.
 * Null for a sidx with other references, which the cut would make wrong.
 */
function sidxGrown(data: Buffer, { type, start, end }: Box, added: number): Buffer | null {
  const copy = Buffer.from(data.subarray(start, end));
  if (type !== 'sidx') return copy;
  const references = 8 + 4 + 8 + (copy.readUInt8(8) === 0 ? 8 : 16);
  const at = references + 4;
  const word = copy.readUInt32BE(at);
  // One reference, to media (type 0), not to another sidx.
  if (copy.readUInt16BE(references + 2) !== 1 || word & 0x80000000) return null;
  copy.writeUInt32BE(word + added, at);
  return copy;
}

/** The bytes up to the end of `segment`'s first mdat: what a Media Source needs for a frame. */
export function firstFragmentBytes(segment: Buffer): number {
  return boxes(segment).find((b) => b.type === 'mdat')?.end ?? segment.length;
}

/**
 * Edits `init` (ffmpeg's, prepare-video's encode) so that the pictures play at their source's
 * time where edit lists are read (Safari, Firefox; Chromium's Media Source ignores one that
 * opens empty): ffmpeg opens the pictures' list with an empty edit as long as the audio's
 * advance, which the segments already carry; made 0 s long. hls.js reads no edit list.
 * False when an edit list is not as ffmpeg writes it; changes `init` in place.
 */
export function playFromSourceTime(init: Buffer): boolean {
  const moov = boxes(init).find((b) => b.type === 'moov');
  for (const trak of moov ? boxes(init, moov.start + 8, moov.end) : []) {
    if (trak.type !== 'trak') continue;
    const edts = boxes(init, trak.start + 8, trak.end).find((b) => b.type === 'edts');
    const elst = edts && boxes(init, edts.start + 8, edts.end).find((b) => b.type === 'elst');
    if (!elst || init.readUInt8(elst.start + 8) !== 0) return false;
    // Version 0 entries: segment_duration, media_time (-1: empty), media_rate.
    const entries = init.readUInt32BE(elst.start + 12);
    if (entries === 2 && init.readInt32BE(elst.start + 20) === -1)
      init.writeUInt32BE(0, elst.start + 16);
    else if (entries !== 1) return false;
  }
  return true;
}
