import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './App';
import { createAppAuthMachine } from './auth/AuthProvider';
import { resilientStorage } from './auth/storage';
import { settleFirstRoute } from './routes';
import { preloadVideoPlayerScreen } from './screens/VideoPlayer/load';
import './styles.css';
// Eager, so inlined into index.html with the rest: the video shell (src/boot/videoShell.ts)
// shows the video screen's markup before any chunk arrives.
import './screens/VideoPlayer/VideoPlayer.css';
import './screens/VideoPlayer/Panels.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

const machine = createAppAuthMachine(resilientStorage());
const firstRoute = settleFirstRoute(machine);
const app = (
  <StrictMode>
    <App machine={machine} />
  </StrictMode>
);

if (firstRoute === 'login' && container.firstElementChild) {
  // index.html already shows the login form: adopt it, with whatever was typed into it. As a
  // transition, hydration yields to the browser every few ms instead of holding a slow phone's
  // main thread for one long task.
  startTransition(() => {
    hydrateRoot(container, app);
  });
} else {
  // The session is known now: fetch the video screen while React starts (index.html's shell
  // has already asked for it and for the video, when it saw the session too).
  if (firstRoute === 'video') preloadVideoPlayerScreen();
  container.replaceChildren();
  createRoot(container).render(app);
}
