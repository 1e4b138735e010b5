/** index.html as the build makes it, for the tests of what it shows before the bundle runs. */
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import { resolve } from 'node:path';
import { SESSION_KEY, SESSION_MAX_AGE_S } from '../../machines/session';
import bannerUrl from '../../src/assets/banner.svg';
import logoUrl from '../../src/assets/logo.svg';
import { VIDEO_TITLE } from '../../src/boot/videoShell';
import { config } from '../../src/config';
import { documentTitle } from '../../src/screens/useDocumentTitle';
import { USERNAME_PLACEHOLDER } from '../../scripts/video-shell';
import {
  APP_WAIT_MS,
  VIDEO_SHELL_PLACEHOLDER,
  bootConfigHtml,
  bootScript,
} from '../../scripts/video-shell';

export const indexHtml = readFileSync(resolve(__dirname, '../../index.html'), 'utf8');

/** The source path of the logo in index.html, which the build turns into the same data: URI. */
export const LOGO_SOURCE = 'src="/src/assets/logo.svg"';

/**
 * The markup index.html puts inside #root, with the logo's source path resolved as Vite
 * resolves it (vite.config.ts inlines it as a data: URI, in index.html and in the import alike).
 */
export function staticRootMarkup(): string {
  const match = new RegExp(`<div id="root">(.*)</div>\\s*${VIDEO_SHELL_PLACEHOLDER}`, 's').exec(
    indexHtml,
  );
  if (!match?.[1]) throw new Error('index.html has no <div id="root">…</div> before the boot');
  return match[1]
    .replace(LOGO_SOURCE, `src="${logoUrl}"`)
    .replace(USERNAME_PLACEHOLDER, config.username);
}

export const SCREEN_MODULE = '/capacitacion/assets/VideoPlayerScreen-test.js';
export const APP_ENTRY = '/capacitacion/assets/index-test.js';

/** The app's entry as the boot starts it: a module script in <head>. */
export const appEntryScripts = () =>
  document.head.querySelectorAll(`script[type="module"][src="${APP_ENTRY}"]`);

/**
 * What the browser does with index.html's body: #root with the login markup, then the boot's
 * settings and script as the build writes them (scripts/video-shell.ts), the script run as page
 * source text.
 */
export async function loadIndexHtmlBody(): Promise<HTMLElement> {
  const root = document.createElement('div');
  root.id = 'root';
  root.innerHTML = staticRootMarkup();
  const settings = document.createElement('template');
  settings.innerHTML = bootConfigHtml({
    entry: APP_ENTRY,
    appWaitMs: APP_WAIT_MS,
    sessionKey: SESSION_KEY,
    maxAgeS: SESSION_MAX_AGE_S,
    title: documentTitle(VIDEO_TITLE),
    videoUrl: config.videoUrl,
    posterUrl: config.posterUrl,
    captionsUrl: config.captionsUrl,
    logoUrl,
    // The build's hashed file, as the screen's import resolves it.
    bannerUrl,
    modules: [SCREEN_MODULE],
  });
  const settingsElement = settings.content.firstElementChild!;
  document.body.append(root, settingsElement);
  onTestFinished(() => {
    root.remove();
    settingsElement.remove();
    document.getElementById('video-shell')?.remove();
    for (const link of document.head.querySelectorAll('link[rel="modulepreload"]')) link.remove();
    for (const script of appEntryScripts()) script.remove();
  });
  // Indirect eval: global scope, like a classic <script>; nothing of this module is visible.
  (0, eval)(await bootScript());
  return root;
}
