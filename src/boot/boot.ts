/**
 * What index.html runs first, inline after #root (scripts/build/prerender.ts bundles it; the CSP
 * allows it by its hash): it makes the page's hand-off (handoff.ts: the video's start, a press
 * answered early) and starts the app's bundle with it. For a returning visitor (a stored session
 * the machine will accept) it first shows the video screen's prerendered markup with the
 * greeting and starts its video, and the bundle waits for the video's first bytes (with hls.js,
 * its first two segments) so as not to share a slow link with them; React then hydrates that
 * markup and adopts the video. Otherwise it answers the login's form until the app does
 * (first-press.ts), so that a press at the first paint already signs in, and shows the video
 * screen the same way at that signin's success if the app is still on its way. The whole
 * start: docs/video-start.md.
 */
import { SCREEN_PATHS } from '../../config/paths';
import { SESSION_KEY, parseSession } from '../../machines/session';
import { endPendingSignout } from '../auth/server-session';
import { resilientStorage } from '../auth/storage';
import { config } from '../config';
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
const appRuns = handOverTo({ takeEarlySignin: () => takeEarlySignin(), video });

let appStarted = false;
let videoShown = false;
let appScriptRan = () => {};
const appLoaded = new Promise<void>((resolve) => (appScriptRan = resolve));
function startApp() {
  if (appStarted) return;
  appStarted = true;
  const script = document.createElement('script');
  script.type = 'module';
  script.crossOrigin = '';
  script.src = boot.entry;
  script.addEventListener('load', appScriptRan, { once: true });
  document.head.append(script);
  // Beside the bundle, not before: before the video's first bytes they would share the link.
  if (videoShown) boot.modules.forEach(preload);
}

const preloaded = new Set<string>();
function preload(href: string) {
  if (preloaded.has(href)) return;
  preloaded.add(href);
  const link = document.createElement('link');
  link.rel = 'modulepreload';
  link.href = href;
  link.crossOrigin = '';
  document.head.append(link);
}

function showVideoScreen(user: { nombres: string; empresa: string }): boolean {
  const root = document.getElementById('root');
  const template = document.getElementById(VIDEO_SCREEN_TEMPLATE_ID);
  if (!root || !(template instanceof HTMLTemplateElement)) return false;
  const screen = document.importNode(template.content, true);
  const button = screen.querySelector('.session-button');
  const element = screen.querySelector('video');
  if (!button || !element) return false;
  // As text, never as markup: the names come from local storage.
  button.textContent = `Hola ${user.nombres} / ${user.empresa}`;
  root.replaceChildren(screen);
  document.title = boot.title;
  // The address the app will settle on (routes.tsx), for a reload or a shared link meanwhile.
  history.replaceState(null, '', `${config.basePath}${SCREEN_PATHS.video}`);
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
} else if (!session || !showVideoScreen(session)) {
  // A signout still owed, or a session the server may hold for this phone without one here:
  // sent now, before a press can start a signin (which waits for it: server-session.ts).
  if (!session) void endPendingSignout(storage);
  // What the login asks for, in this order (requests in flight share the link equally): the
  // video's first bytes (an encrypted publish's are public), so that the first frame waits only
  // for the signin's round trip; then the app's bundle; then, while the visitor types, hls.js;
  // the video screen's chunk at a press, after the first bytes too. The boot answers the form
  // meanwhile and shows the video screen itself at a signin's success, whose own wait then
  // holds the bundle (showVideoScreen).
  const firstBytes = video.fetchAhead();
  void firstBytes.then(() => videoShown || startApp());
  setTimeout(startApp, boot.appWaitMs);
  const form = document.querySelector(`form.${LOGIN_FORM_CLASS}`);
  if (form instanceof HTMLFormElement)
    takeEarlySignin = answerBeforeApp(form, {
      onPress: () => void firstBytes.then(() => boot.modules.forEach(preload)),
      onSignedIn: (user) => {
        video.signedIn(user.videoKey);
        // The app not here yet: the video screen now, as for a returning visitor; the app's
        // machine then takes this signin (start.tsx).
        if (!appRuns()) showVideoScreen(user);
      },
    });
  // Not hls.js once "Ingresar" is pressed: it would share the link with the video's first
  // segments; the start asks for it after them.
  let pressed = false;
  form?.addEventListener('submit', () => (pressed = true));
  if (adaptive) void appLoaded.then(() => pressed || boot.adaptive.forEach(preload));
}
// index.html's head script hid the login while this was decided; whichever screen is shown now.
document.documentElement.classList.remove('returning');
