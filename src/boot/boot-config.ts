/** The boot script's settings, which the build writes beside it as JSON (scripts/prerender.ts). */
export interface BootConfig {
  /** The app's module entry. */
  entry: string;
  /** The video screen's chunk and what it imports, preloaded. */
  modules: string[];
  /** The video screen's document title. */
  title: string;
  /** How long the bundle waits, at most, for the video to know its metadata. */
  appWaitMs: number;
}

/** On a link so slow that the video's metadata takes longer, the app starts anyway. */
export const APP_WAIT_MS = 3_000;

/** The id of the JSON element that holds them. */
export const BOOT_CONFIG_ID = 'boot-config';

/** The id of the <template> that holds the video screen's prerendered markup. */
export const VIDEO_SCREEN_TEMPLATE_ID = 'video-screen';

declare global {
  interface HTMLVideoElement {
    /**
     * Set by the boot script on the prerendered video when its load failed before the app
     * arrived: the error event is gone by then. A property, not an attribute, so that React's
     * hydration sees the markup as it rendered it.
     */
    failedBeforeApp?: boolean;
  }
}
