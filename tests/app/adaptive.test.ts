import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CHOICE,
  dataSaverCap,
  levelsFor,
  parseChoice,
  serializeChoice,
  type Rendition,
} from '../../src/screens/video-player/adaptive';

/** hls.js sorts its levels from the lowest up. */
const LADDER: Rendition[] = [144, 240, 360, 480, 720].map((height, index) => ({
  index,
  height,
  bitrate: height * 3000,
}));

describe('the stored quality choice', () => {
  it('reads back what was saved', () => {
    const choice = { quality: 480, dataSaver: true } as const;
    expect(parseChoice(serializeChoice(choice))).toEqual(choice);
    expect(parseChoice(serializeChoice(DEFAULT_CHOICE))).toEqual(DEFAULT_CHOICE);
  });

  it.each([
    null,
    '',
    'not json',
    'null',
    '[]',
    '"auto"',
    '{"quality":-1}',
    '{"quality":360.5}',
    '{"quality":"360"}',
    '{"quality":99999}',
    `{"quality":"auto","pad":"${'x'.repeat(300)}"}`,
  ])('falls back to automatic without data saver on %j', (raw) => {
    expect(parseChoice(raw)).toEqual(DEFAULT_CHOICE);
  });

  it('keeps a valid part of a partly broken value', () => {
    expect(parseChoice('{"quality":"huge","dataSaver":true}')).toEqual({
      quality: 'auto',
      dataSaver: true,
    });
    expect(parseChoice('{"quality":240,"dataSaver":"yes"}')).toEqual({
      quality: 240,
      dataSaver: false,
    });
  });
});

describe('what a choice asks of hls.js', () => {
  it('automatic: no fixed level, no cap', () => {
    expect(levelsFor({ quality: 'auto', dataSaver: false }, LADDER)).toEqual({
      level: -1,
      cap: -1,
    });
  });

  it('a rendition: that level', () => {
    expect(levelsFor({ quality: 480, dataSaver: false }, LADDER)).toEqual({ level: 3, cap: -1 });
  });

  it('a rendition this video does not have: automatic', () => {
    expect(levelsFor({ quality: 1080, dataSaver: false }, LADDER).level).toBe(-1);
  });

  it('data saver: automatic capped at 240p, and it wins over a rendition above the cap', () => {
    expect(levelsFor({ quality: 'auto', dataSaver: true }, LADDER)).toEqual({ level: -1, cap: 1 });
    expect(levelsFor({ quality: 720, dataSaver: true }, LADDER)).toEqual({ level: -1, cap: 1 });
    expect(levelsFor({ quality: 144, dataSaver: true }, LADDER)).toEqual({ level: 0, cap: 1 });
  });

  it('data saver on a ladder with nothing at 240p or less: the lowest rendition', () => {
    const big = LADDER.slice(2).map((r, index) => ({ ...r, index }));
    expect(dataSaverCap(big)).toBe(0);
  });
});
