/**
 * The login page's eager JS+CSS: what index.html makes the browser fetch before the app runs
 * (the module entry, which the boot script starts, its modulepreloads, the stylesheets),
 * gzip-compressed. The budget test (e2e/budget.spec.ts) uses the same rule.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BOOT_CONFIG_ID, type BootConfig } from '../../src/boot/bootConfig';
import { kilobytes, type Measurement } from './measure';
import type { Site } from './site';

const TARGET_BYTES = 105 * 1024;

/** Attribute order varies with the bundler, so each tag is matched whole, then read. */
export function eagerAssetUrls(html: string): string[] {
  const attribute = (tag: string, name: string) =>
    new RegExp(`\\s${name}=["']([^"']+)["']`).exec(tag)?.[1];
  const urls: string[] = [];
  for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) {
    const src = attribute(tag, 'src');
    if (src && attribute(tag, 'type') === 'module') urls.push(src);
  }
  for (const [tag] of html.matchAll(/<link\b[^>]*>/g)) {
    const rel = attribute(tag, 'rel');
    const href = attribute(tag, 'href');
    if (href && (rel === 'modulepreload' || rel === 'stylesheet')) urls.push(href);
  }
  // The entry the boot script (src/boot/boot.ts) starts, from its settings.
  const settings = new RegExp(
    `<script type="application/json" id="${BOOT_CONFIG_ID}">([^<]*)</script>`,
  ).exec(html)?.[1];
  const entry = settings ? (JSON.parse(settings) as BootConfig).entry : null;
  if (entry) urls.push(entry);
  return [...new Set(urls)];
}

/** `/capacitacion/assets/x.js` → `dist/assets/x.js` */
function fileFor(url: string, site: Site): string {
  const path = url.startsWith(`${site.base}/`) ? url.slice(site.base.length + 1) : url;
  return join(site.distDir, path.replace(/^\//, ''));
}

export function bundleMeasurement(site: Site): Measurement<'eager'> {
  return {
    name: 'bundle: login eager JS+CSS',
    timeoutMs: 10_000,
    figures: { eager: { figure: 'Login eager JS+CSS (gzip)', target: '≤ 105 KB' } },
    async run() {
      const html = readFileSync(join(site.distDir, 'index.html'), 'utf8');
      const sizes = eagerAssetUrls(html).map((url) => {
        const bytes = gzipSync(readFileSync(fileFor(url, site)), { level: 9 }).length;
        return { name: url.split('/').pop() ?? url, bytes };
      });
      const total = sizes.reduce((sum, { bytes }) => sum + bytes, 0);
      return {
        eager: {
          value: `${kilobytes(total)} (${sizes.length} files)`,
          met: sizes.length > 0 && total <= TARGET_BYTES,
          measured: total,
          unit: 'B',
          note: sizes.map(({ name, bytes }) => `${name} ${kilobytes(bytes)}`).join(', '),
        },
      };
    },
  };
}
