/**
 * What the build prints is read by whoever typed `npm start`: the messages below are known and
 * harmless, and nobody there can act on them, so they are dropped here, by code and content.
 * Every other warning, and every error, still reaches the terminal.
 */
import type { Plugin, Rolldown } from 'vite';

type OnLog = NonNullable<Rolldown.InputOptions['onLog']>;
type Log = Parameters<OnLog>[1];

/**
 * React Server Components' `"use client"` atop a package's files (react-query, react-router): this
 * app has no server components, so the directive means nothing in its bundle.
 */
const isPackageUseClient = (log: Log) =>
  log.code === 'MODULE_LEVEL_DIRECTIVE' &&
  log.message.includes('"use client"') &&
  /[\\/]node_modules[\\/]/.test(log.id ?? log.message);

/** Rolldown's advice to profile the build when plugins take much of its time: a build-speed hint. */
const isPluginTimings = (log: Log) => log.code === 'PLUGIN_TIMINGS';

const isKnownHarmless = (log: Log) => isPackageUseClient(log) || isPluginTimings(log);

/** The builds' `onLog`: the known-harmless messages go, everything else to Vite's own printer. */
export const quietLog: OnLog = (level, log, print) => {
  if (level !== 'warn' || !isKnownHarmless(log)) print(level, log);
};

/**
 * The service worker's build (vite-plugin-pwa's own, `injectManifest.buildPlugins.vite`) as quiet
 * as the app's: the same `onLog`, and `codeSplitting: false` for the `inlineDynamicImports: true`
 * that vite-plugin-pwa 2.0 sets, which Rolldown deprecates with a notice (same one file).
 */
export function quietWorkerBuildPlugin(): Plugin {
  return {
    name: 'quiet-worker-build',
    config(config) {
      const options = config.build?.rollupOptions;
      if (!options) return;
      options.onLog ??= quietLog;
      const output = options.output;
      if (!output || Array.isArray(output) || !('inlineDynamicImports' in output)) return;
      const { inlineDynamicImports, ...rest } = output;
      options.output = { ...rest, codeSplitting: !inlineDynamicImports };
    },
  };
}
