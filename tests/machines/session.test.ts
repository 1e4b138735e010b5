import { describe, expect, it, vi } from 'vitest';
import { MAX_FIELD_LENGTH, memoryStorage, newSession, parseSession } from '../../machines/session';

const NOW_MS = Date.UTC(2026, 10, 22, 12, 0, 0);
const NOW_S = NOW_MS / 1000;
/** spec §4: a stored session counts while younger than 7,200 s. */
const SESSION_MAX_AGE_S = 7_200;
const valid = {
  loggedIn: true,
  username: 'capacitacion',
  timestamp: NOW_S - 60,
  empresa: 'Agro Demo S.A.',
  nombres: 'Ana Pérez',
};
const raw = (fields: Record<string, unknown>) => JSON.stringify({ ...valid, ...fields });

describe('reading a stored session', () => {
  it('accepts a well-formed session a minute old', () => {
    expect(parseSession(JSON.stringify(valid), NOW_MS)).toEqual(valid);
  });

  it('counts a session from this very second, and refuses one from the next second', () => {
    expect(parseSession(raw({ timestamp: NOW_S }), NOW_MS)).not.toBeNull();
    expect(parseSession(raw({ timestamp: NOW_S + 1 }), NOW_MS)).toBeNull();
  });

  it('counts a session 7,199 s old and refuses one 7,200 s old', () => {
    expect(
      parseSession(raw({ timestamp: NOW_S - (SESSION_MAX_AGE_S - 1) }), NOW_MS),
    ).not.toBeNull();
    expect(parseSession(raw({ timestamp: NOW_S - SESSION_MAX_AGE_S }), NOW_MS)).toBeNull();
  });

  it('measures the age in milliseconds, so 7,199.5 s is still fresh and 7,200.001 s is not', () => {
    const at = (ageMs: number) => parseSession(raw({ timestamp: NOW_S }), NOW_MS + ageMs);
    expect(at(7_199_500)).not.toBeNull();
    expect(at(7_200_001)).toBeNull();
  });

  it.each([
    ['nothing stored', null],
    ['not JSON', '{"loggedIn":true,'],
    ['JSON null', 'null'],
    ['a number', '42'],
    ['a string', '"session"'],
    ['an array', JSON.stringify([valid])],
    ['loggedIn false', raw({ loggedIn: false })],
    ['loggedIn as the string "true"', raw({ loggedIn: 'true' })],
    ['loggedIn as 1', raw({ loggedIn: 1 })],
    ['username as a number', raw({ username: 7 })],
    ['empresa as an object', raw({ empresa: { name: 'x' } })],
    ['nombres as null', raw({ nombres: null })],
    ['timestamp as a string', raw({ timestamp: String(NOW_S) })],
    ['timestamp as NaN (null in JSON)', raw({ timestamp: Number.NaN })],
    ['timestamp missing', JSON.stringify({ ...valid, timestamp: undefined })],
    ['empresa missing', JSON.stringify({ ...valid, empresa: undefined })],
    ['a megabyte string in nombres', raw({ nombres: 'x'.repeat(1_000_000) })],
    ['a field one character too long', raw({ empresa: 'x'.repeat(MAX_FIELD_LENGTH + 1) })],
  ])('refuses %s', (_, value) => {
    expect(parseSession(value, NOW_MS)).toBeNull();
  });

  it('accepts a field of exactly the longest allowed length', () => {
    const longest = 'x'.repeat(MAX_FIELD_LENGTH);
    expect(parseSession(raw({ nombres: longest }), NOW_MS)?.nombres).toBe(longest);
  });

  it('does not even parse a stored value far longer than any real session', () => {
    const parse = vi.spyOn(JSON, 'parse');
    expect(parseSession(raw({ nombres: 'x'.repeat(1_000_000) }), NOW_MS)).toBeNull();
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
  });

  it('keeps only the five fields, whatever else was stored', () => {
    const extra = raw({ isAdmin: true }).replace(/}$/, ',"__proto__":{"polluted":1}}');
    expect(parseSession(extra, NOW_MS)).toEqual(valid);
  });

  it('keeps HTML in a name as plain data, for the screen to render as text', () => {
    const html = '<img src=x onerror=alert(1)>';
    expect(parseSession(raw({ nombres: html }), NOW_MS)?.nombres).toBe(html);
  });
});

describe('making a new session', () => {
  it('stamps it in whole seconds since the epoch', () => {
    const session = newSession({ username: 'u', empresa: 'e', nombres: 'n' }, NOW_MS + 999);
    expect(session).toEqual({
      loggedIn: true,
      username: 'u',
      timestamp: NOW_S,
      empresa: 'e',
      nombres: 'n',
    });
  });
});

describe('the in-memory storage', () => {
  it('stores, reads and removes strings like local storage does', () => {
    const storage = memoryStorage({ a: '1' });
    storage.setItem('b', '2');
    storage.removeItem('a');
    expect(storage.getItem('a')).toBeNull();
    expect(storage.snapshot()).toEqual({ b: '2' });
  });
});
