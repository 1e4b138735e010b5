/**
 * What index.html runs before anything else: an inline script right after #root (the build
 * bundles this file into it, scripts/prerender.ts, and the CSP allows it by its hash). It
 * starts the app's bundle, with one exception.
 *
 * A returning visitor's first view is the video, yet on a slow link the bundle takes seconds,
 * and #root holds the login as the build prerendered it. So with a stored session that the
 * machine will accept (its own check, parseSession), this puts the video screen's prerendered
 * markup (a <template> beside #root) in its place, with the greeting, and starts its video the
 * way the Player would (startVideo: the MP4, or hls.js and the first segment together). The
 * bundle waits for the video's metadata (the MP4) or first frame (adaptive), because on a slow
 * link it would share the bandwidth and the main thread with the video's first bytes. React
 * then hydrates that very markup and adopts the video as it plays. The server answers the
 * video only to a live session cookie.
 */
import { SESSION_KEY, parseSession } from '../../machines/session';
import { markAdaptive, readMediaInfo, startVideo } from '../screens/video-player/video-start';
import {
  BELOW_FLOOR_ATTRIBUTE,
  BOOT_CONFIG_ID,
  VIDEO_SCREEN_TEMPLATE_ID,
  type BootConfig,
} from './boot-config';

const boot = JSON.parse(document.getElementById(BOOT_CONFIG_ID)?.textContent ?? '') as BootConfig;
const info = readMediaInfo();
const adaptive = markAdaptive(info);

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
  const video = screen.querySelector('video');
  if (!button || !video) return false;
  // As text, never as markup: the names come from local storage.
  button.textContent = greeting;
  root.replaceChildren(screen);
  document.title = boot.title;
  videoShown = true;

  video.addEventListener(info ? 'loadeddata' : 'loadedmetadata', startApp);
  video.addEventListener('error', () => {
    video.failedBeforeApp = true;
    startApp();
  });
  setTimeout(startApp, boot.appWaitMs);
  if (adaptive) boot.adaptive.forEach(preload);
  void startVideo(video, {
    info,
    storage: localStorage,
    loadAdaptive: () => import(/* @vite-ignore */ boot.adaptive[0]!),
  });
  return true;
}

const session = parseSession(localStorage.getItem(SESSION_KEY), Date.now());
// Below the floor (src/boot/floor.ts said so on the page), nothing would work: start nothing.
if (document.documentElement.hasAttribute(BELOW_FLOOR_ATTRIBUTE)) {
  // The message is on the screen.
} else if (!session || !showVideoScreen(`Hola ${session.nombres} / ${session.empresa}`)) {
  startApp();
}
