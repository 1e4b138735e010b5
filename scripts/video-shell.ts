/**
 * Writes the video shell (src/boot/videoShell.ts) into index.html as one inline classic script
 * at the top of <body>, with what it needs to know: the session's key and age limit, the media
 * URLs, the login markup's logo, and (in a build) the banner's and the video screen's files. The server allows
 * exactly that script by its hash (server/security.ts).
 */
import { minify, type Plugin } from 'vite';
import { SESSION_KEY, SESSION_MAX_AGE_S } from '../machines/session';
import {
  VIDEO_TITLE,
  createPlayerVideo,
  showVideoShell,
  type ShellConfig,
} from '../src/boot/videoShell';
import { documentTitle } from '../src/screens/useDocumentTitle';
import type { ClientConfig } from './client-config';

/** Where index.html takes the script. */
export const VIDEO_SHELL_PLACEHOLDER = '<!-- video-shell -->';

/** JSON that cannot end the script element it sits in. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** The script's text, minified: every page load carries it, the login's too. */
export async function shellScript(config: ShellConfig): Promise<string> {
  const source = `(${String(showVideoShell)})(${scriptJson(config)}, ${String(createPlayerVideo)});`;
  const { code, errors } = await minify('video-shell.js', source);
  if (errors.length) throw new Error(`video-shell: ${errors.map((e) => e.message).join('; ')}`);
  // A configured URL holding these would end the script element early, or open a comment.
  if (/<\/script|<!--/i.test(code))
    throw new Error('video-shell: the script holds </script or <!--');
  return code.trim();
}

export function videoShellPlugin(client: ClientConfig): Plugin {
  return {
    name: 'video-shell',
    transformIndexHtml: {
      order: 'post',
      async handler(html, { bundle }) {
        const base = client.basePath;
        let bannerUrl = `${base}/src/assets/banner.svg`;
        let modules: string[] = [];
        if (bundle) {
          const files = Object.values(bundle);
          const banner = files.find(
            (file) => file.type === 'asset' && file.names.includes('banner.svg'),
          );
          const screen = files.find(
            (file) => file.type === 'chunk' && file.name === 'VideoPlayerScreen',
          );
          if (!banner || screen?.type !== 'chunk')
            throw new Error('video-shell: the build has no banner.svg or VideoPlayerScreen chunk');
          bannerUrl = `${base}/${banner.fileName}`;
          // The entry is already on its way from the HTML; the rest the screen needs is not.
          const entry = files.find((file) => file.type === 'chunk' && file.isEntry)?.fileName;
          modules = [screen.fileName, ...screen.imports.filter((name) => name !== entry)].map(
            (name) => `${base}/${name}`,
          );
        }
        if (!html.includes(VIDEO_SHELL_PLACEHOLDER))
          throw new Error(`video-shell: index.html has no ${VIDEO_SHELL_PLACEHOLDER}`);
        // The same logo as the login markup's (a data: URI in a build: no request).
        const logoUrl = /<img class="login__logo" src="([^"]+)"/.exec(html)?.[1];
        if (!logoUrl) throw new Error('video-shell: index.html has no login logo');
        const script = await shellScript({
          sessionKey: SESSION_KEY,
          maxAgeS: SESSION_MAX_AGE_S,
          title: documentTitle(VIDEO_TITLE),
          videoUrl: client.videoUrl,
          posterUrl: client.posterUrl,
          captionsUrl: client.captionsUrl,
          logoUrl,
          bannerUrl,
          modules,
        });
        return html.replace(VIDEO_SHELL_PLACEHOLDER, `<script>${script}</script>`);
      },
    },
  };
}
