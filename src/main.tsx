import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './App';
import { createAppAuthMachine } from './auth/AuthProvider';
import { resilientStorage } from './auth/storage';
import { settleFirstRoute } from './routes';
import { startVideoEarly } from './screens/VideoPlayer/earlyVideo';
import { preloadVideoPlayerScreen } from './screens/VideoPlayer/load';
import './styles.css';

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
  // index.html already shows the login form: adopt it, with whatever was typed into it.
  hydrateRoot(container, app);
} else {
  // The session is known now: fetch the video screen, and the video itself (the Player adopts
  // that element), while React starts.
  if (firstRoute === 'video') {
    preloadVideoPlayerScreen();
    startVideoEarly();
  }
  container.replaceChildren();
  createRoot(container).render(app);
}
