/**
 * What the transcript and the chapters list read from a WebVTT track (machines/webvtt.ts): the
 * cues, the line and the chapter playing at a time, and the search.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  chapterAt,
  cueAt,
  foldForSearch,
  formatClock,
  isoDuration,
  MAX_TRACK_LENGTH,
  parseWebVtt,
  searchCues,
  type Cue,
} from '../../machines/webvtt';

const SAMPLE = readFileSync(new URL('../../media/sample.es.vtt', import.meta.url), 'utf8');

describe('reading a WebVTT track', () => {
  it("reads the sample's eleven captions, in order, without the header or the note", () => {
    const cues = parseWebVtt(SAMPLE)!;
    expect(cues).toHaveLength(11);
    expect(cues[0]).toEqual({
      startS: 0,
      endS: 8,
      text: 'Muestra de la capacitación: manejo de silo bolsa, edición 2023.',
    });
    expect(cues[10]).toEqual({
      startS: 66,
      endS: 73,
      text: 'Extraemos desde el extremo opuesto al cierre.',
    });
    expect(cues.every((cue, i) => i === 0 || cues[i - 1]!.startS <= cue.startS)).toBe(true);
  });

  it('joins lines, drops tags and settings, decodes entities, accepts CRLF and hours', () => {
    const text = [
      'WEBVTT - con título',
      '',
      'STYLE',
      '::cue { color: red }',
      '',
      '1:00:01.500  -->  1:00:03.000 align:start position:10%',
      '<v Ana>Hola &amp; <i>bienvenidos</i></v>',
      'al   curso &lt;2023&gt;',
      '',
      'NOTE una nota --> con flecha',
      '',
      'sin-texto',
      '00:00:05.000 --> 00:00:06.000',
      '',
      '00:02.000 --> 00:04.000',
      'Antes',
    ].join('\r\n');
    expect(parseWebVtt(text)).toEqual([
      { startS: 2, endS: 4, text: 'Antes' },
      { startS: 3601.5, endS: 3603, text: 'Hola & bienvenidos al curso <2023>' },
    ]);
  });

  it.each([
    ['an HTML page (the SPA fallback)', '<!doctype html><html></html>'],
    ['an empty answer', ''],
    ['a header glued to a word', 'WEBVTTX\n\n00:00.000 --> 00:01.000\nx'],
    ['a header not at the start', 'X WEBVTT\n\n00:00.000 --> 00:01.000\nx'],
    ['something far too large', `WEBVTT\n\n${'x'.repeat(2_000_001)}`],
  ])('is null for %s', (_, text) => {
    expect(parseWebVtt(text)).toBeNull();
  });

  it('reads a byte-order mark, old Mac line ends, and the entities captions use', () => {
    const text =
      '\uFEFFWEBVTT\r\r00:00.000 --> 00:01.000\ra&nbsp;b &quot;c&apos; &lrm;d&rlm; &copy;';
    expect(parseWebVtt(text)).toEqual([
      { startS: 0, endS: 1, text: 'a b "c\' \u200ed\u200f &copy;' },
    ]);
  });

  it('reads a track of exactly the largest size', () => {
    const cue = 'WEBVTT\n\n00:00.000 --> 00:01.000\nx\n\nNOTE ';
    const text = cue.padEnd(MAX_TRACK_LENGTH, 'n');
    expect(parseWebVtt(text)).toEqual([{ startS: 0, endS: 1, text: 'x' }]);
    expect(parseWebVtt(`${text}n`)).toBeNull();
  });

  it('skips cues whose timing is broken, backwards, empty, or not where it belongs', () => {
    const text = [
      'WEBVTT',
      '00:05.000 --> 00:04.000\nAl revés',
      '00:03.000 --> 00:03.000\nSin duración',
      '00:0x.000 --> 00:09.000\nRoto',
      'x00:06.000 --> 00:07.000\nPrefijo',
      'uno\ndos\n00:06.000 --> 00:07.000\nDos identificadores',
      '00:01.000 --> 00:02.000\nBien',
    ].join('\n\n');
    expect(parseWebVtt(text)).toEqual([{ startS: 1, endS: 2, text: 'Bien' }]);
  });
});

describe('the line playing at a time', () => {
  const cues: Cue[] = [
    { startS: 0, endS: 8, text: 'a' },
    { startS: 8, endS: 14, text: 'b' },
    { startS: 20, endS: 30, text: 'c' },
    { startS: 25, endS: 27, text: 'd' },
  ];

  it.each([
    [0, 0],
    [7.99, 0],
    [8, 1],
    [13.9, 1],
    [14, null],
    [19.9, null],
    [20, 2],
    [25, 3],
    [26.9, 3],
    [27, 2],
    [30, null],
    [-1, null],
  ])('at %s s it is line %s', (time, expected) => {
    expect(cueAt(cues, time)).toBe(expected);
  });

  it('is none in an empty transcript', () => {
    expect(cueAt([], 5)).toBeNull();
  });
});

describe('the chapter playing at a time', () => {
  const chapters = [{ startS: 8 }, { startS: 21 }, { startS: 34 }];

  it.each([
    [0, null],
    [7.9, null],
    [8, 0],
    [20.99, 0],
    [21, 1],
    [33, 1],
    [34, 2],
    [10_000, 2],
  ])('at %s s it is chapter %s (a chapter lasts until the next)', (time, expected) => {
    expect(chapterAt(chapters, time)).toBe(expected);
  });
});

describe('searching the transcript', () => {
  const cues = parseWebVtt(SAMPLE)!;
  const texts = (query: string) => searchCues(cues, query).map((index) => cues[index]!.text);

  it('finds the lines holding a word, without regard to accents or case', () => {
    expect(texts('presion')).toEqual(['Revisamos el freno y la presión antes de empezar.']);
    expect(texts('PRESIÓN')).toEqual(texts('presion'));
    expect(texts('humedad')).toHaveLength(2);
  });

  it('needs every word, in any order', () => {
    expect(texts('humedad grano')).toHaveLength(2);
    expect(texts('marcador humedad')).toEqual([
      'Rotulamos fecha, grano y humedad con marcador indeleble.',
    ]);
    expect(texts('humedad tractor')).toEqual([]);
  });

  it('keeps every line for a blank query', () => {
    expect(searchCues(cues, '   ')).toHaveLength(cues.length);
  });

  it('folds accents and case', () => {
    expect(foldForSearch('Elección ÑANDÚ')).toBe('eleccion nandu');
  });
});

describe('times as the visitor reads them', () => {
  it.each([
    [0, '0:00', 'PT0H0M0S'],
    [8.9, '0:08', 'PT0H0M8S'],
    [65, '1:05', 'PT0H1M5S'],
    [3725, '1:02:05', 'PT1H2M5S'],
  ])('%s s is %s', (time, clock, iso) => {
    expect(formatClock(time)).toBe(clock);
    expect(isoDuration(time)).toBe(iso);
  });
});
