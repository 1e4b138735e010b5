/**
 * What index.html runs before anything else: an inline script right after #root (the build
 * bundles this file into it, scripts/prerender.ts, and the CSP allows it by its hash). It
 * starts the app's bundle, with one exception.
 *
 * A returning visitor's first view is the video, yet on a slow link the bundle takes seconds,
 * and #root holds the login as the build prerendered it. So with a stored session that the
 * machine will accept (its own check, parseSession), this puts the video screen's prerendered
 * markup (a <template> beside #root) in its place, with the greeting, and starts the screen's
 * chunk. Its <video> starts loading at once; the bundle waits for the video's metadata, because
 * on a slow link it would share the bandwidth and the main thread with the video's first bytes.
 * React then hydrates that very markup, video included. The server answers the video only to
 * a live session cookie.
 */
import { SESSION_KEY, parseSession } from '../../machines/session';
import { BOOT_CONFIG_ID, VIDEO_SCREEN_TEMPLATE_ID, type BootConfig } from './boot-config';

const boot = JSON.parse(document.getElementById(BOOT_CONFIG_ID)?.textContent ?? '') as BootConfig;

let appStarted = false;
function startApp() {
  if (appStarted) return;
  appStarted = true;
  const script = document.createElement('script');
  script.type = 'module';
  script.crossOrigin = '';
  script.src = boot.entry;
  document.head.append(script);
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
  video.addEventListener('loadedmetadata', startApp);
  const failed = () => {
    video.failedBeforeApp = true;
    startApp();
  };
  // With <source>, a failed load is reported on the source, not on the video.
  video.querySelector('source')?.addEventListener('error', failed);
  video.addEventListener('error', failed);
  setTimeout(startApp, boot.appWaitMs);
  root.replaceChildren(screen);
  document.title = boot.title;
  for (const href of boot.modules) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    link.crossOrigin = '';
    document.head.append(link);
  }
  return true;
}

const session = parseSession(localStorage.getItem(SESSION_KEY), Date.now());
if (!session || !showVideoScreen(`Hola ${session.nombres} / ${session.empresa}`)) startApp();
