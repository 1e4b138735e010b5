import { WORKER_FILE } from '../../config/paths';
import { config } from '../config';
import { hasMediaSource, readMediaInfo } from '../screens/video-player/media-support';
import { PLAYER_PARAM, REFRESH_PAGE, pagesCache } from './offline-names';

/**
 * Registers the service worker once the video has its first frame (the video screen calls this)
 * and the browser is idle. By then the page has loaded what the worker precaches, so its install
 * takes those files from the HTTP cache instead of the link: a visitor who stays on the login
 * pays nothing for it, and nothing is fetched twice. Only in a build: the dev server has no worker.
 * A page the worker showed from its copy is asked of the server once more now that the link is
 * free (sw.ts).
 */
export function registerWorkerWhenIdle() {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const register = () => {
    // With no link the script cannot come (and the browser logs an error): when it is back.
    if (!navigator.onLine) return void addEventListener('online', register, { once: true });
    const scope = `${config.basePath}/`;
    // A site and a browser that play with hls.js: the worker keeps its chunk too. Not whether
    // it plays this time (hls.js may give up): another worker URL would replace this one.
    const player = readMediaInfo() && hasMediaSource() ? `?${PLAYER_PARAM}` : '';
    const { serviceWorker } = navigator;
    serviceWorker.controller?.postMessage(REFRESH_PAGE);
    serviceWorker.register(`${scope}${WORKER_FILE}${player}`, { scope }).catch(() => {
      // No worker (a private window that refuses them): the site works online as before.
    });
  };
  // requestIdleCallback is missing from Safari; a timeout after the load does the same there.
  const whenIdle = () =>
    'requestIdleCallback' in window
      ? // eslint-disable-next-line compat/compat -- feature-detected on the line above.
        requestIdleCallback(register, { timeout: 5000 })
      : setTimeout(register, 1000);
  if (document.readyState === 'complete') whenIdle();
  else window.addEventListener('load', whenIdle, { once: true });
}

/**
 * Drops the worker's copy of the page (sw.ts), so that the next load asks the server: the copy
 * names a publish that is gone (replaced by `npm run rekey`). Never throws.
 */
export async function forgetPageCopy(): Promise<void> {
  if (typeof caches === 'undefined') return;
  await caches.delete(pagesCache(config.basePath)).catch(() => false);
}
