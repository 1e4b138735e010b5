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
import { USERNAME_PLACEHOLDER } from '../../scripts/client-config';
import { shellScript } from '../../scripts/video-shell';

export const indexHtml = readFileSync(resolve(__dirname, '../../index.html'), 'utf8');

/** The source path of the logo in index.html, which the build turns into the same data: URI. */
export const LOGO_SOURCE = 'src="/src/assets/logo.svg"';

/**
 * The markup index.html puts inside #root, with the logo's source path resolved as Vite
 * resolves it (vite.config.ts inlines it as a data: URI, in index.html and in the import alike).
 */
export function staticRootMarkup(): string {
  const match = /<div id="root">(.*)<\/div>\s*<\/body>/s.exec(indexHtml);
  if (!match?.[1]) throw new Error('index.html has no <div id="root">…</div> before </body>');
  return match[1]
    .replace(LOGO_SOURCE, `src="${logoUrl}"`)
    .replace(USERNAME_PLACEHOLDER, config.username);
}

export const SCREEN_MODULE = '/capacitacion/assets/VideoPlayerScreen-test.js';

/**
 * What the browser does with index.html's body: the shell's script as the build writes it
 * (scripts/video-shell.ts), run as page source text, then #root with the login markup.
 */
export async function loadIndexHtmlBody(): Promise<HTMLElement> {
  const root = document.createElement('div');
  root.id = 'root';
  root.innerHTML = staticRootMarkup();
  onTestFinished(() => {
    root.remove();
    document.getElementById('video-shell')?.remove();
    for (const link of document.head.querySelectorAll('link[rel="modulepreload"]')) link.remove();
  });
  const script = await shellScript({
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
  // Indirect eval: global scope, like a classic <script>; nothing of this module is visible.
  (0, eval)(script);
  document.body.append(root);
  return root;
}
