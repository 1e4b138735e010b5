/**
 * The two screens as the build writes them into index.html (scripts/build/prerender.ts): the very
 * components the app renders, at their routes, so that React hydrates them as they are. Runs at
 * build time, in Node.
 */
import { StrictMode, type ReactNode } from 'react';
import { StaticRouter } from 'react-router';
import { prerender } from 'react-dom/static';
import { SESSION_KEY, memoryStorage, newSession } from '../machines/session';
import { App } from './app';
import { createAppAuthMachine } from './auth/auth-provider';
import type { Handoff } from './boot/handoff';
import { config } from './config';
import { PATHS } from './routes';
import { VIDEO_TITLE, documentTitle } from './screens/use-document-title';
import { createVideoStart } from './video-start/video-start';

const at =
  (location: string) =>
  ({ children }: { children: ReactNode }) => (
    <StaticRouter location={location}>{children}</StaticRouter>
  );

async function html(element: ReactNode): Promise<string> {
  // prerender, unlike renderToString, waits for the lazy video screen.
  const { prelude } = await prerender(<StrictMode>{element}</StrictMode>);
  const markup = await new Response(prelude).text();
  // React puts resource hints (a preload of the banner) first, for a document's <head>; in #root
  // they would be nodes that React's own render does not have. The <img> asks for it anyway.
  return markup.replace(/^(<link [^>]*>)+/, '');
}

/** Nothing starts at build time: the screens use it in effects, which a prerender does not run. */
const handoff: Handoff = {
  takeEarlySignin: () => undefined,
  video: createVideoStart({
    info: null,
    storage: memoryStorage(),
    loadAdaptive: () => Promise.reject(new Error('no video at build time')),
  }),
};

export async function prerenderScreens() {
  const login = await html(
    <App
      machine={createAppAuthMachine(memoryStorage())}
      handoff={handoff}
      Router={at(PATHS.login)}
    />,
  );
  // No names: the boot script writes the visitor's own into the greeting.
  const session = newSession({ username: config.username, empresa: '', nombres: '' }, Date.now());
  const storage = memoryStorage({ [SESSION_KEY]: JSON.stringify(session) });
  const video = await html(
    <App machine={createAppAuthMachine(storage)} handoff={handoff} Router={at(PATHS.video)} />,
  );
  return { login, video, videoTitle: documentTitle(VIDEO_TITLE) };
}
