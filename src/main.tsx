import { startApp } from './start';
import './styles.css';
// Eager, so inlined into index.html with the rest: a returning visitor sees the video screen's
// prerendered markup before any chunk arrives (src/boot/boot.ts).
import './screens/video-player/video-player.css';
import './screens/video-player/panels.css';
import './offline/offline.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
startApp(container);
