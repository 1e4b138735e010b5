/**
 * What the boot script hands the app (made once per page, before either screen answers a
 * press), and how: the app's entry, once it runs, announces itself with one event on the
 * document (announceApp); the boot, which listens from the start, answers it with the hand-off
 * (handOverTo). Nothing of it is kept on the page's elements. docs/video-start.md.
 */
import type { EarlySignin } from '../screens/login/first-press';
import type { VideoStart } from '../video-start/video-start';

export interface Handoff {
  /** The signin the boot script started at a press before the app was live; taken once. */
  takeEarlySignin(): EarlySignin | undefined;
  /** The video's start: the login tells it of a signin, the Player plays its <video> with it. */
  video: VideoStart;
}

type RunApp = (handoff: Handoff) => void;

const APP_EVENT = 'app-entry';

/**
 * The boot's side: `handoff` goes to the app's entry when it announces itself. Returns whether
 * it has: from then on the app answers the page.
 */
export function handOverTo(handoff: Handoff): () => boolean {
  let handed = false;
  document.addEventListener(
    APP_EVENT,
    (event) => {
      if (event.defaultPrevented) return;
      event.preventDefault();
      handed = true;
      (event as CustomEvent<RunApp>).detail(handoff);
    },
    { once: true },
  );
  return () => handed;
}

/**
 * The app entry's side: runs `runApp` with the boot's hand-off. Returns false where no boot
 * script ran (`npm run dev`): the entry then makes its own.
 */
export const announceApp = (runApp: RunApp) =>
  !document.dispatchEvent(new CustomEvent(APP_EVENT, { detail: runApp, cancelable: true }));
