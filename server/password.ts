import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { SCRYPT_DEFAULTS, maxmemFor, type PasswordHash } from '../config/password-hash.js';

/**
 * Passwords typed on different systems may arrive composed ("ñ") or decomposed ("n" + "~");
 * NFC makes both the same bytes. Nothing else is changed: no trimming, no case folding.
 */
const passwordBytes = (password: string) => Buffer.from(password.normalize('NFC'), 'utf8');

function deriveKey(password: string, salt: Buffer, hash: Omit<PasswordHash, 'salt' | 'key'>) {
  const options: ScryptOptions = {
    N: hash.N,
    r: hash.r,
    p: hash.p,
    maxmem: maxmemFor(hash.N, hash.r, hash.p),
  };
  // The callback form runs on the libuv thread pool, off the event loop.
  return new Promise<Buffer>((resolve, reject) => {
    scrypt(passwordBytes(password), salt, SCRYPT_DEFAULTS.keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * `scrypt$N$r$p$<salt base64>$<key base64>`: the parameters travel with the hash. Other than the
 * defaults only for the browser tests' many signins (still within what the server accepts).
 */
export async function hashPassword(
  password: string,
  { N, r, p }: { N: number; r: number; p: number } = SCRYPT_DEFAULTS,
): Promise<string> {
  const { saltLength } = SCRYPT_DEFAULTS;
  const salt = randomBytes(saltLength);
  const key = await deriveKey(password, salt, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Constant-time on fixed-length keys: both sides are 32-byte scrypt outputs, whatever the
 * length of the password typed.
 */
export async function verifyPassword(password: string, hash: PasswordHash): Promise<boolean> {
  const candidate = await deriveKey(password, hash.salt, hash);
  return timingSafeEqual(candidate, hash.key);
}

/**
 * A short, stable name for one PASSWORD_HASH, stored with every session and inside every device
 * cookie: a new hash (a password change) and a restart then end them all, on every instance.
 * 72 bits of a digest of the salt and key: it reveals nothing that helps a guesser without them.
 */
export function passwordFingerprint(hash: PasswordHash): string {
  return createHash('sha256')
    .update('password-binding\0')
    .update(hash.salt)
    .update(hash.key)
    .digest('base64url')
    .slice(0, 12);
}
