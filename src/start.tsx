import type { QueryClient } from '@tanstack/react-query';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { App } from './app';
import type { Handoff } from './boot/handoff';
import { createAppAuthMachine, settleEarlySignin } from './auth/auth-provider';
import { resilientStorage } from './auth/storage';
import { createAppChunks, preload, type AppChunks } from './chunks';
import { settleFirstRoute } from './routes';

/** Which prerendered screen the container shows (the boot script may have swapped it). */
function shownScreen(container: HTMLElement): 'login' | 'video' | null {
  if (container.querySelector('.video-screen')) return 'video';
  return container.querySelector('.login') ? 'login' : null;
}

/**
 * Starts the app in `container` (main.tsx: index.html's #root) with the boot's hand-off:
 * hydrates the prerendered screen on show when it is the one the machine lands on, renders
 * afresh otherwise. Tests pass their own QueryClient and chunk loaders.
 */
export function startApp(
  container: HTMLElement,
  options: { handoff: Handoff; queryClient?: QueryClient; chunks?: AppChunks },
): Root {
  const { handoff } = options;
  const storage = resilientStorage();
  // The boot script showed the video screen at the success of a press it answered: the machine
  // takes that signin first, so that the app lands where the page already is.
  if (shownScreen(container) === 'video') settleEarlySignin(storage, handoff.takeEarlySignin());
  const machine = createAppAuthMachine(storage);
  const chunks = options.chunks ?? createAppChunks();
  const firstRoute = settleFirstRoute(machine);
  // The session is known now: fetch the video screen while React starts (the boot script has
  // already asked for it, and for the video, when it saw the session too).
  if (firstRoute === 'video') preload(chunks.videoPlayer);
  const app = (
    <StrictMode>
      <App machine={machine} handoff={handoff} chunks={chunks} queryClient={options.queryClient} />
    </StrictMode>
  );

  if (shownScreen(container) === firstRoute) {
    // Adopt the markup on screen, with whatever was typed or played in it. As a transition,
    // hydration yields to the browser every few ms instead of holding a slow phone's main
    // thread for one long task. The video screen's part waits for its chunk, on screen and live.
    let root: Root | undefined;
    startTransition(() => {
      root = hydrateRoot(container, app);
    });
    return root!;
  }
  // Not what the machine decided (a stored session it refused): the video, if any, stops.
  container.querySelectorAll('video').forEach((video) => handoff.video.stop(video));
  container.replaceChildren();
  const root = createRoot(container);
  root.render(app);
  return root;
}
