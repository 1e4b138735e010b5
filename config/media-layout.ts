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

/**
 * The served publish: names one version folder. prepare-video replaces it with rename(2), so a
 * reader sees the previous publish or the new one, never a mix. Without it, MEDIA_DIR's root
 * holds one publish in the older flat layout (served as it is).
 */
export const CURRENT_FILE = 'current.json';

/** A publish's folder inside MEDIA_DIR: `v`, the UTC time it was made current, its id. */
export const VERSION_DIR_PATTERN = /^v\d{14}-[a-z0-9]{8}$/;

/** In current.json, the older flat layout at MEDIA_DIR's root once a versioned publish replaced it. */
export const ROOT_VERSION = '.';

/** What current.json holds: the served version, and the previous ones kept for pages still playing them. */
export interface CurrentPointer {
  version: string;
  since: string;
  /** Each with when it stopped being served (ISO time); removed a session lifetime later. */
  retired: { version: string; until: string }[];
}

/** current.json's text, checked; null when it is not one prepare-video wrote. */
export function parsePointer(text: string): CurrentPointer | null {
  try {
    const value = JSON.parse(text) as Partial<CurrentPointer>;
    const retired = Array.isArray(value.retired) ? value.retired : null;
    const named = (v: unknown) => typeof v === 'string' && VERSION_DIR_PATTERN.test(v);
    if (!named(value.version) || typeof value.since !== 'string' || !retired) return null;
    const valid = retired.every(
      (r) =>
        (named(r?.version) || r?.version === ROOT_VERSION) &&
        typeof r.until === 'string' &&
        Number.isFinite(Date.parse(r.until)),
    );
    return valid ? (value as CurrentPointer) : null;
  } catch {
    return null;
  }
}

/** A rendition's folder: the publish id and its height, e.g. `k3f9a1c2-360p`. */
export const RUNG_DIR_PATTERN = /^[a-z0-9]{8}-\d{2,4}p$/;

/** The files inside a rendition's folder. */
export const RUNG_FILE_PATTERN = /^(index\.m3u8|init\.mp4|seg\d{5}\.m4s)$/;

/** Each segment's length in seconds: 6 s carries 267 kbit/s over a 2 s round trip (the notes). */
export const SEGMENT_S = 6;

/** A rendition's files, by the names prepare-video gives them (ffmpeg's pattern for segments). */
export const RUNG_FILES = {
  playlist: 'index.m3u8',
  init: 'init.mp4',
  segments: 'seg%05d.m4s',
} as const;

/** The name of a rendition's segment `index` (from 0), as ffmpeg writes RUNG_FILES.segments. */
export const segmentName = (index: number) => `seg${String(index).padStart(5, '0')}.m4s`;

/**
 * What the page is told about the published video when the server sends it (index.html is built
 * once; MEDIA_DIR is a run-time setting): the renditions, lowest first, so that a returning
 * visitor's page asks for the first segment at once, beside hls.js, instead of after the
 * master and a playlist. Null when the server has only the single MP4.
 */
export interface MediaInfo {
  /**
   * The version folder the page plays (VERSION_DIR_PATTERN), when MEDIA_DIR has one: the player
   * asks for `/api/video/hls/VERSION/master.m3u8` and `VERSION/fallback.mp4`, so a publish made
   * while it plays changes nothing it asks for.
   */
  version?: string;
  rungs: { dir: string; height: number; peakBandwidth: number }[];
}

/** A whole, positive number, as media.json and MediaInfo hold sizes and rates. */
export const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** The id of the JSON element in index.html that holds it. */
export const MEDIA_INFO_ID = 'media-info';

/** That element as the build writes it (scripts/prerender.ts) and the server fills it. */
export const MEDIA_INFO_ELEMENT = `<script type="application/json" id="${MEDIA_INFO_ID}">null</script>`;
