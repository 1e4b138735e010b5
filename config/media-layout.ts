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
 * The app's access check for a proxy that serves the video bytes itself (scripts/nginx.ts):
 * 204 for a live session, with the publish's folder (relative to MEDIA_DIR) in MEDIA_DIR_HEADER;
 * 401 and 503 exactly as the video routes answer them.
 */
export const ACCESS_PATH = '/api/video/access';
export const MEDIA_DIR_HEADER = 'x-media-dir';

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
  source: string;
  durationS: number;
  frameRate: number;
  rungs: PublishedRung[];
  fallback: { rung: string; bytes: number };
  captions: 'kept' | 'embedded' | 'stub';
  /** How many chapters were published from `--chapters` (0: none, no chapters track). */
  chapters: number;
}

/**
 * What the page is told about the publish (index.html is built once; MEDIA_DIR is a run-time
 * setting): the renditions, lowest first, `height` being the short side. Null: the single MP4.
 */
export interface MediaInfo {
  rungs: Pick<PublishedRung, 'dir' | 'height' | 'peakBandwidth'>[];
}

/** A whole, positive number, as media.json and MediaInfo hold sizes and rates. */
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

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
  const rungs = (value as { rungs?: unknown } | null)?.rungs;
  if (!Array.isArray(rungs) || rungs.length === 0 || rungs.length > MAX_RUNGS) return null;
  const parsed: MediaInfo['rungs'] = [];
  for (const rung of rungs as (Partial<PublishedRung> | null)[]) {
    // The page's copy has no width: its height is already the short side.
    const { dir, height, width = height, peakBandwidth } = rung ?? {};
    if (typeof dir !== 'string' || !RUNG_DIR_PATTERN.test(dir)) return null;
    if (!isCount(width) || !isCount(height) || !isCount(peakBandwidth)) return null;
    if (parsed.some((other) => other.dir === dir)) return null;
    // The short side names the quality ("360p"), portrait or not.
    parsed.push({ dir, height: Math.min(width, height), peakBandwidth });
  }
  return { rungs: parsed.sort((a, b) => a.peakBandwidth - b.peakBandwidth) };
}

/** The id of the JSON element in index.html that holds it. */
export const MEDIA_INFO_ID = 'media-info';

/** That element as the build writes it (scripts/prerender.ts) and the server fills it. */
export const MEDIA_INFO_ELEMENT = `<script type="application/json" id="${MEDIA_INFO_ID}">null</script>`;
