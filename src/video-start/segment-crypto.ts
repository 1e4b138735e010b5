/**
 * AES-128-CBC segments (RFC 8216 §4.3.2.4; the publish's layout in config/media-layout.ts),
 * decrypted with WebCrypto for the start's own first frame: hls.js decrypts what it loads
 * itself. WebCrypto only exists in a secure context: on a plain-HTTP LAN site hls.js's software
 * AES starts the video instead.
 */
import { KEY_BYTES } from '../../config/media-layout';
import { segmentIv } from '../../config/segment-iv';

const BLOCK = 16;

export const canDecrypt = () => typeof crypto !== 'undefined' && !!crypto.subtle;

/** The key's 16 bytes as a WebCrypto key; null where WebCrypto is missing or refuses them. */
export async function importSegmentKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey | null> {
  if (!canDecrypt() || raw.byteLength !== KEY_BYTES) return null;
  return crypto.subtle
    .importKey('raw', raw, 'AES-CBC', false, ['encrypt', 'decrypt'])
    .catch(() => null);
}

const decrypt = async (
  key: CryptoKey,
  iv: Uint8Array<ArrayBuffer>,
  data: Uint8Array<ArrayBuffer>,
) => new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-CBC', iv }, key, data));

/** A whole segment's clear bytes; rejects when the key is not the one it was encrypted with. */
export const decryptSegment = (key: CryptoKey, sequence: number, data: ArrayBuffer) =>
  decrypt(key, segmentIv(sequence), new Uint8Array(data));

/**
 * A segment decrypted as its bytes arrive, so that the first frame still needs only the first
 * fragment. CBC allows it (a block needs only the one before), but WebCrypto decrypts whole
 * messages and checks their padding: each piece gets one more block, the encryption of nothing
 * chained to its last block, which decrypts to a whole block of padding. The last block is held
 * back until the end, as it carries the segment's own padding.
 */
export function segmentDecrypter(key: CryptoKey, sequence: number) {
  let chained = segmentIv(sequence);
  let held: Uint8Array<ArrayBuffer> = new Uint8Array(0);
  return {
    /** The clear bytes of `piece` and what was held, but for the last block or partial one. */
    async next(piece: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
      const bytes = new Uint8Array(held.byteLength + piece.byteLength);
      bytes.set(held);
      bytes.set(piece, held.byteLength);
      const ready = Math.floor(bytes.byteLength / BLOCK) * BLOCK - BLOCK;
      if (ready <= 0) {
        held = bytes;
        return new Uint8Array(0);
      }
      const last = bytes.slice(ready - BLOCK, ready);
      const padding = new Uint8Array(
        await crypto.subtle.encrypt({ name: 'AES-CBC', iv: last }, key, new Uint8Array(0)),
      );
      const message = new Uint8Array(ready + BLOCK);
      message.set(bytes.subarray(0, ready));
      message.set(padding, ready);
      const clear = await decrypt(key, chained, message);
      [chained, held] = [last, bytes.slice(ready)];
      return clear;
    },
    /** The rest, its padding checked: rejects for a wrong key or a cut segment. */
    end: () => decrypt(key, chained, held),
  };
}
