/**
 * Vitest globalSetup for the `app` project: writes the generated paths before the test files are
 * collected, so that they replay the machine as it is now (reports/ is not in git).
 */
import { writePathsFile } from '../machines/pathsFile';

export default function setup() {
  writePathsFile();
}
