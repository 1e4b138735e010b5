/**
 * Names the page and the service worker share (sw.ts is built on its own, from these same
 * sources). Cache Storage is per origin, so the names carry the base path: two sites on one
 * origin keep apart.
 */

/** The last page the server sent (index.html with its media info and CSP): the offline shell. */
export const pagesCache = (base: string) => `pages:${base}`;

/**
 * The downloaded video, captions, chapters and poster, each at its own URL, and the download's
 * record (DOWNLOAD_RECORD). One cache, so that one `caches.delete` removes all of it at once.
 */
export const downloadCache = (base: string) => `offline-video:${base}`;

/** Where the download's record sits inside its cache: a URL no server route answers. */
export const DOWNLOAD_RECORD = 'offline-download.json';

/**
 * What the page tells the worker at its video's first frame, when the link is free again: ask
 * the server for the page once more, if the page came from the worker's copy (sw.ts).
 */
export const REFRESH_PAGE = 'refresh-page';

/**
 * On the worker's URL when the page plays with hls.js: the worker then precaches its chunk too.
 * A single-MP4 site, or a browser without Media Source, never loads it.
 */
export const PLAYER_PARAM = 'player';
