/** The two screens' paths under the base path: the app routes to them, the server serves them. */
export const SCREEN_PATHS = { login: '/login', video: '/VideoPlayer' } as const;
/**
 * The service worker's script at the build's root (vite-plugin-pwa's name): a page registers it,
 * and the server gives it a page's headers, as a worker runs under its script's CSP.
 */
export const WORKER_FILE = 'sw.js';
