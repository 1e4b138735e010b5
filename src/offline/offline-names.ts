/**
 * Names the page and the service worker share (sw.ts is built on its own, from these same
 * sources). Cache Storage is per origin, so the names carry the base path: two sites on one
 * origin keep apart.
 */

/** The last page the server sent (index.html with its media info and CSP): the offline shell. */
export const pagesCache = (base: string) => `pages:${base}`;
