import { beforeAll, describe, expect, it } from 'vitest';
import {
  SCRYPT_DEFAULTS,
  parsePasswordHash,
  type PasswordHash,
} from '../../config/password-hash.js';
import { hashPassword, verifyPassword } from '../../server/password.js';

// Composed "ñ" (U+00F1) and an emoji outside the BMP: the kinds of input that break naive code.
const PASSWORD = 'contraseña ñ 😀';

describe('password hashing', () => {
  let text: string;
  let hash: PasswordHash;
  beforeAll(async () => {
    // One real hash (~150 ms or more on a busy box) shared by the whole file.
    text = await hashPassword(PASSWORD);
    hash = parsePasswordHash(text)!;
  });

  it('writes scrypt with its parameters inside the hash: N=2^15, r=8, p=3, 32-byte key', () => {
    expect(text).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(hash.salt).toHaveLength(SCRYPT_DEFAULTS.saltLength);
    expect(hash.key).toHaveLength(32);
  });

  it('accepts the non-ASCII password it was made from', async () => {
    expect(await verifyPassword(PASSWORD, hash)).toBe(true);
  });

  it('accepts the same password typed in decomposed form (n + combining tilde)', async () => {
    const decomposed = PASSWORD.normalize('NFD');
    expect(decomposed).not.toBe(PASSWORD);
    expect(await verifyPassword(decomposed, hash)).toBe(true);
  });

  it('refuses a password that differs by case, by a trailing space or by a missing character', async () => {
    const results = await Promise.all(
      [PASSWORD.toUpperCase(), `${PASSWORD} `, PASSWORD.slice(0, -2)].map((wrong) =>
        verifyPassword(wrong, hash),
      ),
    );
    expect(results).toEqual([false, false, false]);
  });

  it('uses a new salt for every hash, so equal passwords give different hashes', async () => {
    const again = await hashPassword(PASSWORD);
    expect(again).not.toBe(text);
  });

  it('parses only well-formed hashes', () => {
    expect(parsePasswordHash(text)).toMatchObject({ N: 32768, r: 8, p: 3 });
    for (const bad of [
      '',
      'scrypt',
      'scrypt$32768$8$3$$',
      text.replace('scrypt', 'argon2id'),
      text.replace('$8$', '$0$'),
      text.replace('$3$', '$99$'),
      text.replace(/\$[^$]+\$([^$]+)$/, '$AAAA$$$1'),
      `${text}=`,
    ])
      expect(parsePasswordHash(bad), bad).toBeNull();
  });
});
