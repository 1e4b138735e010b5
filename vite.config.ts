import { availableParallelism } from 'node:os';
import react from '@vitejs/plugin-react';
import browserslistToEsbuild from 'browserslist-to-esbuild';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';
import { clientConfig as readClientConfig } from './config/settings.ts';
import { inlineEntryCssPlugin } from './scripts/build/inline-css.ts';
import { precompressPlugin } from './scripts/build/precompress.ts';
import { prerenderPlugin } from './scripts/build/prerender.ts';
import { quietLog, quietWorkerBuildPlugin } from './scripts/build/quiet-build.ts';

const clientConfig = readClientConfig(process.env);

export default defineConfig({
  base: `${clientConfig.basePath}/`,
  plugins: [
    react(),
    prerenderPlugin(),
    inlineEntryCssPlugin(),
    VitePWA({
      // The plugin makes the precache list; src/offline/sw.ts adds the pages and the media.
      strategies: 'injectManifest',
      srcDir: 'src/offline',
      filename: 'sw.ts',
      // src/offline/register-worker.ts registers it after the video's first frame, not at once.
      injectRegister: false,
      // Not precached: no offline page shows them (an installed app has its own copy), and a
      // first visit would pay for their bytes (docs/benchmarks.md).
      includeManifestIcons: false,
      manifest: {
        lang: 'es',
        name: 'Capacitación: manejo de silo bolsa',
        short_name: 'Silo bolsa',
        description: 'Capacitación para clientes: manejo de silo bolsa, edición 2023.',
        start_url: `${clientConfig.basePath}/login`,
        scope: `${clientConfig.basePath}/`,
        display: 'standalone',
        theme_color: '#1b4d1f',
        background_color: '#f7f4ec',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          {
            src: 'icons/maskable-512.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
        ],
      },
      injectManifest: {
        // What the two screens load, so that the worker, registered after the first frame, finds
        // it in the HTTP cache. Not index.html: the server adds the media info and the CSP to it
        // (sw.ts keeps the server's copy instead). Not the entry CSS: it is inlined in the page.
        globPatterns: ['assets/*.{js,svg}'],
        // hls.js is listed, and precached only where the page plays with it (src/offline/sw.ts).
        // The reports' chunk (page-recorder) loads only when reporting is on (src/field-report/).
        globIgnores: clientConfig.reportsUrl ? [] : ['assets/page-recorder-*.js'],
        // Hashed names change with their bytes: no cache-busting query needed.
        dontCacheBustURLsMatching: /-[\w-]{8}\./,
        buildPlugins: { vite: [quietWorkerBuildPlugin()] },
      },
    }),
    precompressPlugin(),
  ],
  define: {
    __APP_CONFIG__: JSON.stringify(clientConfig),
  },
  server: {
    // `npm run dev` serves the front end; the API comes from `npm start` running beside it.
    proxy: { '/api': `http://127.0.0.1:${process.env.PORT ?? 8080}` },
  },
  build: {
    outDir: 'dist',
    // The syntax the browser floor parses (package.json's browserslist; docs/browsers.md).
    target: browserslistToEsbuild(),
    // Below Chrome 98 and Safari 16 the bundler rewrites class fields. As assignments (what
    // TypeScript and hls.js's own ES5 build do), not through a defineProperty helper: the helper
    // would land in the entry, and hls.js's chunk would then fetch and run the app's bundle
    // before a returning visitor's first frame.
    rolldownOptions: {
      transform: { assumptions: { setPublicClassFields: true } },
      // Only what a person should read (scripts/build/quiet-build.ts).
      onLog: quietLog,
    },
    // Only the logo becomes a data: URI (in index.html and in the React import alike): the
    // login's largest paint must not wait for a request. Everything else stays a file.
    assetsInlineLimit: (file) => file.endsWith('/src/assets/logo.svg'),
  },
  test: {
    // A hang detector, not a speed check: tests wait for real scrypt, ffmpeg, tsx and
    // redis-server on a shared 2-core machine, where a step of 2 s idle takes 7 s under load
    // (docs/testing.md: times are the bench's to measure).
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Vitest's default on two cores is one worker; most files wait on a subprocess, a socket or
    // scrypt, so two finish sooner on an idle machine (figures: docs/testing.md).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: { name: 'machines', include: ['tests/machines/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'server',
          include: ['tests/server/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/server/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'config', include: ['tests/config/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: { name: 'tooling', include: ['tests/tooling/**/*.test.ts'], environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'app',
          include: ['tests/app/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['tests/app/setup.ts'],
          globalSetup: ['tests/app/global-setup.ts'],
        },
      },
    ],
  },
});
