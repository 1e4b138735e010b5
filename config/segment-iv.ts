/**
 * The IV of an encrypted publish's segment (config/media-layout.ts, KEY_FILE): its media sequence
 * number as 16 bytes big-endian (RFC 8216 §5.2). A module of its own: the page's main bundle
 * holds config/media-layout.ts, and only the player and the publishing tools need this.
 */
export function segmentIv(sequence: number): Uint8Array<ArrayBuffer> {
  const iv = new Uint8Array(16);
  new DataView(iv.buffer).setBigUint64(8, BigInt(sequence));
  return iv;
}
