/**
 * What the video screen offers to download, asked of the server when the visitor is online: the
 * renditions with their sizes (an adaptive site) or the MP4 (a single-MP4 site), and the record
 * of the files each choice stores.
 */
import type { MediaInfo } from '../../config/media-layout';
import { config } from '../config';
import { mediaUrls } from '../screens/video-player/media-support';
import type { DownloadRecord } from './download-store';
import { mp4Pieces, oneRenditionMaster, parseMaster, playlistFiles } from './download-plan';
import { publishOf } from './download-store';
import { copyDays, isCopyOf } from './offline-copy';

export interface Choice {
  /** The rendition's height and folder; null for the MP4. */
  height: number | null;
  dir: string | null;
  bytes: number;
}

export interface Offer {
  kind: 'hls' | 'mp4';
  choices: Choice[];
  /** Builds the record of a choice (an adaptive site reads the rendition's playlist for it). */
  plan(choice: Choice): Promise<DownloadRecord>;
  /** Whether a stored download is of this publish; if not, it is obsolete. */
  current(record: DownloadRecord): boolean;
}

const PLAYLIST_TYPE = 'application/vnd.apple.mpegurl';

async function text(url: string): Promise<string> {
  const response = await fetch(url, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.text();
}

/** Captions, chapters and poster: same-origin ones only (an outside host is on its own). */
const extras = (): DownloadRecord['files'] =>
  [config.captionsUrl, config.chaptersUrl, config.posterUrl]
    .map((url) => new URL(url, location.href))
    .filter((url) => url.origin === location.origin)
    .map((url) => ({ url: url.href, key: url.href, optional: true }));

/**
 * The renditions the page knows (media-info) with their sizes from the video's length: nothing
 * is asked of the server until the visitor presses download (the start's requests stay the only
 * ones, each once). The master and the rendition's playlist are read then.
 */
function adaptiveOffer(info: MediaInfo, durationS: number): Offer {
  const { master } = mediaUrls(info);
  return {
    kind: 'hls',
    choices: info.rungs.map((rung) => ({
      height: rung.height,
      dir: rung.dir,
      bytes: Math.round((rung.peakBandwidth * durationS) / 8),
    })),
    async plan({ dir, bytes }) {
      const masterText = await text(master);
      const rendition = parseMaster(masterText, master).find((r) => r.uri.startsWith(`${dir}/`));
      if (!rendition) throw new Error(`the master has no rendition ${dir}`);
      const playlist = await text(rendition.playlist);
      const media = playlistFiles(playlist, rendition.playlist);
      return {
        kind: 'hls',
        publish: publishOf(info, dir ?? ''),
        height: rendition.height,
        totalBytes: bytes,
        storedBytes: 0,
        files: [...[rendition.playlist, ...media].map((url) => ({ url, key: url })), ...extras()],
        finish: {
          url: master,
          master: oneRenditionMaster(masterText, rendition),
          contentType: PLAYLIST_TYPE,
        },
        done: false,
        days: copyDays(),
      };
    },
    current: (record) => isCopyOf(info, record),
  };
}

async function mp4Offer(info: MediaInfo | null): Promise<Offer> {
  const url = new URL(mediaUrls(info).video, location.href).href;
  const response = await fetch(url, { method: 'HEAD', credentials: 'same-origin' });
  const size = Number(response.headers.get('content-length'));
  if (!response.ok || !size) throw new Error(`${url} answered ${response.status}`);
  const publish = `${url} ${response.headers.get('etag') ?? response.headers.get('last-modified') ?? size}`;
  return {
    kind: 'mp4',
    choices: [{ height: null, dir: null, bytes: size }],
    plan: async () => ({
      kind: 'mp4',
      publish,
      height: null,
      totalBytes: size,
      storedBytes: 0,
      // Each piece at a URL of its own (the server ignores the query), so that a test or a
      // proxy can tell them apart, and so that none is taken for the whole file.
      files: mp4Pieces(size)
        .map((range, i): DownloadRecord['files'][number] => {
          const piece = new URL(url);
          piece.searchParams.set('offline-piece', String(i));
          return { url: piece.href, key: piece.href, range };
        })
        .concat(extras()),
      finish: { url, contentType: 'video/mp4' },
      done: false,
      days: copyDays(),
    }),
    current: (record) => record.publish === publish,
  };
}

/** The offer for this page: its renditions where it has a ladder, else its MP4. */
export const askOffer = async (info: MediaInfo | null, durationS: number) =>
  info ? adaptiveOffer(info, durationS) : mp4Offer(info);
