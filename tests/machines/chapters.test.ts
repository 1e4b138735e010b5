/**
 * The hand-written chapters file (machines/chapters.ts): each way an operator can get a line
 * wrong is named, with its line number; a good file becomes a WebVTT chapters track. Runs in
 * Node without a DOM, as prepare-video will.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chaptersToWebVtt,
  describeProblem,
  formatChapterTime,
  parseChapters,
  type ChaptersProblem,
} from '../../machines/chapters';
import { parseWebVtt } from '../../machines/webvtt';

const problemsOf = (text: string, durationS?: number): ChaptersProblem[] => {
  const result = parseChapters(text, durationS === undefined ? {} : { durationS });
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.chapters)}`);
  return result.problems;
};

describe('a well-formed chapters file', () => {
  it('reads MM:SS and HH:MM:SS lines, skipping blank lines, BOM, CRLF and extra spaces', () => {
    const text =
      '\uFEFF00:00 Presentación\r\n\r\n  01:30\tElección del terreno  \r\n9:05 Embolsado\n1:02:05 Extracción: el final\n\n';
    expect(parseChapters(text)).toEqual({
      ok: true,
      chapters: [
        { startS: 0, title: 'Presentación' },
        { startS: 90, title: 'Elección del terreno' },
        { startS: 545, title: 'Embolsado' },
        { startS: 3725, title: 'Extracción: el final' },
      ],
    });
  });

  it('takes any amount of space after the time, the last minute and second, and long hours', () => {
    const title = 'x'.repeat(120);
    expect(
      parseChapters(`00:00   Tres espacios\n59:59 \t Casi una hora\n10:00:00 ${title}`),
    ).toEqual({
      ok: true,
      chapters: [
        { startS: 0, title: 'Tres espacios' },
        { startS: 3599, title: 'Casi una hora' },
        { startS: 36000, title },
      ],
    });
  });

  it('accepts chapters before the end of the video when its duration is given', () => {
    expect(parseChapters('00:00 Uno\n01:12 Dos', { durationS: 73 }).ok).toBe(true);
  });

  it('writes the operator’s times back as they are written', () => {
    expect([0, 75, 599, 3600, 3725].map(formatChapterTime)).toEqual([
      '00:00',
      '01:15',
      '09:59',
      '1:00:00',
      '1:02:05',
    ]);
  });
});

describe('a malformed chapters file: every problem, each with its line', () => {
  it.each([
    ['a line without a time', 'Presentación', /"Presentación" does not start with a time/],
    ['a time glued to the title', '01:30Elección', /does not start with a time/],
    ['a time with fractions', '01:30.5 Elección', /does not start with a time/],
    ['a lone number', '90 Elección', /does not start with a time/],
    ['a word before the time', 'Capítulo 01:30 Elección', /"Capítulo 01:30 Elección" does not/],
    ['one digit of seconds', '1:3 Elección', /"1:3" is not a time: .*two digits/],
    ['one digit of minutes after hours', '1:2:03 Elección', /"1:2:03" is not a time/],
    ['seconds past 59', '01:60 Elección', /"01:60" is not a time: minutes and seconds/],
    ['minutes past 59', '75:00 Elección', /write 1:15:00, not 75:00/],
    ['no title', '01:30', /the chapter at 01:30 has no title/],
    ['a blank title', '01:30    ', /the chapter at 01:30 has no title/],
    ['a title that ends a cue', '01:30 Antes --> después', /cannot contain "-->"/],
    ['a title too long', `01:30 ${'a'.repeat(121)}`, /121 characters long; at most 120/],
  ])('%s', (_, line, message) => {
    const problems = problemsOf(`00:00 Presentación\n\n${line}\n02:00 Final`);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.line).toBe(3);
    expect(problems[0]?.message).toMatch(message);
  });

  it('a chapter out of order names the line it comes before', () => {
    expect(problemsOf('00:00 Uno\n02:00 Dos\n01:00 Tres')).toEqual([
      {
        line: 3,
        message:
          '01:00 comes before the chapter on line 2 (02:00): list the chapters in the order they play',
      },
    ]);
  });

  it('a time used twice names the line that has it first', () => {
    expect(problemsOf('00:00 Uno\n\n00:00 Otra vez')).toEqual([
      { line: 3, message: '00:00 is already the start of the chapter on line 1' },
    ]);
  });

  it('a chapter at or after the end of the video', () => {
    expect(problemsOf('00:00 Uno\n01:13 Después del final', 73)).toEqual([
      { line: 2, message: '01:13 is not before the end of the video (01:13)' },
    ]);
  });

  it.each([
    ['empty', ''],
    ['only blank lines', '\n  \n\t\n'],
  ])('a file with no chapters (%s)', (_, text) => {
    expect(problemsOf(text)).toEqual([
      { line: null, message: 'the file has no chapters: write one "MM:SS Title" a line' },
    ]);
  });

  it('reports every bad line at once, and quotes a long one shortened', () => {
    const long = `Esta línea es un párrafo entero pegado por error en el archivo de capítulos`;
    const problems = problemsOf(`00:10 Uno\n${long}\n00:05 Dos\n00:10 Tres`);
    expect(problems.map((problem) => problem.line)).toEqual([2, 3, 4]);
    expect(problems[0]?.message).toContain(
      '"Esta línea es un párrafo entero pegado por error en el ar..."',
    );
    expect(problems.map(describeProblem)[1]).toMatch(/^line 3: 00:05 comes before/);
    expect(describeProblem({ line: null, message: 'x' })).toBe('x');
  });

  it('quotes a line of 60 characters whole, and cuts a longer one', () => {
    const sixty = 'y'.repeat(60);
    expect(problemsOf(sixty)[0]?.message).toContain(`"${sixty}"`);
    expect(problemsOf(`${sixty}z`)[0]?.message).toContain(`"${'y'.repeat(57)}..."`);
  });

  it('never throws, whatever the text', () => {
    for (const text of [
      '\0',
      '::::',
      '99999999999999999999:00 X',
      '-1:00 X',
      '\u2028',
      '１２:００ X',
    ])
      expect(() => parseChapters(text)).not.toThrow();
  });
});

describe('the WebVTT chapters track', () => {
  const chapters = [
    { startS: 8, title: 'Elección & preparación <del terreno>' },
    { startS: 21, title: 'Embolsado' },
    { startS: 3725, title: 'Extracción' },
  ];

  it('lasts each chapter until the next, the last until the end, escaping the titles', () => {
    expect(chaptersToWebVtt(chapters, 3800)).toBe(
      [
        'WEBVTT',
        'Kind: chapters',
        'Language: es',
        '',
        'capitulo-1',
        '00:00:08.000 --> 00:00:21.000',
        'Elección &amp; preparación &lt;del terreno&gt;',
        '',
        'capitulo-2',
        '00:00:21.000 --> 01:02:05.000',
        'Embolsado',
        '',
        'capitulo-3',
        '01:02:05.000 --> 01:03:20.000',
        'Extracción',
        '',
      ].join('\n'),
    );
  });

  it('reads back as the same chapters', () => {
    const text =
      '00:08 Elección & preparación <del terreno>\n00:21 Embolsado\n1:02:05 Extracción\n';
    const parsed = parseChapters(text);
    if (!parsed.ok) throw new Error('unexpected problems');
    const cues = parseWebVtt(chaptersToWebVtt(parsed.chapters, 3800));
    expect(cues?.map(({ startS, text: title }) => ({ startS, title }))).toEqual(parsed.chapters);
  });

  it('gives the last chapter a second when the duration is not after it', () => {
    expect(chaptersToWebVtt([{ startS: 10, title: 'Uno' }], 0)).toContain(
      '00:00:10.000 --> 00:00:11.000',
    );
  });
});

describe('npm run chapters (scripts/ops/chapters.ts)', () => {
  const run = (file: string) =>
    spawnSync(
      process.execPath,
      ['--import', 'tsx', 'scripts/ops/chapters.ts', file, '--duration', '73'],
      {
        encoding: 'utf8',
      },
    );

  it("prints the sample's chapters track from the five scenes as an operator writes them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'chapters-'));
    const file = join(dir, 'capitulos.txt');
    writeFileSync(
      file,
      [
        '00:08 Elección y preparación del terreno',
        '00:21 Embolsado: máquina y bolsa',
        '00:34 Llenado y estiba del grano',
        '00:47 Cierre de la bolsa y rotulado',
        '01:00 Monitoreo, calado y extracción',
      ].join('\n'),
    );
    const result = run(file);
    rmSync(dir, { recursive: true, force: true });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(readFileSync('media/sample.chapters.vtt', 'utf8'));
  });

  it('prints every problem with its line, and nothing on stdout, for a malformed file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chapters-'));
    const file = join(dir, 'capitulos.txt');
    writeFileSync(file, '00:10 Uno\nDos\n00:05 Tres\n');
    const result = run(file);
    rmSync(dir, { recursive: true, force: true });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `${file}: line 2: "Dos" does not start with a time: write "MM:SS Title" or "HH:MM:SS Title"\n` +
        `${file}: line 3: 00:05 comes before the chapter on line 1 (00:10): list the chapters in the order they play\n`,
    );
  });
});
