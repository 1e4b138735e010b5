import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { segmentIv } from '../../config/segment-iv';
import {
  decryptSegment,
  importSegmentKey,
  segmentDecrypter,
} from '../../src/video-start/segment-crypto';

/** A segment as prepare-video stores it (config/media-layout.ts): AES-128-CBC, IV = sequence. */
const encrypt = (key: Buffer, sequence: number, clear: Buffer) => {
  const cipher = createCipheriv('aes-128-cbc', key, segmentIv(sequence));
  return Buffer.concat([cipher.update(clear), cipher.final()]);
};

/** `bytes` cut at `sizes` in turn (the pieces a slow link brings), the rest in one. */
function pieces(bytes: Buffer, sizes: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const size of sizes) {
    if (at >= bytes.length) break;
    out.push(new Uint8Array(bytes.subarray(at, at + size)));
    at += size;
  }
  if (at < bytes.length) out.push(new Uint8Array(bytes.subarray(at)));
  return out;
}

async function decryptInPieces(
  key: CryptoKey,
  sequence: number,
  encrypted: Buffer,
  sizes: number[],
) {
  const decrypter = segmentDecrypter(key, sequence);
  const clear: Uint8Array[] = [];
  for (const piece of pieces(encrypted, sizes)) clear.push(await decrypter.next(piece));
  clear.push(await decrypter.end());
  return Buffer.concat(clear);
}

describe('segment decryption as the bytes arrive', () => {
  const raw = randomBytes(16);
  const clear = randomBytes(10_000 + 7);

  it.each([
    ['one piece', [100_000]],
    ['pieces off the block size', [1, 15, 17, 31, 1000, 3]],
    ['whole blocks', [16, 32, 4096]],
    ['a piece shorter than two blocks at a time', Array<number>(700).fill(20)],
  ])('gives the clear bytes, in order, for %s', async (_name, sizes) => {
    const key = (await importSegmentKey(new Uint8Array(raw)))!;
    const encrypted = encrypt(raw, 7, clear);
    expect(await decryptInPieces(key, 7, encrypted, sizes)).toEqual(clear);
  });

  it('gives out the bytes before the segment ends: the first fragment shows the frame', async () => {
    const key = (await importSegmentKey(new Uint8Array(raw)))!;
    const encrypted = encrypt(raw, 0, clear);
    const decrypter = segmentDecrypter(key, 0);
    const early = await decrypter.next(new Uint8Array(encrypted.subarray(0, 4000)));
    // All but the block held back (it might carry the padding) and the partial one.
    expect(early.byteLength).toBe(4000 - 16 - (4000 % 16));
    expect(Buffer.from(early)).toEqual(clear.subarray(0, early.byteLength));
  });

  it('refuses a wrong key or a wrong sequence number at the end, never gives the clear bytes', async () => {
    const encrypted = encrypt(raw, 3, clear);
    const wrong = (await importSegmentKey(new Uint8Array(randomBytes(16))))!;
    await expect(decryptInPieces(wrong, 3, encrypted, [500])).rejects.toThrow();
    const key = (await importSegmentKey(new Uint8Array(raw)))!;
    // The IV only changes the first block: the rest decrypts, the first block does not.
    const shifted = await decryptInPieces(key, 4, encrypted, [500]);
    expect(shifted.subarray(0, 16)).not.toEqual(clear.subarray(0, 16));
  });

  it('decrypts a whole segment, and refuses a cut one', async () => {
    const key = (await importSegmentKey(new Uint8Array(raw)))!;
    const encrypted = encrypt(raw, 12, clear);
    const whole = await decryptSegment(key, 12, new Uint8Array(encrypted).buffer);
    expect(Buffer.from(whole)).toEqual(clear);
    const cut = new Uint8Array(encrypted.subarray(0, encrypted.length - 8)).buffer;
    await expect(decryptSegment(key, 12, cut)).rejects.toThrow();
  });

  it('takes only 16 bytes as a key', async () => {
    expect(await importSegmentKey(new Uint8Array(15))).toBeNull();
    expect(await importSegmentKey(new Uint8Array(32))).toBeNull();
  });
});
