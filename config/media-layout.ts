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
 * The app's access check for a proxy that serves the video bytes itself (scripts/ops/nginx.ts):
 * 204 for a live session, with the publish's folder (relative to MEDIA_DIR) in MEDIA_DIR_HEADER;
 * 401 and 503 exactly as the video routes answer them.
 */
export const ACCESS_PATH = '/api/video/access';
export const MEDIA_DIR_HEADER = 'x-media-dir';

/**
 * Encryption (docs/publishing.md): every media segment is AES-128-CBC with PKCS7 padding under
 * its publish's key (the IV in config/segment-iv.ts); the init segment stays clear (EXT-X-KEY
 * comes after EXT-X-MAP). Segments are then public; the key and the playlists need a live
 * session. Each rendition's playlist names the key by KEY_FILE, relative to it, so the server
 * answers it under both of a rendition's URL shapes.
 */
export const KEY_FILE = 'key.bin';

/** The key's length in bytes: AES-128. */
export const KEY_BYTES = 16;

/**
 * The keys' folder: beside MEDIA_DIR, never inside it, so that serving MEDIA_DIR as static
 * files (nginx, a CDN) can never serve a key. MEDIA_KEYS_DIR overrides it.
 */
export const keysDirFor = (mediaDir: string) => `${mediaDir.replace(/\/+$/, '')}.keys`;

/** A publish's key file in the keys' folder: 16 raw bytes, by the publish's id. */
export const keyFileName = (id: string) => `${id}.key`;

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

/**
 * The first segment's length: one keyframe interval, as the second segment is asked for once the
 * first's bytes are in (prepare-video also cuts it into fragments: the first frame waits for one).
 * Publishes older than this layout say nothing (`firstSegmentS` absent): their first is SEGMENT_S.
 */
export const FIRST_SEGMENT_S = 2;

/** The index of the segment that plays `seconds`, when the first one lasts `firstS`. */
export const segmentAt = (seconds: number, firstS: number = SEGMENT_S) =>
  seconds < firstS ? 0 : 1 + Math.floor((seconds - firstS) / SEGMENT_S);

/** A rendition's files, by the names prepare-video gives them (ffmpeg's pattern for segments). */
export const RUNG_FILES = {
  playlist: 'index.m3u8',
  init: 'init.mp4',
} as const;

/** The name of a rendition's segment `index` (from 0), as prepare-video writes it. */
export const segmentName = (index: number) => `seg${String(index).padStart(5, '0')}.m4s`;

/** A rendition as prepare-video publishes it in media.json. */
export interface PublishedRung {
  dir: string;
  width: number;
  height: number;
  /** Measured over the segments, bits per second. */
  averageBandwidth: number;
  peakBandwidth: number;
  codecs: string;
  bytes: number;
}

/** media.json: what prepare-video published into MEDIA_DIR. */
export interface Manifest {
  id: string;
  /** The version folder inside the media folder that holds this publish. */
  version: string;
  source: string;
  durationS: number;
  frameRate: number;
  rungs: PublishedRung[];
  fallback: { rung: string; bytes: number };
  captions: 'kept' | 'embedded' | 'stub';
  /** How many chapters were published, from `--chapters` or beside the source (0: none, no track). */
  chapters: number;
  /** The first segment's seconds (FIRST_SEGMENT_S); absent in older publishes (SEGMENT_S). */
  firstSegmentS?: number;
  /** Segments encrypted under the key `keyFileName(id)` (KEY_FILE); absent in older publishes. */
  encrypted?: boolean;
  /** Published with `--accept-truncated`: what the source announced and what was wrong. */
  cut?: { containerS: number; problems: string[] };
}

/**
 * What the page is told about the publish (index.html is built once; MEDIA_DIR is a run-time
 * setting): the renditions, lowest first, `height` being the short side. Null: the single MP4.
 */
export interface MediaInfo {
  /**
   * The version folder the page plays (VERSION_DIR_PATTERN), when MEDIA_DIR has one: the player
   * asks for `/api/video/hls/VERSION/master.m3u8` and `VERSION/fallback.mp4`, so a publish made
   * while it plays changes nothing it asks for.
   */
  version?: string;
  /** As in media.json: where the start finds the segment of a resume position. */
  firstSegmentS?: number;
  /**
   * As in media.json: the video's length, which the start's own Media Source says before hls.js
   * reads the playlist (without it the player's controls change when hls.js comes).
   */
  durationS?: number;
  /** As in media.json: the segments need the publish's key (KEY_FILE). */
  encrypted?: boolean;
  /** `codecs` lets the start show the first frame before hls.js (first-frame.ts). */
  rungs: (Pick<PublishedRung, 'dir' | 'height' | 'peakBandwidth'> & { codecs?: string })[];
}

/** A whole, positive number, as media.json and MediaInfo hold sizes and rates. */
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** An RFC 6381 codecs list as prepare-video writes it ("avc1.64001e,mp4a.40.2"). */
const CODECS_PATTERN = /^[a-zA-Z0-9]{4}(\.[a-zA-Z0-9]+)*(,[a-zA-Z0-9]{4}(\.[a-zA-Z0-9]+)*){0,2}$/;

/** More than any ladder prepare-video makes (six rungs): a longer list is not its file. */
const MAX_RUNGS = 16;

/**
 * The one check of a publish's renditions, for media.json (the server) and for the page's
 * media-info (the boot and the Player), which the server wrote from it. Null when the text is
 * not a ladder the player could use (someone may have edited it by hand). Never throws.
 */
export function parseMediaInfo(text: string | null | undefined): MediaInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text ?? 'null');
  } catch {
    return null;
  }
  const { rungs, version, firstSegmentS, durationS, encrypted } =
    (value as {
      rungs?: unknown;
      version?: unknown;
      firstSegmentS?: unknown;
      durationS?: unknown;
      encrypted?: unknown;
    } | null) ?? {};
  if (!Array.isArray(rungs) || rungs.length === 0 || rungs.length > MAX_RUNGS) return null;
  if (version !== undefined && !(typeof version === 'string' && VERSION_DIR_PATTERN.test(version)))
    return null;
  if (firstSegmentS !== undefined && !(isCount(firstSegmentS) && firstSegmentS <= SEGMENT_S))
    return null;
  const parsed: MediaInfo['rungs'] = [];
  for (const rung of rungs as (Partial<PublishedRung> | null)[]) {
    // The page's copy has no width: its height is already the short side.
    const { dir, height, width = height, peakBandwidth, codecs } = rung ?? {};
    if (typeof dir !== 'string' || !RUNG_DIR_PATTERN.test(dir)) return null;
    if (!isCount(width) || !isCount(height) || !isCount(peakBandwidth)) return null;
    if (parsed.some((other) => other.dir === dir)) return null;
    // Unknown codecs only cost the early first frame: hls.js reads them from the master.
    const known = typeof codecs === 'string' && CODECS_PATTERN.test(codecs) ? { codecs } : {};
    // The short side names the quality ("360p"), portrait or not.
    parsed.push({ dir, height: Math.min(width, height), peakBandwidth, ...known });
  }
  const sorted = parsed.sort((a, b) => a.peakBandwidth - b.peakBandwidth);
  // A wrong length only costs the early first frame's controls: hls.js sets the playlist's.
  const known = typeof durationS === 'number' && durationS > 0 && durationS < 86_400;
  return {
    ...(version === undefined ? {} : { version }),
    ...(firstSegmentS === undefined ? {} : { firstSegmentS }),
    ...(known ? { durationS } : {}),
    ...(encrypted === true ? { encrypted } : {}),
    rungs: sorted,
  };
}

/** The id of the JSON element in index.html that holds it. */
export const MEDIA_INFO_ID = 'media-info';

/** That element as the build writes it (scripts/build/prerender.ts) and the server fills it. */
export const MEDIA_INFO_ELEMENT = `<script type="application/json" id="${MEDIA_INFO_ID}">null</script>`;

/**
 * On each page: how long (seconds) a copy of it may be shown without asking the server (the
 * service worker's, src/offline/sw.ts). SESSION_TTL_S: prepare-video keeps a replaced publish
 * twice that, so a copy that old still names a publish kept for the whole session begun from it.
 */
export const PAGE_COPY_HEADER = 'x-page-copy-s';

/**
 * On the page's root element, written by the server (OFFLINE_COPY_DAYS): how many days a
 * download plays with no signal, from the download; 0, or absent, ends it with the session.
 */
export const COPY_DAYS_ATTRIBUTE = 'data-offline-copy-days';
