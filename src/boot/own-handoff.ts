/**
 * The hand-off where no boot script ran (`npm run dev`, whose index.html is Vite's own; the
 * app's tests): nothing answered early, and a start of the app's own.
 */
import { resilientStorage } from '../auth/storage';
import { readMediaInfo } from '../screens/video-player/media-support';
import { createVideoStart } from '../video-start/video-start';
import type { Handoff } from './handoff';

export const ownHandoff = (): Handoff => ({
  takeEarlySignin: () => undefined,
  video: createVideoStart({
    info: readMediaInfo(),
    storage: resilientStorage(),
    loadAdaptive: () => import('../video-start/adaptive-player'),
  }),
});
