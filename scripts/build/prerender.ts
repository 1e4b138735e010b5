/**
 * Writes what index.html shows before the JavaScript: the login screen in #root and the video
 * screen in a <template> beside it, both rendered by React from the app's own components
 * (src/prerender.tsx, built for Node and run here); then the boot script (src/boot/boot.ts,
 * bundled) with its settings. In a build the boot starts the app, so Vite's own entry tag goes.
 * The server allows exactly that script by its hash (server/security.ts).
 */
import react from '@vitejs/plugin-react';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type InlineConfig, type Plugin, type Rollup } from 'vite';
import {
  APP_WAIT_MS,
  BOOT_CONFIG_ID,
  VIDEO_SCREEN_TEMPLATE_ID,
  type BootConfig,
} from '../../src/boot/boot-config.ts';
import { MEDIA_INFO_ELEMENT } from '../../config/media-layout.ts';
import { quietLog } from './quiet-build.ts';

/** Vite's module entry tag in the built index.html. */
const ENTRY_TAG = /\s*<script type="module" crossorigin src="([^"]+)"><\/script>/;

/** The settings that make the Node builds resolve, define and inline exactly as the app's. */
type Shared = Pick<InlineConfig, 'root' | 'base' | 'define' | 'mode'> & {
  assetsInlineLimit: NonNullable<InlineConfig['build']>['assetsInlineLimit'];
  /** The browsers the page must run in (vite.config.ts, from package.json's browserslist). */
  target?: NonNullable<InlineConfig['build']>['target'];
};

async function renderScreens(shared: Shared) {
  const { assetsInlineLimit, ...rest } = shared;
  // Its own folder: two builds at once (a test's and `npm start`'s) must not share one.
  const outDir = mkdtempSync(join(shared.root ?? '.', 'node_modules', '.prerender-'));
  try {
    await build({
      ...rest,
      configFile: false,
      logLevel: 'warn',
      plugins: [react()],
      build: {
        ssr: 'src/prerender.tsx',
        outDir,
        emptyOutDir: true,
        assetsInlineLimit,
        rolldownOptions: { onLog: quietLog },
      },
    });
    const entry = pathToFileURL(join(outDir, 'prerender.js')).href;
    const module = (await import(entry)) as typeof import('../../src/prerender');
    return await module.prerenderScreens();
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** The boot script as the page runs it: src/boot/boot.ts bundled, minified, one IIFE. */
export const bootScript = (shared: Pick<Shared, 'root' | 'mode' | 'define' | 'target'>) =>
  inlineScript(shared, 'src/boot/boot.ts');

/** The floor check (src/boot/floor.ts), in a syntax that browsers below the floor parse. */
const floorScript = (shared: Pick<Shared, 'root' | 'mode'>) =>
  inlineScript({ ...shared, target: 'es2015' }, 'src/boot/floor.ts');

async function inlineScript(
  shared: Pick<Shared, 'root' | 'mode' | 'define' | 'target'>,
  input: string,
): Promise<string> {
  const output = (await build({
    root: shared.root,
    mode: shared.mode,
    // The app's config (src/config.ts), as the app gets it.
    define: shared.define,
    configFile: false,
    logLevel: 'warn',
    build: {
      write: false,
      minify: true,
      target: shared.target,
      rollupOptions: { input, output: { format: 'iife' }, onLog: quietLog },
    },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const chunk = (Array.isArray(output) ? output[0] : output)?.output[0];
  if (chunk?.type !== 'chunk') throw new Error(`prerender: ${input} did not build`);
  return chunk.code.trim();
}

/** JSON in an inert element; `<` escaped so that nothing in it ends the element. */
const json = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function prerenderPlugin(): Plugin {
  let shared: Shared;
  return {
    name: 'prerender',
    apply: 'build',
    configResolved(config) {
      shared = {
        root: config.root,
        base: config.base,
        mode: config.mode,
        define: config.define,
        assetsInlineLimit: config.build.assetsInlineLimit,
        target: config.build.target,
      };
    },
    transformIndexHtml: {
      order: 'post',
      async handler(html, { bundle }) {
        const files = Object.values(bundle ?? {});
        const chunk = (name: string) =>
          files.find(
            (file): file is Rollup.OutputChunk => file.type === 'chunk' && file.name === name,
          );
        const screen = chunk('video-player-screen');
        const adaptive = chunk('adaptive-player');
        const entryTag = ENTRY_TAG.exec(html);
        if (!screen || !adaptive || !entryTag?.[1])
          throw new Error(
            'prerender: the build has no video-player-screen or adaptive-player chunk, or no entry tag',
          );
        const entryFile = files.find((file) => file.type === 'chunk' && file.isEntry)?.fileName;
        const [screens, floor, script] = await Promise.all([
          renderScreens(shared),
          floorScript(shared),
          bootScript(shared),
        ]);
        const boot: BootConfig = {
          entry: entryTag[1],
          // The entry comes with the app; the rest the screen needs is fetched at once.
          modules: [screen.fileName, ...screen.imports.filter((name) => name !== entryFile)].map(
            (name) => `${shared.base}${name}`,
          ),
          adaptive: [adaptive.fileName, ...adaptive.imports].map((name) => `${shared.base}${name}`),
          title: screens.videoTitle,
          appWaitMs: APP_WAIT_MS,
        };
        // #root right before the scripts: a returning visitor's login is replaced before any
        // paint, with nothing left to parse in between (the template came after it and the
        // login was painted first).
        const body = [
          `<template id="${VIDEO_SCREEN_TEMPLATE_ID}">${screens.video}</template>`,
          `<script type="application/json" id="${BOOT_CONFIG_ID}">${json(boot)}</script>`,
          // The server writes what it has published here (server/routes/site.ts).
          MEDIA_INFO_ELEMENT,
          `<div id="root">${screens.login}</div>`,
          `<script>${floor}</script>`,
          `<script>${script}</script>`,
        ].join('\n    ');
        if (!html.includes('<div id="root"></div>'))
          throw new Error('prerender: index.html has no empty <div id="root"></div>');
        // A function, not a string: `$&` in the minified scripts would be a replacement pattern.
        return html.replace(entryTag[0], '').replace('<div id="root"></div>', () => body);
      },
    },
  };
}
