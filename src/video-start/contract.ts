/**
 * The types the start shares with the adaptive player (hls.js, its own chunk) and the Player
 * (React, which shows what hls.js plays). Types only: it costs the page no bytes. How the start
 * runs: docs/video-start.md.
 */

/** A rendition as hls.js lists it (its level index) and the quality menu shows it. */
export interface Rendition {
  index: number;
  height: number;
  /** Bits per second, average where the playlist says it. */
  bitrate: number;
}

/** hls.js's level for a fixed choice (-1: automatic) and its cap on automatic (-1: none). */
export interface Levels {
  level: number;
  cap: number;
}

/** What the quality menu shows. */
export interface AdaptiveState {
  /** hls.js's levels, once it has the master. */
  renditions: Rendition[] | null;
  /** The height of the rendition on screen, null before the first. */
  playingHeight: number | null;
  /** A request was refused with 401: the session ended elsewhere (the Player checks and acts). */
  refused: boolean;
}

export interface AdaptivePlayer {
  state(): AdaptiveState;
  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
  /** The visitor's choice, applied at once (a chosen rendition replaces what is buffered). */
  apply(levels: Levels): void;
  /**
   * The link is gone: play on from `level` after what is buffered (a stored rendition, which
   * the service worker answers), or, with -1, stop loading until `online`.
   */
  offline(level: number): void;
  /** The link is back: the visitor's choice again (after what is buffered), loading on. */
  online(levels: Levels): void;
  destroy(): void;
}

/** An answer fetched before hls.js was there, with when it was asked for and arrived. */
interface EarlyResponse {
  body: ArrayBuffer;
  /** performance.now() when asked, at the first byte (headers), and at the last. */
  askedAt: number;
  firstByteAt: number;
  endedAt: number;
}

/**
 * By absolute URL; null when the request failed (hls.js then asks again, its own way).
 * `started` settles when the answer begins to arrive.
 */
export type EarlyAnswer = Promise<EarlyResponse | null> & {
  /** Settles when the answer begins to arrive (its headers). */
  started: Promise<unknown>;
  /** performance.now() when asked. */
  askedAt: number;
  /**
   * The body's bytes as they arrive, from the first, each read taking all that came since the
   * last; it ends early if the request fails (the answer is then null). A Media Source shows a
   * fragment once it is whole, before the rest of the segment is there.
   */
  chunks: () => AsyncGenerator<Uint8Array<ArrayBuffer>>;
};
export type EarlyRequests = Map<string, EarlyAnswer>;

/** The first frame the start showed before hls.js came (first-frame.ts): hls.js adopts it. */
export interface MediaHandover {
  mediaSource: MediaSource;
  buffer: SourceBuffer;
  /** What the buffer was made for, as the rendition's playlist says it. */
  codecs: string;
  /** The whole segments in it, the first one included. */
  segments: number;
}

export interface AttachOptions {
  video: HTMLVideoElement;
  masterUrl: string;
  /** Plays the fall-back MP4 instead, when hls.js gives up. */
  fallBack: () => void;
  /** The requests the start made already, by URL. */
  early: EarlyRequests;
  /** The Media Source with the first frame in it, if the start made one. */
  handover: MediaHandover | null;
  /** The rendition folder those requests are for: hls.js starts there. */
  startDir: string;
  /** Where to start, in seconds. */
  position: number;
  /** The link's speed as last measured or hinted, bits per second. */
  estimateBps: number;
  /** The levels the visitor's stored choice asks for, once the renditions are known. */
  levelsFor: (list: Rendition[]) => Levels;
  /** hls.js's estimate of the link, kept for the next visit. */
  onEstimate: (bps: number) => void;
  /**
   * An encrypted publish's key as the start has it (the signin's, or asked beside the first
   * segment), for a key request's URL: null when it is not that publish's key, which hls.js then
   * asks of the network.
   */
  keyFor: ((url: string) => Promise<Uint8Array<ArrayBuffer> | null>) | null;
}

/** The adaptive player's chunk (a dynamic import: the boot's from its settings, or Vite's). */
export type LoadAdaptive = () => Promise<{
  attachAdaptive(options: AttachOptions): AdaptivePlayer | null;
}>;

/** What the browser says of the link (Chromium on Android and desktop; not Safari or Firefox). */
export interface LinkHint {
  /** Megabits per second. */
  downlink?: number;
}

declare global {
  interface Navigator {
    connection?: LinkHint;
  }
}
