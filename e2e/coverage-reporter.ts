/**
 * After the browser run: which of the machine's states and transitions the paths that passed in
 * Chromium reached. Fails the run when any is missing, so the browser level cannot silently
 * cover less than the machine level.
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import { coverageOfPaths } from '../tests/model/coverage';
import { readPathsFile } from '../tests/model/paths-file';

export default class CoverageReporter implements Reporter {
  private passed = new Set<string>();
  private ranPaths = false;

  onTestEnd(test: TestCase, result: TestResult) {
    if (test.parent.project()?.name !== 'paths') return;
    this.ranPaths = true;
    if (result.status === 'passed') this.passed.add(test.title);
  }

  async onEnd(result: FullResult) {
    if (!this.ranPaths) return;
    const paths = readPathsFile().filter((path) => this.passed.has(path.title));
    const { states, transitions, missedStates, missedTransitions } = coverageOfPaths(paths);
    console.log(
      `\nBrowser coverage of the auth machine: ${states.reached}/${states.total} states, ` +
        `${transitions.reached}/${transitions.total} transitions (${paths.length} paths passed in Chromium).`,
    );
    const missed = [...missedStates, ...missedTransitions];
    if (missed.length) {
      console.log(`Not reached in the browser:\n  ${missed.join('\n  ')}`);
      if (result.status === 'passed') return { status: 'failed' as const };
    }
    return undefined;
  }
}
