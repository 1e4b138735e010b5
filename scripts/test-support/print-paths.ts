/** `npm run test:paths`: the auth machine's generated paths, for people and for the other levels. */
import { relative } from 'node:path';
import { coverageOfPaths } from '../../tests/model/coverage';
import { PATHS_FILE, writePathsFile } from '../../tests/model/paths-file';

const paths = writePathsFile();
for (const path of paths) console.log(path.title);
const { states, transitions } = coverageOfPaths(paths);
console.log(
  `\n${paths.length} paths; they reach ${states.reached}/${states.total} states and ` +
    `${transitions.reached}/${transitions.total} transitions of the machine.`,
);
console.log(`Written to ${relative(process.cwd(), PATHS_FILE)}`);
