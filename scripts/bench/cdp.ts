/**
 * Chromium on a bare DevTools connection (--remote-debugging-pipe), with nothing of its own in
 * the page. Playwright creates its utility world and runs its init scripts in every document it
 * commits, on the renderer's main thread, at the very moment a page that paints 0.2 s after its
 * HTML is busy with its first frame; under 4× CPU that alone cost the login and the bare page
 * about 30 ms of First Contentful Paint in our runs. The paints are therefore measured the way
 * DevTools' own performance panel does it: throttling commands, then navigate, then read.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CHROMIUM_ARGS } from '../find-chromium.mjs';
import { CPU_SLOWDOWN, FAST_3G, PHONE, chromiumPath } from './browser';

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message: string };
  sessionId?: string;
}

export interface CdpBrowser {
  send<T = Record<string, unknown>>(
    method: string,
    params?: Record<string, unknown>,
    sessionId?: string,
  ): Promise<T>;
  /** The next event `method` of `sessionId` (undefined: the browser's own). */
  next(method: string, sessionId?: string): Promise<Record<string, unknown>>;
  /** Ends Chromium and removes its profile; safe to call twice. */
  close(): Promise<void>;
}

export function launchCdpBrowser(): CdpBrowser {
  const profile = mkdtempSync(join(tmpdir(), 'bench-cdp-'));
  const chromium: ChildProcess = spawn(
    chromiumPath(),
    [...CHROMIUM_ARGS, '--headless', '--remote-debugging-pipe', `--user-data-dir=${profile}`],
    // fd 3: what Chromium reads; fd 4: what it writes. Messages end with a NUL byte.
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  const toChromium = chromium.stdio[3] as Writable;
  const fromChromium = chromium.stdio[4] as Readable;
  let nextId = 0;
  const replies = new Map<number, { resolve(r: unknown): void; reject(e: Error): void }>();
  const waiters = new Set<(message: Message) => boolean>();
  let closed: Error | null = null;

  const failAll = (error: Error) => {
    closed ??= error;
    for (const reply of replies.values()) reply.reject(error);
    replies.clear();
  };
  chromium.on('exit', () => failAll(new Error('Chromium exited')));
  chromium.on('error', failAll);

  let pending = '';
  fromChromium.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let end: number;
    while ((end = pending.indexOf('\0')) >= 0) {
      const message = JSON.parse(pending.slice(0, end)) as Message;
      pending = pending.slice(end + 1);
      const reply = message.id === undefined ? undefined : replies.get(message.id);
      if (reply) {
        replies.delete(message.id!);
        if (message.error) reply.reject(new Error(message.error.message));
        else reply.resolve(message.result);
      } else {
        for (const waiter of waiters) if (waiter(message)) waiters.delete(waiter);
      }
    }
  });

  return {
    send(method, params = {}, sessionId) {
      if (closed) return Promise.reject(closed);
      const id = (nextId += 1);
      return new Promise((resolve, reject) => {
        replies.set(id, { resolve: resolve as (r: unknown) => void, reject });
        toChromium.write(`${JSON.stringify({ id, method, params, sessionId })}\0`);
      });
    },
    next(method, sessionId) {
      return new Promise((resolve) => {
        waiters.add((message) => {
          if (message.method !== method || message.sessionId !== sessionId) return false;
          resolve(message.params ?? {});
          return true;
        });
      });
    },
    async close() {
      failAll(new Error('closed'));
      // The profile can only go once Chromium has stopped writing to it.
      if (chromium.exitCode === null && chromium.signalCode === null) {
        const exited = new Promise((resolve) => chromium.once('exit', resolve));
        chromium.kill();
        await exited;
      }
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A fresh incognito-like context and tab, emulating the phone and the link of browser.ts. */
export async function throttledTab(browser: CdpBrowser) {
  const { browserContextId } = await browser.send<{ browserContextId: string }>(
    'Target.createBrowserContext',
  );
  const { targetId } = await browser.send<{ targetId: string }>('Target.createTarget', {
    url: 'about:blank',
    browserContextId,
  });
  const { sessionId } = await browser.send<{ sessionId: string }>('Target.attachToTarget', {
    targetId,
    flatten: true,
  });
  const send = (method: string, params?: Record<string, unknown>) =>
    browser.send(method, params, sessionId);
  await send('Page.enable');
  await send('Network.enable');
  await send('Network.setCacheDisabled', { cacheDisabled: true });
  await send('Network.emulateNetworkConditions', { ...FAST_3G });
  await send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  await send('Emulation.setDeviceMetricsOverride', {
    width: PHONE.viewport.width,
    height: PHONE.viewport.height,
    deviceScaleFactor: PHONE.deviceScaleFactor,
    mobile: PHONE.isMobile,
  });
  await send('Emulation.setTouchEmulationEnabled', { enabled: PHONE.hasTouch });
  await send('Emulation.setLocaleOverride', { locale: PHONE.locale });

  return {
    /** Navigates and waits for the load event. */
    async load(url: string): Promise<void> {
      const loaded = browser.next('Page.loadEventFired', sessionId);
      const { errorText } = await send('Page.navigate', { url });
      if (errorText) throw new Error(`${url}: ${String(errorText)}`);
      await loaded;
    },
    /** The value of `expression` (awaited if a promise), evaluated in the page. */
    async evaluate<T>(expression: string): Promise<T> {
      const { result, exceptionDetails } = await send('Runtime.evaluate', {
        expression,
        awaitPromise: true,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`evaluate: ${JSON.stringify(exceptionDetails)}`);
      return (result as { value: T }).value;
    },
    async close(): Promise<void> {
      await browser.send('Target.disposeBrowserContext', { browserContextId });
    },
  };
}
