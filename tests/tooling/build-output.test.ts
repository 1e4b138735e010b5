/**
 * What `npm start` prints when it builds: the known-harmless messages stay out (react-query's
 * `"use client"`, Rolldown's plugin timings, the worker build's deprecated option), and
 * everything else still reaches the terminal (scripts/build/quiet-build.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UserConfig } from 'vite';
import { describe, expect, it } from 'vitest';
import { quietLog, quietWorkerBuildPlugin } from '../../scripts/build/quiet-build';

type Log = Parameters<typeof quietLog>[1];

function printed(level: Parameters<typeof quietLog>[0], log: Log) {
  const seen: Log[] = [];
  quietLog(level, log, (_level, shown) => seen.push(shown as Log));
  return seen;
}

const useClient = (id: string): Log => ({
  code: 'MODULE_LEVEL_DIRECTIVE',
  id,
  message: `The semantics of the module level directive "use client" in "${id}" may not be preserved when bundling.`,
});

describe('the build log', () => {
  it('drops "use client" in a package and the plugin-timings advice', () => {
    expect(printed('warn', useClient('/app/node_modules/@tanstack/react-query/x.js'))).toEqual([]);
    expect(printed('warn', { code: 'PLUGIN_TIMINGS', message: 'profile with --cpu-prof' })).toEqual(
      [],
    );
  });

  it('still prints every other warning, a directive in our own code, and any other level', () => {
    const ours = useClient('/app/src/screens/login/login-screen.tsx');
    const circular: Log = { code: 'CIRCULAR_DEPENDENCY', message: 'a -> b -> a' };
    const useServer: Log = {
      ...useClient('/app/node_modules/pkg/x.js'),
      message: 'directive "use server" in "node_modules/pkg/x.js"',
    };
    for (const log of [ours, circular, useServer]) expect(printed('warn', log)).toEqual([log]);
    const info: Log = { code: 'PLUGIN_TIMINGS', message: 'info' };
    expect(printed('info', info)).toEqual([info]);
  });

  it("gives the worker's build the same log, and codeSplitting: false for inlineDynamicImports", () => {
    const config: UserConfig = {
      build: { rollupOptions: { input: 'sw.ts', output: { inlineDynamicImports: true } } },
    };
    const plugin = quietWorkerBuildPlugin();
    (plugin.config as (config: UserConfig) => void)(config);
    expect(config.build?.rollupOptions).toEqual({
      input: 'sw.ts',
      onLog: quietLog,
      output: { codeSplitting: false },
    });
  });

  it(
    'a real build prints none of the known noise, and still its report',
    { timeout: 180_000 },
    () => {
      const outDir = mkdtempSync(join(tmpdir(), 'build-output-'));
      try {
        // The environment `npm start` gives it, not Vitest's (NODE_ENV=test, VITEST...).
        const env = Object.fromEntries(
          Object.entries(process.env).filter(
            ([name]) => name !== 'NODE_ENV' && !/^VITEST/.test(name),
          ),
        );
        const result = spawnSync(
          process.execPath,
          ['node_modules/vite/bin/vite.js', 'build', '--outDir', outDir, '--emptyOutDir'],
          { encoding: 'utf8', env, timeout: 170_000 },
        );
        const output = `${result.stdout}${result.stderr}`;
        expect(result.status, output).toBe(0);
        expect(output).toContain('built in');
        expect(output).toContain('service worker');
        for (const noise of ['"use client"', 'inlineDynamicImports', 'PLUGIN_TIMINGS', 'cpu-prof'])
          expect(output, noise).not.toContain(noise);
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    },
  );
});
