/**
 * Finds the Firefox and the WebKitGTK MiniBrowser the engine tests use (e2e/engines/): Debian's,
 * never a downloaded one. FIREFOX_PATH and MINIBROWSER_PATH win.
 */
import { existsSync, readdirSync } from 'node:fs';

export function findFirefox() {
  const candidates = [process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox'];
  return candidates.find((path) => path && existsSync(path)) ?? null;
}

/** Debian installs MiniBrowser beside WebKitGTK's processes, under the multiarch folder. */
export function findMiniBrowser() {
  if (process.env.MINIBROWSER_PATH) return process.env.MINIBROWSER_PATH;
  for (const base of ['/usr/lib', '/usr/libexec']) {
    const dirs = existsSync(base) ? readdirSync(base) : [];
    for (const dir of ['', ...dirs.map((name) => `${name}/`)])
      for (const api of ['webkit2gtk-4.1', 'webkit2gtk-4.0', 'webkitgtk-6.0']) {
        const path = `${base}/${dir}${api}/MiniBrowser`;
        if (existsSync(path)) return path;
      }
  }
  return null;
}
