/**
 * Chromium, Firefox ESR and WebKitGTK from Debian's packages, behind one small page interface,
 * so that one test runs in every engine a visitor has (Playwright drives only its own builds of
 * Firefox and WebKit).
 *
 * - Chromium: puppeteer-core over the DevTools protocol.
 * - Firefox: puppeteer-core over WebDriver BiDi, which Firefox speaks itself (there is no
 *   geckodriver in Debian, and selenium or WebdriverIO would need one).
 * - WebKit: WebDriver classic, which is all WebKitWebDriver speaks, through a few plain HTTP
 *   calls (Node's fetch): MiniBrowser in automation mode on an Xvfb display the harness starts.
 *
 * Pages open at 390×844 (a phone's CSS viewport); navigation returns at DOMContentLoaded, so
 * that a test can act while the app's bundle is held back (hold-proxy.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { Browser as Puppeteer, BrowserContext, Page } from 'puppeteer-core';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_ARGS, findChromium } from '../../scripts/test-support/find-chromium.mjs';
import { findFirefox, findMiniBrowser } from '../../scripts/test-support/find-engines.mjs';
import { freePort } from '../../scripts/ops/nginx';

export type EngineName = 'chromium' | 'firefox' | 'webkit';
export const ENGINE_NAMES: EngineName[] = ['chromium', 'firefox', 'webkit'];

const VIEWPORT = { width: 390, height: 844 };

/** Runs in the page: no closures, only its JSON-serializable arguments. */
type PageFunction<A extends unknown[], T> = (...args: A) => T | Promise<T>;

export interface BrowserPage {
  readonly engine: EngineName;
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  evaluate<A extends unknown[], T>(fn: PageFunction<A, T>, ...args: A): Promise<T>;
  /** Runs `fn` in each new document before its own scripts (not in WebDriver classic). */
  beforeScripts?<A extends unknown[]>(fn: PageFunction<A, void>, ...args: A): Promise<void>;
  /** Clears the field, then types `text` key by key. */
  fill(selector: string, text: string): Promise<void>;
  click(selector: string): Promise<void>;
  /** Picks the option of `value` in a <select>, as a visitor does. */
  select(selector: string, value: string): Promise<void>;
  /** A mouse pointer over the element's centre. */
  hover(selector: string): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: EngineName;
  newPage(): Promise<BrowserPage>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /**
   * The site's service worker at work (the offline tests). Off otherwise, in every engine: the
   * other tests hold the app's files at a proxy, which its precache would answer.
   */
  serviceWorkers?: boolean;
}

export function launch(name: EngineName, options: LaunchOptions = {}): Promise<Engine> {
  return LAUNCHERS[name](options);
}

async function launchChromium(options: LaunchOptions): Promise<Engine> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium not found: apt-get install chromium');
  const browser = await puppeteer.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  return puppeteerEngine('chromium', browser, options);
}

async function launchFirefox(options: LaunchOptions): Promise<Engine> {
  const executablePath = findFirefox();
  if (!executablePath) throw new Error('Firefox not found: apt-get install firefox-esr');
  const browser: Puppeteer = await puppeteer.launch({
    browser: 'firefox',
    executablePath,
    headless: true,
    // Muted playback is allowed everywhere; the tests' clicks are gestures for the rest.
    // JSON as plain text, not the JSON viewer: a test writes storage from such a page.
    extraPrefsFirefox: {
      'media.autoplay.default': 0,
      'devtools.jsonview.enabled': false,
      'dom.serviceWorkers.enabled': !!options.serviceWorkers,
    },
  });
  return puppeteerEngine('firefox', browser, options);
}

function puppeteerEngine(name: EngineName, browser: Puppeteer, options: LaunchOptions): Engine {
  return {
    name,
    newPage: async () => {
      // A context of its own: cookies and storage start empty, as for a new visitor.
      const context: BrowserContext = await browser.createBrowserContext();
      const page: Page = await context.newPage();
      await page.setViewport(VIEWPORT);
      // As Firefox's pref above: the page's requests never go through the service worker.
      if (name === 'chromium' && !options.serviceWorkers) await page.setBypassServiceWorker(true);
      return puppeteerPage(name, page, context);
    },
    close: () => browser.close(),
  };
}

function puppeteerPage(engine: EngineName, page: Page, context: BrowserContext): BrowserPage {
  return {
    engine,
    goto: async (url) => void (await page.goto(url, { waitUntil: 'domcontentloaded' })),
    reload: async () => void (await page.reload({ waitUntil: 'domcontentloaded' })),
    evaluate: (fn, ...args) => page.evaluate(fn as never, ...(args as unknown as never[])),
    beforeScripts: async (fn, ...args) =>
      void (await page.evaluateOnNewDocument(fn as never, ...(args as unknown as never[]))),
    fill: (selector, text) => page.locator(selector).fill(text),
    click: (selector) => page.click(selector),
    select: async (selector, value) => void (await page.select(selector, value)),
    hover: (selector) => page.hover(selector),
    screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png` })),
    close: () => context.close(),
  };
}

/** WebDriver's name for an element reference in JSON. */
const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';

async function startXvfb(): Promise<{ display: string; process: ChildProcess }> {
  // -displayfd: Xvfb picks a free display number and writes it on fd 3 once it is ready.
  const xvfb = spawn(
    'Xvfb',
    [
      '-displayfd',
      '3',
      '-screen',
      '0',
      `${VIEWPORT.width}x${VIEWPORT.height}x24`,
      '-nolisten',
      'tcp',
    ],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
    },
  );
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    xvfb.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(`:${text.trim()}`);
    });
    xvfb.once('error', () => reject(new Error('Xvfb not found: apt-get install xvfb')));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with code ${code}`)));
  });
  return { display, process: xvfb };
}

async function launchWebKit(options: LaunchOptions): Promise<Engine> {
  const binary = findMiniBrowser();
  if (!binary) throw new Error('MiniBrowser not found: apt-get install webkit2gtk-driver');
  const xvfb = await startXvfb();
  const port = await freePort();
  // A process group of its own: stopping it stops the MiniBrowser it started too.
  const driver = spawn('WebKitWebDriver', [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb.display },
    stdio: 'ignore',
    detached: true,
  });
  const stop = () => {
    if (driver.pid && driver.exitCode === null) process.kill(-driver.pid, 'SIGKILL');
    xvfb.process.kill();
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await fetch(`${origin}/status`).catch(() => null))) {
    if (Date.now() > deadline || driver.exitCode !== null) {
      stop();
      throw new Error('WebKitWebDriver did not answer within 10 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // A MiniBrowser takes seconds to start: one for the engine, emptied between pages.
  let shared: Promise<WebKitSession> | null = null;
  return {
    name: 'webkit',
    newPage: async () => {
      shared ??= webkitSession(origin, binary, options);
      const session = await shared;
      return { ...session, close: session.forget };
    },
    close: async () => {
      await (await shared?.catch(() => null))?.close().catch(() => {});
      stop();
    },
  };
}

interface WebKitSession extends BrowserPage {
  /** Back to a new visitor: the cookies and storage of every origin visited are gone. */
  forget(): Promise<void>;
}

async function webkitSession(
  driver: string,
  binary: string,
  options: LaunchOptions,
): Promise<WebKitSession> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (process.env.ENGINES_DEBUG) console.error(new Date().toISOString(), method, path);
    const answer = await fetch(`${driver}${path}`, {
      method,
      signal: AbortSignal.timeout(60_000),
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const { value } = (await answer.json()) as { value: T & { error?: string; message?: string } };
    if (!answer.ok) throw new Error(`WebDriver ${method} ${path}: ${value.error} ${value.message}`);
    return value;
  };
  const { sessionId } = await call<{ sessionId: string }>('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        browserName: 'MiniBrowser',
        pageLoadStrategy: 'none',
        // Without service workers unless asked, as Firefox's pref above (a worker installing
        // beside a navigation also once left WebKitGTK's next page unloaded for 15 s).
        'webkitgtk:browserOptions': {
          binary,
          args: [
            '--automation',
            '--full-screen',
            ...(options.serviceWorkers ? [] : ['--features=-ServiceWorkers']),
          ],
        },
      },
    },
  });
  const session = `/session/${sessionId}`;
  const find = async (selector: string) => {
    const found = await call<Record<string, string>>('POST', `${session}/element`, {
      using: 'css selector',
      value: selector,
    });
    return found[ELEMENT]!;
  };
  const evaluate = <T>(fn: PageFunction<unknown[], T>, ...args: unknown[]) =>
    call<T>('POST', `${session}/execute/sync`, {
      script: `return (${fn.toString()}).apply(null, arguments)`,
      args,
    });

  // The window holds MiniBrowser's toolbar too: sized so that the viewport is the phone's. A
  // resize may land after its answer (a viewport read at once was once still full-screen's, and
  // the second step asked for a negative width), so each step waits for the viewport it brings.
  const { width, height } = VIEWPORT;
  const viewportWhen = async (ok: (inner: number[]) => boolean) => {
    let inner: number[] = [];
    for (let tries = 0; tries < 100; tries++) {
      inner = await evaluate(() => [innerWidth, innerHeight]);
      if (ok(inner)) return inner;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`MiniBrowser's viewport stayed ${inner.join('x')}, not ${width}x${height}`);
  };
  await call('POST', `${session}/window/rect`, { width, height });
  const [innerW = 0, innerH = 0] = await viewportWhen(
    ([w = 0, h = 0]) => w <= width && h <= height,
  );
  await call('POST', `${session}/window/rect`, {
    width: 2 * width - innerW,
    height: 2 * height - innerH,
  });
  await viewportWhen(([w, h]) => w === width && h === height);

  const visited = new Set<string>();
  // Navigation returns at once (pageLoadStrategy 'none': with 'eager', WebKitWebDriver's first
  // script on the new page never answers); this waits for the new document's DOMContentLoaded.
  const navigate = async (go: () => Promise<unknown>) => {
    await evaluate(() => void ((window as { left?: boolean }).left = true));
    await go();
    for (let tries = 0; tries < 300; tries++) {
      const ready = await evaluate(
        () => !(window as { left?: boolean }).left && document.readyState !== 'loading',
      ).catch(() => false);
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the page did not load within 15 s');
  };
  const goto = async (url: string) => {
    if (url.startsWith('http')) visited.add(new URL(url).origin);
    await navigate(() => call('POST', `${session}/url`, { url }));
  };

  return {
    engine: 'webkit',
    goto,
    forget: async () => {
      for (const origin of visited) {
        await goto(`${origin}/`);
        await evaluate(() => {
          localStorage.clear();
          sessionStorage.clear();
        });
        await call('DELETE', `${session}/cookie`);
      }
      visited.clear();
      await goto('about:blank');
    },
    reload: () => navigate(() => call('POST', `${session}/refresh`, {})),
    evaluate: evaluate as BrowserPage['evaluate'],
    fill: async (selector, text) => {
      const element = await find(selector);
      await call('POST', `${session}/element/${element}/clear`, {});
      await call('POST', `${session}/element/${element}/value`, { text });
    },
    click: async (selector) =>
      void (await call('POST', `${session}/element/${await find(selector)}/click`, {})),
    // WebDriver classic selects an option by a click on it.
    select: async (selector, value) =>
      void (await call(
        'POST',
        `${session}/element/${await find(`${selector} option[value="${value}"]`)}/click`,
        {},
      )),
    hover: async (selector) => {
      const origin = { [ELEMENT]: await find(selector) };
      // Unlike a click, a pointer move does not scroll its target into view.
      await call('POST', `${session}/execute/sync`, {
        script: 'arguments[0].scrollIntoView({ block: "center" })',
        args: [origin],
      });
      await call('POST', `${session}/actions`, {
        actions: [
          {
            type: 'pointer',
            id: 'mouse',
            parameters: { pointerType: 'mouse' },
            actions: [{ type: 'pointerMove', duration: 0, origin, x: 0, y: 0 }],
          },
        ],
      });
    },
    screenshot: async (path) =>
      writeFileSync(
        path,
        Buffer.from(await call<string>('GET', `${session}/screenshot`), 'base64'),
      ),
    close: async () => void (await call('DELETE', session).catch(() => {})),
  };
}

const LAUNCHERS: Record<EngineName, (options: LaunchOptions) => Promise<Engine>> = {
  chromium: launchChromium,
  firefox: launchFirefox,
  webkit: launchWebKit,
};
