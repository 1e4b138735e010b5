/**
 * The adaptive video: hls.js (the light build) on the player's <video>, in its own chunk so that
 * its bytes (docs/benchmarks.md) are never part of the login's. video-start.ts loads it and
 * hands it the requests it already made; this file tunes hls.js for slow links and cheap phones,
 * applies the levels asked for and reports what plays. It imports only the contract
 * (contract.ts): the boot script loads it before the app's bundle, which it must not pull
 * in.
 */
import Hls, {
  Events,
  type FragmentLoaderContext,
  type HlsConfig,
  type Loader,
  type LoaderCallbacks,
  type LoaderConfiguration,
  type LoaderContext,
} from 'hls.js/light';
import type {
  AdaptivePlayer,
  AdaptiveState,
  AttachOptions,
  EarlyRequests,
  Rendition,
} from './contract';

/**
 * Until the visitor presses play, only what the start asked for (the first two segments, 8 s):
 * it is their data. Then 30 s ahead at most (hls.js would keep up to 10 minutes of a small
 * rendition) and 30 s behind. hls.js reads both limits as it goes; the second one caps what it
 * would derive from maxBufferSize.
 */
const BEFORE_PLAY_BUFFER_S = 1;
const BUFFER_S = 30;

/**
 * Automatic quality stays on the start rendition for this many segments (the start's own
 * included): the first is short (2 s, for the first frame), too small a sample of the link to
 * move up on, and too little buffer to come back down in time if the move was wrong.
 */
const HELD_SEGMENTS = 2;

/**
 * hls.js tuned for one on-demand video on slow links and cheap phones. Its defaults would keep
 * up to 10 minutes ahead and everything behind (memory, and data the visitor pays for), run the
 * low-latency live logic, and download a throw-away segment to test the link.
 */
function hlsConfig(
  early: EarlyRequests,
  estimateBps: number,
  keyFor: AttachOptions['keyFor'],
): Partial<HlsConfig> {
  return {
    loader: withEarlyAnswers(Hls.DefaultConfig.loader, early, keyFor),
    // The start position is given to startLoad once the start level is set.
    autoStartLoad: false,
    lowLatencyMode: false,
    maxBufferLength: BEFORE_PLAY_BUFFER_S,
    maxMaxBufferLength: BEFORE_PLAY_BUFFER_S,
    maxBufferSize: 20 * 1000 * 1000,
    backBufferLength: BUFFER_S,
    testBandwidth: false,
    abrEwmaDefaultEstimate: estimateBps,
    startFragPrefetch: true,
    enableWorker: false,
  };
}

type LoaderClass = new (config: HlsConfig) => Loader<LoaderContext>;

/**
 * hls.js's own loader, but answering first from the requests made before hls.js was there
 * (each once: a retry or a later seek asks the server). An early request that failed is made
 * again by the loader, so hls.js's retries and its 401 handling apply as usual.
 */
function withEarlyAnswers(
  Base: LoaderClass,
  early: EarlyRequests,
  keyFor: AttachOptions['keyFor'],
): LoaderClass {
  /** The key the start has, as an early answer, for a request of its publish's key. */
  const keyAnswer = (url: string) =>
    keyFor?.(url).then((bytes) => {
      if (!bytes) return null;
      const now = performance.now();
      return { body: bytes.slice().buffer, askedAt: now, firstByteAt: now, endedAt: now };
    });
  return class EarlyLoader implements Loader<LoaderContext> {
    private readonly base: Loader<LoaderContext>;
    private waiting: LoaderCallbacks<LoaderContext> | null = null;
    context: LoaderContext | null = null;

    constructor(config: HlsConfig) {
      this.base = new Base(config);
    }

    get stats() {
      return this.base.stats;
    }

    load(
      context: LoaderContext,
      config: LoaderConfiguration,
      loaderCallbacks: LoaderCallbacks<LoaderContext>,
    ) {
      // hls.js aborts an init segment's load only when a newer one replaces it, or when it stops;
      // that abort's error then aborted the newer fragment's load, at every retry: after a seek
      // during a level switch, no frame ever came. Nothing waits for it: it is not reported.
      const isInit = (context as FragmentLoaderContext).frag?.sn === 'initSegment';
      const callbacks = isInit ? { ...loaderCallbacks, onAbort: undefined } : loaderCallbacks;
      const answer =
        context.type === 'key'
          ? keyAnswer(context.url)
          : context.rangeEnd
            ? undefined
            : early.get(context.url);
      if (!answer) return this.base.load(context, config, callbacks);
      if (context.type !== 'key') early.delete(context.url);
      this.context = context;
      this.waiting = callbacks;
      void answer.then((response) => {
        if (this.waiting !== callbacks) return;
        this.waiting = null;
        if (!response) return this.base.load(context, config, callbacks);
        // Timed as the link brought it, but ending now: hls.js estimates the link from the
        // transfer, and the time the answer then waited for hls.js's own chunk is not the link's.
        const { stats } = this;
        const now = performance.now();
        stats.loading.start = now - (response.endedAt - response.askedAt);
        stats.loading.first = stats.loading.start + (response.firstByteAt - response.askedAt);
        stats.loading.end = now;
        stats.loaded = stats.total = response.body.byteLength;
        const data =
          context.responseType === 'arraybuffer'
            ? response.body
            : new TextDecoder().decode(response.body);
        callbacks.onSuccess({ url: context.url, data, code: 200 }, stats, context, null);
      });
    }

    abort() {
      const callbacks = this.waiting;
      if (!callbacks) return this.base.abort();
      this.waiting = null;
      this.stats.aborted = true;
      if (this.context) callbacks.onAbort?.(this.stats, this.context, null);
    }

    destroy() {
      this.waiting = null;
      this.base.destroy();
    }
  };
}

const renditions = (hls: Hls): Rendition[] =>
  hls.levels.map((level, index) => ({
    index,
    height: Math.min(level.height, level.width) || level.height,
    bitrate: level.averageBitrate || level.bitrate,
  }));

/** hls.js on `video`, or null where it cannot play (no usable Media Source). */
export function attachAdaptive(options: AttachOptions): AdaptivePlayer | null {
  const { video, early, startDir } = options;
  if (!Hls.isSupported()) return null;
  const hls = new Hls(hlsConfig(early, options.estimateBps, options.keyFor));
  let state: AdaptiveState = { renditions: null, playingHeight: null, refused: false };
  const listeners = new Set<() => void>();
  const set = (next: Partial<AdaptiveState>) => {
    state = { ...state, ...next };
    listeners.forEach((listener) => listener());
  };
  let destroyed = false;
  let failed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    options.onEstimate(hls.bandwidthEstimate);
    hls.destroy();
    video.removeEventListener('play', bufferAhead);
  };
  const bufferAhead = () => {
    hls.config.maxBufferLength = BUFFER_S;
    hls.config.maxMaxBufferLength = BUFFER_S;
  };
  if (!video.paused) bufferAhead();
  video.addEventListener('play', bufferAhead);

  // While segments are held, automatic quality may go down but not up: hls.js reads its up-switch
  // factor at each choice, so 0 holds it without touching its levels or the visitor's cap.
  let held = 0;
  const release = () => {
    held = 0;
    hls.config.abrBandWidthUpFactor = Hls.DefaultConfig.abrBandWidthUpFactor;
  };
  hls.on(Events.MANIFEST_PARSED, () => {
    const list = renditions(hls);
    const { level, cap } = options.levelsFor(list);
    hls.autoLevelCapping = cap;
    // The rendition the early requests are for, unless the visitor fixed one.
    const started = hls.levels.findIndex((l) => l.url.some((url) => url.includes(`/${startDir}/`)));
    hls.startLevel = level !== -1 ? level : Math.max(started, 0);
    if (level !== -1) hls.loadLevel = level;
    else {
      // Those the start appended count: their seconds are in the buffer.
      held = Math.max(0, HELD_SEGMENTS - (options.handover?.segments ?? 0));
      if (held) hls.config.abrBandWidthUpFactor = 0;
    }
    hls.startLoad(options.position > 0 ? options.position : -1);
    // What the start appended is of its rendition; hls.js reports only what it appended itself
    // (LEVEL_SWITCHED), which a flush of its own may have dropped while the start's plays on.
    const startHeight = options.handover ? list[started]?.height : undefined;
    set({ renditions: list, ...(startHeight ? { playingHeight: startHeight } : {}) });
  });
  hls.on(Events.FRAG_BUFFERED, (_event, { frag }) => {
    if (held && frag.type === 'main' && --held === 0) release();
  });
  hls.on(Events.LEVEL_SWITCHED, (_event, { level }) => {
    set({ playingHeight: renditions(hls)[level]?.height ?? null });
    options.onEstimate(hls.bandwidthEstimate);
  });
  hls.on(Events.ERROR, (_event, data) => {
    // A 401 is the session ended elsewhere, a 404 the publish removed (npm run rekey): hls.js
    // would try every rendition first, the picture frozen meanwhile. Anything fatal: back to
    // the MP4, whose own failure the Player reports (and says which).
    const refused = data.response?.code === 401;
    const gone = data.response?.code === 404;
    if ((!data.fatal && !refused && !gone) || failed) return;
    failed = true;
    // Not inside hls.js's own callback: destroying it there can throw half-way.
    setTimeout(() => {
      destroy();
      options.fallBack();
      set({ renditions: null, playingHeight: null, refused });
    }, 0);
  });
  const { handover } = options;
  if (!handover) hls.attachMedia(video);
  else {
    // The start's Media Source, with the first frame in it: one muxed buffer hls.js takes over
    // by name, or one of video alone.
    const { mediaSource, buffer, codecs } = handover;
    const name = codecs.includes(',') ? 'audiovideo' : 'video';
    const track = {
      id: 'main' as const,
      container: 'video/mp4',
      codec: codecs,
      levelCodec: codecs,
    };
    hls.attachMedia({
      media: video,
      mediaSource,
      tracks: { [name]: { ...track, buffer, listeners: [] } },
    });
  }
  hls.loadSource(options.masterUrl);

  return {
    state: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    apply({ level, cap }) {
      if (destroyed) return;
      release();
      hls.autoLevelCapping = cap;
      // A chosen rendition replaces what is buffered at once; back to automatic, hls.js moves
      // at the next segment.
      if (level === -1) hls.nextLevel = -1;
      else hls.currentLevel = level;
    },
    offline(level) {
      if (destroyed) return;
      // Left alone, hls.js retries the lost link in a loop (hls.js#7410; its maintainers advise
      // stopLoad/startLoad). Loading again from the stored rendition keeps what is buffered.
      hls.stopLoad();
      if (level === -1) return;
      hls.autoLevelCapping = -1;
      hls.loadLevel = level;
      hls.startLoad(-1);
    },
    online({ level, cap }) {
      if (destroyed) return;
      hls.autoLevelCapping = cap;
      hls.loadLevel = level;
      if (!hls.loadingEnabled) hls.startLoad(-1);
    },
    destroy,
  };
}
