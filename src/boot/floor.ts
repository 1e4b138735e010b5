/**
 * The page's first script, built for ES2015 (scripts/build/prerender.ts) so that a browser below the
 * floor (docs/browsers.md) still runs it. Where the app cannot run, because the browser lacks
 * what the floor has or cannot parse the app at all, the page says so and names the browsers to
 * use, instead of a login whose button never wakes or a false network error.
 */
import { BELOW_FLOOR_ATTRIBUTE } from './boot-config';

const TOO_OLD_MESSAGE =
  'Este navegador es demasiado antiguo para esta capacitación. Ábrala con Chrome, Samsung ' +
  'Internet o Firefox actualizados, o con Safari en iOS 15 o posterior.';

/** A few of what Chrome 85, Safari 14 and Firefox 79 added: the app relies on the floor above them. */
function hasTheFloor(): boolean {
  return (
    typeof Promise.any === 'function' &&
    typeof WeakRef === 'function' &&
    typeof AbortController === 'function' &&
    typeof fetch === 'function' &&
    'noModule' in HTMLScriptElement.prototype
  );
}

function sayTooOld() {
  const root = document.getElementById('root');
  if (!root || document.documentElement.hasAttribute(BELOW_FLOOR_ATTRIBUTE)) return;
  document.documentElement.setAttribute(BELOW_FLOOR_ATTRIBUTE, '');
  // Shown even where index.html's head script hid a returning visitor's login.
  document.documentElement.classList.remove('returning');
  const main = document.createElement('main');
  main.className = 'login';
  const message = document.createElement('p');
  message.setAttribute('role', 'alert');
  message.className = 'login__message';
  message.textContent = TOO_OLD_MESSAGE;
  main.appendChild(message);
  root.innerHTML = '';
  root.appendChild(main);
}

if (!hasTheFloor()) sayTooOld();
// A script this browser cannot parse (the boot script, the app, a screen's chunk) means the same.
window.addEventListener('error', (event) => {
  if (event.error instanceof SyntaxError && !/JSON/.test(String(event.error.message))) sayTooOld();
});
