/**
 * Writes the page's boot (src/boot/videoShell.ts) into index.html right after #root: its
 * settings as JSON (the session's key and age limit, the media URLs, the login markup's logo,
 * and in a build the app's entry and the video screen's files), then the script itself. In a
 * build the boot starts the app, so Vite's own entry tag goes. The server allows exactly that
 * script by its hash (server/security.ts).
 */
import { minify, type Plugin } from 'vite';
import { SESSION_KEY, SESSION_MAX_AGE_S } from '../machines/session';
import {
  BOOT_CONFIG_ID,
  VIDEO_TITLE,
  bootPage,
  createPlayerVideo,
  type BootConfig,
} from '../src/boot/videoShell';
import { documentTitle } from '../src/screens/useDocumentTitle';
import type { ClientConfig } from '../config/settings';

/** Stands in index.html where the build writes the shared username. */
export const USERNAME_PLACEHOLDER = '%SHARED_USERNAME%';

/** Where index.html takes the boot. */
export const VIDEO_SHELL_PLACEHOLDER = '<!-- video-shell -->';

/** On a link so slow that the video's metadata takes longer, the app starts anyway. */
export const APP_WAIT_MS = 3_000;

/** The boot's settings as an inert element; `<` escaped so that nothing in them ends it. */
export const bootConfigHtml = (config: BootConfig) =>
  `<script type="application/json" id="${BOOT_CONFIG_ID}">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`;

/** The boot script's text, minified: every page load carries it. Independent of the settings. */
export async function bootScript(): Promise<string> {
  const source = `(${String(bootPage)})(JSON.parse(document.getElementById(${JSON.stringify(BOOT_CONFIG_ID)}).textContent), ${String(createPlayerVideo)});`;
  const { code, errors } = await minify('boot.js', source);
  if (errors.length) throw new Error(`video-shell: ${errors.map((e) => e.message).join('; ')}`);
  return code.trim();
}

/** Vite's module entry tag in the built index.html. */
const ENTRY_TAG = /\s*<script type="module" crossorigin src="([^"]+)"><\/script>/;

export function videoShellPlugin(client: ClientConfig): Plugin {
  return {
    name: 'video-shell',
    transformIndexHtml: {
      order: 'post',
      async handler(html, { bundle }) {
        const base = client.basePath;
        let bannerUrl = `${base}/src/assets/banner.svg`;
        let modules: string[] = [];
        let entry: string | null = null;
        if (bundle) {
          const files = Object.values(bundle);
          const banner = files.find(
            (file) => file.type === 'asset' && file.names.includes('banner.svg'),
          );
          const screen = files.find(
            (file) => file.type === 'chunk' && file.name === 'VideoPlayerScreen',
          );
          const entryTag = ENTRY_TAG.exec(html);
          if (!banner || screen?.type !== 'chunk' || !entryTag?.[1])
            throw new Error('video-shell: the build has no banner.svg, screen chunk or entry tag');
          bannerUrl = `${base}/${banner.fileName}`;
          entry = entryTag[1];
          html = html.replace(entryTag[0], '');
          // The entry comes with the app; the rest the screen needs is fetched now.
          const entryFile = files.find((file) => file.type === 'chunk' && file.isEntry)?.fileName;
          modules = [screen.fileName, ...screen.imports.filter((name) => name !== entryFile)].map(
            (name) => `${base}/${name}`,
          );
        }
        if (!html.includes(VIDEO_SHELL_PLACEHOLDER))
          throw new Error(`video-shell: index.html has no ${VIDEO_SHELL_PLACEHOLDER}`);
        // The same logo as the login markup's (a data: URI in a build: no request).
        const logoUrl = /<img class="login__logo" src="([^"]+)"/.exec(html)?.[1];
        if (!logoUrl) throw new Error('video-shell: index.html has no login logo');
        const config: BootConfig = {
          entry,
          appWaitMs: APP_WAIT_MS,
          sessionKey: SESSION_KEY,
          maxAgeS: SESSION_MAX_AGE_S,
          title: documentTitle(VIDEO_TITLE),
          videoUrl: client.videoUrl,
          posterUrl: client.posterUrl,
          captionsUrl: client.captionsUrl,
          logoUrl,
          bannerUrl,
          modules,
        };
        return html.replace(
          VIDEO_SHELL_PLACEHOLDER,
          `${bootConfigHtml(config)}\n    <script>${await bootScript()}</script>`,
        );
      },
    },
  };
}
