/**
 * index.html as the build makes it (scripts/build/prerender.ts), for the tests of what it shows before
 * the bundle runs: the screens prerendered by src/prerender.tsx, the boot's settings, and the
 * boot script itself (src/boot/boot.ts), run as the page runs it.
 */
import { act } from '@testing-library/react';
import type { Root } from 'react-dom/client';
import { inject, onTestFinished } from 'vitest';
import { MEDIA_INFO_ELEMENT } from '../../config/media-layout';
import { createQueryClient } from '../../src/api/signin';
import { APP_WAIT_MS, type BootConfig } from '../../src/boot/boot-config';
import { announceApp } from '../../src/boot/handoff';
import type { AppChunks } from '../../src/chunks';
import { startApp } from '../../src/start';

export const SCREEN_MODULE = '/capacitacion/assets/video-player-screen-test.js';
const ADAPTIVE_MODULE = '/capacitacion/assets/adaptive-player-test.js';
const APP_ENTRY = '/capacitacion/assets/index-test.js';

/** The app's entry as the boot starts it: a module script in <head>. */
export const appEntryScripts = () =>
  document.head.querySelectorAll(`script[type="module"][src="${APP_ENTRY}"]`);

/**
 * A visitor opens `route` with `seed` in local storage: the body the build writes, then the
 * boot script. Returns #root.
 */
export async function openIndexHtml(route: string, seed: string | null): Promise<HTMLElement> {
  window.history.replaceState(null, '', route);
  if (seed !== null) localStorage.setItem('session', seed);
  // Prerendered once for the whole run (tests/app/global-setup.ts).
  const { login, video, videoTitle } = inject('screens');
  const boot: BootConfig = {
    entry: APP_ENTRY,
    modules: [SCREEN_MODULE],
    adaptive: [ADAPTIVE_MODULE],
    title: videoTitle,
    appWaitMs: APP_WAIT_MS,
  };
  document.body.innerHTML = [
    `<div id="root">${login}</div>`,
    `<template id="video-screen">${video}</template>`,
    `<script type="application/json" id="boot-config">${JSON.stringify(boot)}</script>`,
    MEDIA_INFO_ELEMENT,
  ].join('');
  onTestFinished(() => {
    document.body.replaceChildren();
    for (const element of document.head.querySelectorAll('link[rel="modulepreload"], script'))
      element.remove();
  });
  // An earlier test's boot still listens on this document: it answers no app of this page.
  announceApp(() => {});
  // Indirect eval: global scope, like a classic <script>.
  (0, eval)(inject('bootScript'));
  return document.getElementById('root')!;
}

/**
 * What the app's entry does once it arrives (src/main.tsx): it announces itself and starts with
 * the boot's hand-off, here in a test's own QueryClient.
 */
export async function startAppIn(root: HTMLElement, chunks?: AppChunks): Promise<Root> {
  const queryClient = createQueryClient();
  let reactRoot: Root | undefined;
  await act(async () => {
    const answered = announceApp((handoff) => {
      reactRoot = startApp(root, { handoff, queryClient, chunks });
    });
    if (!answered) throw new Error('no boot script answered the app');
  });
  onTestFinished(() => {
    act(() => reactRoot!.unmount());
    queryClient.clear();
  });
  return reactRoot!;
}
