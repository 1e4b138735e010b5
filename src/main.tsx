import { announceApp, type Handoff } from './boot/handoff';
import { startApp } from './start';
import './styles.css';
// Eager, so inlined into index.html with the rest: a returning visitor sees the video screen's
// prerendered markup before any chunk arrives (src/boot/boot.ts).
import './screens/video-player/video-player.css';
import './screens/video-player/panels.css';
import './offline/offline.css';

function runApp(handoff: Handoff) {
  const container = document.getElementById('root');
  if (!container) throw new Error('index.html has no #root element');
  startApp(container, { handoff });
}

// `npm run dev` has no boot script (the build adds it): the app makes the hand-off itself.
if (!announceApp(runApp) && import.meta.env.DEV)
  void import('./boot/own-handoff').then(({ ownHandoff }) => runApp(ownHandoff()));
