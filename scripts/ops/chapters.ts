/**
 * Checks a hand-written chapters file and prints its WebVTT chapters track (machines/chapters.ts).
 *   npm run -s chapters -- FILE --duration SECONDS > chapters.vtt
 * On a malformed file: every problem with its line number on stderr, exit code 1, nothing on
 * stdout. `prepare-video --chapters FILE` publishes the same track beside the captions.
 */
import { readFile } from 'node:fs/promises';
import { chaptersToWebVtt, describeProblem, parseChapters } from '../../machines/chapters.js';

const USAGE = 'usage: npm run -s chapters -- FILE --duration SECONDS';

async function main(args: string[]): Promise<number> {
  const at = args.indexOf('--duration');
  const durationText = at >= 0 ? args[at + 1] : undefined;
  const files = args.filter((_, index) => at < 0 || (index !== at && index !== at + 1));
  const durationS = Number(durationText);
  if (files.length !== 1 || !(durationS > 0)) {
    console.error(USAGE);
    return 2;
  }
  const file = files[0] ?? '';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    console.error(`${file}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
    return 1;
  }
  const result = parseChapters(text, { durationS });
  if (!result.ok) {
    for (const problem of result.problems) console.error(`${file}: ${describeProblem(problem)}`);
    return 1;
  }
  process.stdout.write(chaptersToWebVtt(result.chapters, durationS));
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
