/**
 * What the start fetches: the rendition, the position and the files the first frame needs, from
 * the page's media info and what this device stored. Made once per start (video-start.ts), used
 * by its requests before the signin and by the <video> after it.
 */
import {
  KEY_FILE,
  RUNG_FILES,
  SEGMENT_S,
  segmentAt,
  segmentName,
  type MediaInfo,
} from '../../config/media-layout';
import type { SessionStorage } from '../../machines/session';
import { publishOf, type DownloadRecord } from '../offline/download-store';
import { mediaUrls } from '../screens/video-player/media-support';
import { readChoice, readEstimate, startRung } from '../screens/video-player/quality';
import { readPosition } from '../screens/video-player/resume-position';
import { canShowFirstFrame } from './first-frame';
import { canDecrypt } from './segment-crypto';
import { publishIdOf } from './video-key';

export type StartPlan = ReturnType<typeof planStart>;

/**
 * `copy`: the phone's stored download, read when the phone says it has no signal: the start then
 * asks for the copy's rendition, which the service worker answers, instead of the estimate's,
 * which would first fail on the dead link.
 */
export function planStart(
  info: MediaInfo,
  storage: SessionStorage,
  copy: DownloadRecord | null = null,
) {
  const urls = mediaUrls(info);
  const position = readPosition(storage, urls.position);
  const choice = readChoice(storage);
  // eslint-disable-next-line compat/compat -- undefined in Safari and Firefox: readEstimate falls back.
  const estimateBps = readEstimate(storage, navigator.connection);
  const rung = copyRung(info, copy) ?? startRung(info.rungs, choice, estimateBps);
  const from = position ?? 0;
  const index = segmentAt(from, info.firstSegmentS);
  const inRung = (file: string) => urls.inRung(rung.dir, file);
  const segment = (step: number) => inRung(segmentName(index + step));
  return {
    urls,
    position,
    choice,
    estimateBps,
    rung,
    /** Where the video starts, in seconds. */
    from,
    /** The first segment's media sequence number (an encrypted segment's IV). */
    index,
    /** The publish the start rendition belongs to: a stored key opens it if it is this one's. */
    publish: publishIdOf(rung.dir),
    init: inRung(RUNG_FILES.init),
    first: segment(0),
    /** The segment `step` after the first. */
    segment,
    /** An encrypted publish's key, asked only when none is stored for this publish. */
    keyUrl: info.encrypted ? inRung(KEY_FILE) : null,
    /** hls.js's playlists: asked for once the first frame is on its way, when the start shows it. */
    playlists: [urls.master, inRung(RUNG_FILES.playlist)],
    /** Whether the start shows the first frame itself, before hls.js (first-frame.ts). */
    ownFrame: canShowFirstFrame(rung.codecs) && (!info.encrypted || canDecrypt()),
    /** The first segment's transfer time on the link as estimated, in ms. */
    firstMs: (1000 * rung.peakBandwidth * (info.firstSegmentS ?? SEGMENT_S)) / estimateBps,
  };
}

/** The rendition a finished copy holds, if it is one of this publish's. */
function copyRung(info: MediaInfo, copy: DownloadRecord | null) {
  if (!copy?.done || copy.kind !== 'hls') return undefined;
  return info.rungs.find((rung) => publishOf(info, rung.dir) === copy.publish);
}

/**
 * The start's first requests, with `keyed` when the key is at hand: only what the first frame
 * needs, since anything else asked now would share the link with it; without a frame of its own,
 * hls.js's playlists beside them.
 */
export function firstRequests(plan: StartPlan, keyed: boolean): string[] {
  const needed =
    plan.keyUrl && !keyed ? [plan.keyUrl, plan.init, plan.first] : [plan.init, plan.first];
  return plan.ownFrame ? needed : [...plan.playlists, ...needed];
}

/**
 * What may leave before the <video> exists: while the visitor types, an encrypted publish's init
 * and first segment (public, and the key comes in the signin's answer); once the signin
 * succeeded, the rest of the first requests, the key aside (it is in that answer). A clear
 * publish's files need the session: nothing before it.
 */
export function requestsAhead(plan: StartPlan, signedIn: boolean): string[] {
  if (signedIn) return firstRequests(plan, true);
  return plan.keyUrl ? [plan.init, plan.first] : [];
}
