import { describe, expect, it } from 'vitest';
import { VIDEO_KEY_KEY, memoryStorage } from '../../machines/session';
import { keyUrlPublish, knownVideoKey, publishIdOf } from '../../src/video-start/video-key';

describe("where the start finds an encrypted publish's key", () => {
  const key = 'AAECAwQFBgcICQoLDA0ODw==';
  const stored = (value: string) => memoryStorage({ [VIDEO_KEY_KEY]: value });

  it("gives the stored key's bytes for its own publish only", () => {
    const storage = stored(JSON.stringify({ id: 'k3f9a1c2', key }));
    expect(Array.from(knownVideoKey(storage, 'k3f9a1c2')!)).toEqual([...Array(16).keys()]);
    expect(knownVideoKey(storage, 'zzzzzzzz')).toBeNull();
    expect(knownVideoKey(memoryStorage(), 'k3f9a1c2')).toBeNull();
  });

  it("prefers the signin's answer's key, not yet stored, for its own publish", () => {
    const given = { id: 'k3f9a1c2', key };
    const other = stored(JSON.stringify({ id: 'k3f9a1c2', key: 'Dw4NDAsKCQgHBgUEAwIBAA==' }));
    expect(Array.from(knownVideoKey(memoryStorage(), 'k3f9a1c2', given)!)).toEqual([
      ...Array(16).keys(),
    ]);
    expect(Array.from(knownVideoKey(other, 'k3f9a1c2', given)!)).toEqual([...Array(16).keys()]);
    expect(knownVideoKey(memoryStorage(), 'zzzzzzzz', given)).toBeNull();
  });

  it.each([
    ['not JSON', '{'],
    ['no key', JSON.stringify({ id: 'k3f9a1c2' })],
    ['a key of 15 bytes', JSON.stringify({ id: 'k3f9a1c2', key: 'AAECAwQFBgcICQoLDA0O' })],
    ['not base64', JSON.stringify({ id: 'k3f9a1c2', key: '!!!!' })],
  ])('gives nothing for a broken entry (%s), never a throw', (_name, value) => {
    expect(knownVideoKey(stored(value), 'k3f9a1c2')).toBeNull();
  });

  it('names the publish of a rendition and of its key URL, under both URL shapes', () => {
    expect(publishIdOf('k3f9a1c2-360p')).toBe('k3f9a1c2');
    expect(keyUrlPublish('/api/video/hls/k3f9a1c2-360p/key.bin')).toBe('k3f9a1c2');
    expect(
      keyUrlPublish(
        'https://x.test/base/api/video/hls/v20261127010203-k3f9a1c2/k3f9a1c2-144p/key.bin',
      ),
    ).toBe('k3f9a1c2');
    expect(keyUrlPublish('/api/video/hls/k3f9a1c2-360p/seg00001.m4s')).toBeNull();
    expect(keyUrlPublish('/api/video/hls/k3f9a1c2-360p/key.bin.txt')).toBeNull();
  });
});
