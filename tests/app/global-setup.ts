/**
 * Vitest globalSetup for the `app` project: writes the generated paths before the test files are
 * collected, so that they replay the machine as it is now (reports/ is not in git), and
 * prerenders the two screens and bundles the boot script as the build does (src/prerender.tsx,
 * scripts/build/prerender.ts). The prerender runs here, not
 * in a test's jsdom: React's server and client renderers in one realm would share the contexts'
 * current values.
 */
import type { TestProject } from 'vitest/node';
import { clientConfig } from '../../config/settings';
import { bootScript } from '../../scripts/build/prerender';
import type { prerenderScreens } from '../../src/prerender';
import { writePathsFile } from '../model/paths-file';

declare module 'vitest' {
  export interface ProvidedContext {
    screens: Awaited<ReturnType<typeof prerenderScreens>>;
    bootScript: string;
  }
}

export default async function setup(project: TestProject) {
  writePathsFile();
  // What vite.config.ts's `define` gives the app's modules, which this runner does not apply.
  Object.assign(globalThis, { __APP_CONFIG__: clientConfig(process.env) });
  const { prerenderScreens } = await import('../../src/prerender');
  project.provide('screens', await prerenderScreens());
  project.provide(
    'bootScript',
    await bootScript({ root: project.config.root, mode: 'production' }),
  );
}
