/** The boot script's settings, which the build writes beside it as JSON (scripts/build/prerender.ts). */
export interface BootConfig {
  /** The app's module entry. */
  entry: string;
  /** The video screen's chunk and what it imports, preloaded. */
  modules: string[];
  /** The adaptive player's chunk (hls.js), then what it imports. */
  adaptive: string[];
  /** The video screen's document title. */
  title: string;
  /** How long the bundle waits, at most, for the video's start (boot.ts says for what). */
  appWaitMs: number;
}

/**
 * The video's first bytes come first: on a slow link the bundle would share it with them, for
 * seconds (docs/benchmarks.md). The video's own controls work meanwhile; after this long without
 * the video the app starts anyway.
 */
export const APP_WAIT_MS = 10_000;

/** Set on <html> by the floor check (src/boot/floor.ts): the boot script then starts nothing. */
export const BELOW_FLOOR_ATTRIBUTE = 'data-below-floor';

/** The id of the JSON element that holds them. */
export const BOOT_CONFIG_ID = 'boot-config';

/** The settings, from index.html's JSON element. */
export const readBootConfig = () =>
  JSON.parse(document.getElementById(BOOT_CONFIG_ID)?.textContent ?? '') as BootConfig;

/** The settings, from index.html's text (where there is no document: the worker, the bench). */
export function bootConfigIn(html: string): BootConfig | null {
  const json = new RegExp(`<script[^>]* id="${BOOT_CONFIG_ID}">([^<]*)</script>`).exec(html)?.[1];
  try {
    return json ? (JSON.parse(json) as BootConfig) : null;
  } catch {
    return null;
  }
}

/** The id of the <template> that holds the video screen's prerendered markup. */
export const VIDEO_SCREEN_TEMPLATE_ID = 'video-screen';
