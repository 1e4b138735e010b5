/**
 * What index.html runs first, inline after #root (scripts/build/prerender.ts bundles it; the CSP
 * allows it by its hash): it makes the page's hand-off (handoff.ts: the video's start, a press
 * answered early) and starts the app's bundle with it. For a returning visitor (a stored session
 * the machine will accept) it first shows the video screen's prerendered markup with the
 * greeting and starts its video, and the bundle waits for the video's first bytes (with hls.js,
 * its first two segments) so as not to share a slow link with them; React then hydrates that
 * markup and adopts the video. Otherwise it answers the login's form until the app does
 * (first-press.ts), so that a press at the first paint already signs in. The whole start:
 * docs/video-start.md.
 */
import { SESSION_KEY, parseSession } from '../../machines/session';
import { endPendingSignout } from '../auth/server-session';
import { resilientStorage } from '../auth/storage';
import { LOGIN_FORM_CLASS, answerBeforeApp } from '../screens/login/first-press';
import { markAdaptive, readMediaInfo } from '../screens/video-player/media-support';
import type { LoadAdaptive } from '../video-start/contract';
import { createVideoStart } from '../video-start/video-start';
import { BELOW_FLOOR_ATTRIBUTE, VIDEO_SCREEN_TEMPLATE_ID, readBootConfig } from './boot-config';
import { handOverTo, type Handoff } from './handoff';

const boot = readBootConfig();
const info = readMediaInfo();
// A browser that blocks site data throws on reading localStorage: the login must still work.
const storage = resilientStorage();
const adaptive = markAdaptive(info);
// hls.js's chunk, asked for by the start once its first two segments are in, with what it
// imports; and the app's bundle then, for a returning visitor.
const loadAdaptive: LoadAdaptive = () => {
  startApp();
  boot.adaptive.forEach(preload);
  return import(/* @vite-ignore */ boot.adaptive[0]!);
};
const video = createVideoStart({ info, storage, loadAdaptive });
let takeEarlySignin: Handoff['takeEarlySignin'] = () => undefined;
handOverTo({ takeEarlySignin: () => takeEarlySignin(), video });

let appStarted = false;
let videoShown = false;
function startApp() {
  if (appStarted) return;
  appStarted = true;
  const script = document.createElement('script');
  script.type = 'module';
  script.crossOrigin = '';
  script.src = boot.entry;
  document.head.append(script);
  // Beside the bundle, not before: before the video's first bytes they would share the link.
  if (videoShown) boot.modules.forEach(preload);
}

function preload(href: string) {
  const link = document.createElement('link');
  link.rel = 'modulepreload';
  link.href = href;
  link.crossOrigin = '';
  document.head.append(link);
}

function showVideoScreen(greeting: string): boolean {
  const root = document.getElementById('root');
  const template = document.getElementById(VIDEO_SCREEN_TEMPLATE_ID);
  if (!root || !(template instanceof HTMLTemplateElement)) return false;
  const screen = document.importNode(template.content, true);
  const button = screen.querySelector('.session-button');
  const element = screen.querySelector('video');
  if (!button || !element) return false;
  // As text, never as markup: the names come from local storage.
  button.textContent = greeting;
  root.replaceChildren(screen);
  document.title = boot.title;
  videoShown = true;

  // With hls.js, the bundle comes with its chunk, when the start asks for it (video-start.ts).
  if (!adaptive) element.addEventListener(info ? 'loadeddata' : 'loadedmetadata', startApp);
  // The Player shows the error the element keeps (player.tsx).
  element.addEventListener('error', startApp);
  setTimeout(startApp, boot.appWaitMs);
  void video.play(element);
  return true;
}

const session = parseSession(storage.getItem(SESSION_KEY), Date.now());
// Below the floor (src/boot/floor.ts said so on the page), nothing would work: start nothing.
if (document.documentElement.hasAttribute(BELOW_FLOOR_ATTRIBUTE)) {
  // The message is on the screen.
} else if (!session || !showVideoScreen(`Hola ${session.nombres} / ${session.empresa}`)) {
  // A signout still owed, or a session the server may hold for this phone without one here:
  // sent now, before a press can start a signin (which waits for it: server-session.ts).
  if (!session) void endPendingSignout(storage);
  startApp();
  // The login answers from its first paint; the video screen's chunk comes beside the signin.
  const form = document.querySelector(`form.${LOGIN_FORM_CLASS}`);
  if (form instanceof HTMLFormElement)
    takeEarlySignin = answerBeforeApp(form, {
      // Not the video's first bytes at a press before the page's load: the app's bundle is
      // still coming, and they would slow it (docs/benchmarks.md); they leave with the signin's
      // success then.
      onPress: () => boot.modules.forEach(preload),
      onSignedIn: () => video.signedIn(),
    });
  // The video's first bytes and hls.js, fetched while the visitor types, after the page's load
  // (the login's own bytes come first). hls.js not once "Ingresar" is pressed: it would share
  // the link with the video's first segments, and the start asks for it after them.
  let pressed = false;
  form?.addEventListener('submit', () => (pressed = true));
  if (adaptive)
    addEventListener(
      'load',
      () => {
        video.loginLoaded();
        if (!pressed) boot.adaptive.forEach(preload);
      },
      { once: true },
    );
}
// index.html's head script hid the login while this was decided; whichever screen is shown now.
document.documentElement.classList.remove('returning');
