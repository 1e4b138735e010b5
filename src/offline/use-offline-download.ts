/**
 * The download's state on the video screen and what the visitor can do with it. A download
 * left unfinished (a closed page, a reload) goes on by itself when the screen opens again; one of
 * an older publish is deleted and the new one offered.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { AuthActor } from '../auth/auth-provider';
import { resilientStorage } from '../auth/storage';
import { usePageReports } from '../field-report/page-reports';
import { readMediaInfo } from '../screens/video-player/media-support';
import { readChoice } from '../screens/video-player/quality';
import { defaultRendition } from './download-plan';
import { askOffer, type Choice, type Offer } from './download-offer';
import { readRecord, type DownloadRecord } from './download-store';
import { runDownload } from './downloader';
import { copyStatus, forgetCopy, takeEndedMessage, writeNote } from './offline-copy';
import type { VideoRef } from '../screens/video-player/use-player-video';

export type DownloadState =
  | { status: 'unknown' }
  /** Nothing stored and nothing to offer (no network, no Cache Storage, a failed question). */
  | { status: 'none' }
  | { status: 'offer'; offer: Offer; choice: Choice }
  | { status: 'running'; record: DownloadRecord; waiting: boolean }
  | { status: 'noRoom'; needBytes: number; record: DownloadRecord | null }
  | { status: 'failed'; record: DownloadRecord | null }
  /** `outdated`: the company published a newer video; the copy plays until its period ends. */
  | { status: 'done'; record: DownloadRecord; outdated: boolean };

/** Room to spare beyond the download: the estimate is not the disk's free space. */
const ROOM_MARGIN = 1.1;

async function hasRoom(bytes: number): Promise<boolean> {
  // eslint-disable-next-line compat/compat -- feature-detected: without it, the put's own error tells.
  const estimate = await navigator.storage?.estimate?.().catch(() => undefined);
  if (!estimate?.quota) return true;
  return estimate.quota - (estimate.usage ?? 0) >= bytes * ROOM_MARGIN;
}

export function useOfflineDownload(wanted: boolean, videoRef: VideoRef) {
  const actorRef = AuthActor.useActorRef();
  const reports = usePageReports();
  const [state, setState] = useState<DownloadState>({ status: 'unknown' });
  const [offer, setOffer] = useState<Offer | null>(null);
  /** A copy that went since the last visit (its period ended, or the browser evicted it). */
  const [ended, setEnded] = useState<string | null>(null);
  const run = useRef<AbortController | null>(null);

  const start = useCallback(
    async (record: DownloadRecord) => {
      run.current?.abort();
      const controller = new AbortController();
      run.current = controller;
      setState({ status: 'running', record, waiting: false });
      if (record.storedBytes === 0) reports?.download('started', record, videoRef.current);
      if (!(await hasRoom(record.totalBytes - record.storedBytes))) {
        setState({ status: 'noRoom', needBytes: record.totalBytes, record });
        reports?.download('noRoom', record, videoRef.current);
        return;
      }
      // eslint-disable-next-line compat/compat -- feature-detected: without it, best effort.
      void navigator.storage?.persist?.().catch(() => false);
      let latest = record;
      const end = await runDownload(record, controller.signal, {
        progress: (next) => {
          latest = next;
          if (!controller.signal.aborted)
            setState({ status: 'running', record: next, waiting: false });
        },
        waiting: (offline) => {
          if (!controller.signal.aborted)
            setState({ status: 'running', record: latest, waiting: offline });
        },
      }).catch(() => 'failed' as const);
      if (controller.signal.aborted) return;
      if (end === 'refused') actorRef.send({ type: 'session.refused' });
      else if (end === 'done') {
        if (typeof latest.until === 'number')
          writeNote(resilientStorage(), { until: latest.until });
        setState({ status: 'done', record: latest, outdated: false });
        reports?.download('finished', latest, videoRef.current);
      } else if (end === 'noRoom') {
        setState({ status: 'noRoom', needBytes: record.totalBytes, record: latest });
        reports?.download('noRoom', record, videoRef.current);
      } else setState({ status: 'failed', record: latest });
    },
    [actorRef, videoRef, reports],
  );

  // What is stored, and what the server offers; after the first frame, not to share its link.
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    void (async () => {
      const record = await readRecord();
      // The sizes come from the video's length (the page's, when hls.js is opening its own Media
      // Source): nothing is asked for them on an adaptive site.
      const info = readMediaInfo();
      const element = videoRef.current?.duration ?? NaN;
      const durationS = Number.isFinite(element) ? element : (info?.durationS ?? NaN);
      // No Cache Storage (plain HTTP on a LAN is no secure context; some private windows):
      // nothing can be stored, so nothing is offered.
      const fresh =
        navigator.onLine && Number.isFinite(durationS) && typeof caches !== 'undefined'
          ? await askOffer(info, durationS).catch(() => null)
          : null;
      if (!live) return;
      setEnded((shown) => shown ?? takeEndedMessage(resilientStorage()));
      setOffer(fresh);
      const outdated = !!record && !!fresh && !fresh.current(record);
      // A finished copy of an older publish plays on until its period ends; anything else of
      // it goes, and the new publish is offered.
      if (outdated && copyStatus(record, Date.now()) !== 'live')
        await forgetCopy(resilientStorage());
      else if (record?.done) return setState({ status: 'done', record, outdated });
      else if (record) return void start(record);
      const choice = fresh && offered(fresh);
      setState(fresh && choice ? { status: 'offer', offer: fresh, choice } : { status: 'none' });
    })();
    return () => {
      live = false;
    };
  }, [wanted, start, videoRef]);

  // Leaving the screen (a logout among others) stops the download in flight.
  useEffect(() => () => run.current?.abort(), []);

  const toOffer = () => {
    const choice = offer && offered(offer);
    setState(offer && choice ? { status: 'offer', offer, choice } : { status: 'none' });
  };

  return {
    state,
    ended,
    choose: (choice: Choice) => offer && setState({ status: 'offer', offer, choice }),
    download: async (choice: Choice) => {
      if (!offer) return;
      const record = await offer.plan(choice).catch(() => null);
      if (record) await start(record);
      else setState({ status: 'failed', record: null });
    },
    resume: (record: DownloadRecord) => void start(record),
    /** Cancel and "Borrar descarga" alike: nothing of it stays on the device. */
    remove: async () => {
      if (state.status === 'running')
        reports?.download('cancelled', state.record, videoRef.current);
      run.current?.abort();
      await forgetCopy(resilientStorage());
      toOffer();
    },
  };
}

/** The choice offered first: the data saver's when it is on, else a phone-sized rendition. */
function offered(offer: Offer): Choice | undefined {
  if (offer.kind === 'mp4') return offer.choices[0];
  const { dataSaver } = readChoice(resilientStorage());
  const renditions = offer.choices.flatMap(({ height }) => (height ? [{ height }] : []));
  const best = defaultRendition(renditions, dataSaver);
  return offer.choices.find((c) => c.height === best?.height);
}
