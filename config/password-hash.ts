/**
 * The text form of a password hash (`scrypt$N$r$p$salt$key`) and its parsing, apart from the
 * hashing (server/password.ts): the settings table checks PASSWORD_HASH with it.
 */
/**
 * One of OWASP's scrypt parameter sets (Password Storage Cheat Sheet): N=2^15, r=8, p=3.
 * 32 MiB per hash instead of the 128 MiB of N=2^17, so the few hashes that may run at once
 * stay small; its time is in docs/benchmarks.md.
 */
export const SCRYPT_DEFAULTS = { N: 2 ** 15, r: 8, p: 3, keyLength: 32, saltLength: 16 } as const;

/** Bounds for hashes read from the config: enough for every OWASP set, not enough to hurt. */
const LIMITS = { minLog2N: 14, maxLog2N: 20, maxR: 32, maxP: 16, minSaltBytes: 16 };
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;

export interface PasswordHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

const HASH_PATTERN =
  /^scrypt\$([1-9]\d{0,8})\$([1-9]\d{0,2})\$([1-9]\d{0,2})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

/** `crypto.scrypt` refuses to start when the work area exceeds `maxmem` (default 32 MiB). */
export const maxmemFor = (N: number, r: number, p: number) =>
  128 * N * r + 128 * r * p + 1024 * 1024;

/** Returns null for anything that is not a hash this module could have made. */
export function parsePasswordHash(text: string): PasswordHash | null {
  const match = HASH_PATTERN.exec(text.trim());
  if (!match) return null;
  const [, nText, rText, pText, saltText, keyText] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const N = Number(nText);
  const r = Number(rText);
  const p = Number(pText);
  const log2N = Math.log2(N);
  if (!Number.isInteger(log2N) || log2N < LIMITS.minLog2N || log2N > LIMITS.maxLog2N) return null;
  if (r > LIMITS.maxR || p > LIMITS.maxP) return null;
  if (maxmemFor(N, r, p) > MAX_MEMORY_BYTES) return null;
  const salt = Buffer.from(saltText, 'base64');
  const key = Buffer.from(keyText, 'base64');
  if (salt.length < LIMITS.minSaltBytes || key.length !== SCRYPT_DEFAULTS.keyLength) return null;
  // Node decodes sloppy base64 leniently; accept only the canonical text we would write.
  if (salt.toString('base64') !== saltText || key.toString('base64') !== keyText) return null;
  return { N, r, p, salt, key };
}
