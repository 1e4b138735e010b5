/**
 * What `npm run prepare-video` writes into a media folder and what the server serves from it
 * (MEDIA_DIR): one list of names so that the two never disagree.
 */
export const PUBLISHED = {
  master: 'master.m3u8',
  fallback: 'fallback.mp4',
  poster: 'cover.jpg',
  captions: 'captions.es.vtt',
  chapters: 'chapters.vtt',
  manifest: 'media.json',
} as const;

/** A rendition's folder: the publish id and its height, e.g. `k3f9a1c2-360p`. */
export const RUNG_DIR_PATTERN = /^[a-z0-9]{8}-\d{2,4}p$/;

/** The files inside a rendition's folder. */
export const RUNG_FILE_PATTERN = /^(index\.m3u8|init\.mp4|seg\d{5}\.m4s)$/;
