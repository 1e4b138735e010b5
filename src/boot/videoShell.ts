/**
 * What index.html runs before anything else (scripts/video-shell.ts writes `bootPage` into it as
 * a small inline script right after #root, allowed by its hash in the CSP; its settings sit
 * beside it as JSON). It starts the app's bundle, with one exception.
 *
 * A returning visitor's first view is the video, yet on a slow link the bundle takes seconds,
 * and until it runs index.html shows the login markup. So with a stored session that looks
 * live, `bootPage` puts the video screen's first render before #root (which styles.css then
 * hides), with the real <video> already loading, and starts the screen's chunk; the bundle
 * waits for the video's metadata, because on a slow link it would share the bandwidth and the
 * main thread with the video's first bytes. React then renders the screen and the Player adopts
 * that very element (`takeShellVideo`); a second element would ask the server again. The stored
 * session is only a hint here: the machine decides (a screen other than the video drops the
 * shell), and the server answers the video only to a live session cookie.
 *
 * `createPlayerVideo` and `bootPage` are copied into the page as source text: they must use
 * nothing from outside their own bodies.
 */

export interface PlayerSources {
  videoUrl: string;
  posterUrl: string;
  captionsUrl: string;
}

export interface BootConfig extends PlayerSources {
  /** The app's module entry; null in development, where Vite's own tag loads it. */
  entry: string | null;
  /** How long the bundle waits, at most, for the shell's video to know its metadata. */
  appWaitMs: number;
  sessionKey: string;
  maxAgeS: number;
  title: string;
  logoUrl: string;
  bannerUrl: string;
  /** The video screen's chunk and what it imports, preloaded. */
  modules: string[];
}

const SHELL_ID = 'video-shell';

/** The id of the JSON element holding the boot's settings. */
export const BOOT_CONFIG_ID = 'boot-config';

/** The video screen's document title, the shell's and the screen's. */
export const VIDEO_TITLE = 'Video';

/** The player's `<video>`, with its source and captions: the same markup whoever makes it. */
export function createPlayerVideo(sources: PlayerSources): HTMLVideoElement {
  const video = document.createElement('video');
  video.className = 'player__video';
  video.controls = true;
  // The attribute itself: not every engine reflects the playsInline property.
  video.setAttribute('playsinline', '');
  video.preload = 'metadata';
  video.poster = sources.posterUrl;
  video.setAttribute('aria-label', 'Video de la capacitación');
  // With <source>, a failed load is reported on the source, not on the video.
  const source = document.createElement('source');
  source.src = sources.videoUrl;
  source.type = 'video/mp4';
  const track = document.createElement('track');
  track.kind = 'captions';
  track.src = sources.captionsUrl;
  track.srclang = 'es';
  track.label = 'Español';
  track.default = true;
  video.append(source, track);
  return video;
}

/**
 * Starts the app, and before that shows the video screen when local storage holds a session
 * that looks live (the machine's own check, machines/session.ts, is stricter and decides
 * later). The markup is VideoPlayerScreen's first render (tests/app/videoShell.test.tsx keeps
 * them identical); the greeting goes in as text, never as markup.
 */
export function bootPage(
  config: BootConfig,
  makeVideo: (sources: PlayerSources) => HTMLVideoElement,
): void {
  let appStarted = false;
  const startApp = () => {
    if (appStarted || !config.entry) return;
    appStarted = true;
    const script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = config.entry;
    document.head.append(script);
  };
  let session: { loggedIn?: unknown; timestamp?: unknown; nombres?: unknown; empresa?: unknown };
  try {
    session = JSON.parse(localStorage.getItem(config.sessionKey) ?? 'null') ?? {};
  } catch {
    return startApp();
  }
  const ageS = Date.now() / 1000 - Number(session.timestamp);
  if (session.loggedIn !== true || !(ageS >= 0 && ageS < config.maxAgeS)) return startApp();

  // First, so that the video's requests leave as early as they can.
  const video = makeVideo(config);
  // Remembered for the Player, which reports a load that failed before it arrived.
  const failed = () => {
    video.setAttribute('data-failed', '');
    startApp();
  };
  video.addEventListener('error', failed);
  video.querySelector('source')?.addEventListener('error', failed);
  video.addEventListener('loadedmetadata', startApp);
  setTimeout(startApp, config.appWaitMs);
  const element = (tag: string, props: Record<string, string> = {}, ...children: Node[]) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(props)) node.setAttribute(name, value);
    node.append(...children);
    return node;
  };
  const background = element('div', {
    class: 'video-screen__background',
    'data-testid': 'background',
    'aria-hidden': 'true',
  });
  // Through the CSSOM: the CSP allows no inline style attribute.
  background.style.width = `${window.innerWidth}px`;
  background.style.height = `${window.innerHeight}px`;
  const greeting = `Hola ${String(session.nombres ?? '')} / ${String(session.empresa ?? '')}`;

  const screen = element(
    'div',
    { class: 'video-screen' },
    background,
    element(
      'header',
      { class: 'topbar' },
      element('img', {
        class: 'topbar__logo',
        src: config.logoUrl,
        alt: 'Logo de la empresa',
        width: '240',
        height: '64',
      }),
      // Disabled until React gives it its handlers, as the login's button is.
      element(
        'button',
        { class: 'session-button', type: 'button', disabled: '' },
        new Text(greeting),
      ),
    ),
    element(
      'main',
      { class: 'video-main' },
      element(
        'h1',
        { class: 'visually-hidden' },
        new Text('Capacitación: manejo de silo bolsa, edición 2023'),
      ),
      element('img', {
        class: 'banner',
        src: config.bannerUrl,
        alt: 'Capacitación: manejo de silo bolsa — edición 2023',
        width: '1200',
        height: '200',
      }),
      element(
        'div',
        { class: 'player' },
        element('div', { class: 'player__slot' }, video),
        element(
          'p',
          { class: 'player__help' },
          new Text(
            'Atajos de teclado: espacio o K reproduce y pausa; J y L, o las flechas, retroceden y avanzan 10 segundos; M silencia; F pantalla completa; C subtítulos.',
          ),
        ),
      ),
      // Chapters.tsx and Transcript.tsx while their tracks load.
      ...[
        ['chapters', 'Capítulos', 'panel__box', 'chapters'],
        ['transcript', 'Transcripción', 'panel__box panel__box--transcript', 'transcript'],
      ].map(([name = '', title = '', boxClass = '', listClass = '']) => {
        const search =
          name === 'transcript'
            ? [
                element(
                  'div',
                  { class: 'transcript__search' },
                  element(
                    'label',
                    { for: 'transcript-search' },
                    new Text('Buscar en la transcripción'),
                  ),
                  element('input', {
                    id: 'transcript-search',
                    class: 'transcript__input',
                    type: 'search',
                    disabled: '',
                    autocomplete: 'off',
                    enterkeyhint: 'search',
                    value: '',
                  }),
                  element('p', { class: 'transcript__count', role: 'status' }),
                ),
              ]
            : [];
        return element(
          'section',
          { class: `panel panel--${name}`, 'aria-labelledby': `${name}-title` },
          element(
            'details',
            { class: 'panel__details', open: '' },
            element(
              'summary',
              { class: 'panel__summary' },
              element('h2', { id: `${name}-title`, class: 'panel__title' }, new Text(title)),
            ),
            ...search,
            element(
              'div',
              { class: boxClass },
              element('p', { class: 'panel__note' }, new Text('Cargando...')),
              element('ol', { class: listClass }),
            ),
          ),
        );
      }),
    ),
  );
  for (const href of config.modules)
    document.head.append(element('link', { rel: 'modulepreload', href, crossorigin: '' }));
  // Before #root, which styles.css hides while the shell is there: React renders into it
  // unseen until the Player takes the video out of the shell and removes it.
  document.getElementById('root')?.before(element('div', { id: 'video-shell' }, screen));
  document.title = config.title;
}

/** The shell's video, paused and out of the page, kept for the Player that a retry brings. */
let setAside: HTMLVideoElement | undefined;

/**
 * The shell's video for the Player (once): whether its load already failed, and whether it had
 * the focus (moving an element loses it).
 */
export function takeShellVideo():
  { video: HTMLVideoElement; failed: boolean; focused: boolean } | undefined {
  const shell = document.getElementById(SHELL_ID);
  const video = shell?.querySelector('video') ?? setAside;
  setAside = undefined;
  const focused = video !== undefined && document.activeElement === video;
  shell?.remove();
  if (!video) return undefined;
  const failed = video.hasAttribute('data-failed');
  video.removeAttribute('data-failed');
  return { video, failed, focused };
}

/**
 * For the chunk's error message, which the shell would hide: the shell goes, and its video waits,
 * paused where the visitor was, for the Player that "Reintentar" brings.
 */
export function setShellAside(): void {
  const shell = document.getElementById(SHELL_ID);
  if (!shell) return;
  const video = shell.querySelector('video');
  if (video) {
    video.pause();
    setAside = video;
  }
  shell.remove();
}

/**
 * For any screen but the video's: the shell goes, and its video stops downloading (without its
 * source, `load()` aborts the request).
 */
export function dropVideoShell(): void {
  const shell = document.getElementById(SHELL_ID);
  const video = shell?.querySelector('video') ?? setAside;
  setAside = undefined;
  if (video) {
    video.querySelector('source')?.remove();
    video.load();
  }
  shell?.remove();
}
