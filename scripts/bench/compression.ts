/**
 * Every text asset of the build, asked for as a browser asks (`Accept-Encoding: br, gzip`),
 * must come back compressed; hashed assets must be cacheable for a year.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { send, signedIn } from '../test-server';
import { holds, type Measurement, type Site } from './measure';

const TEXT = /\.(html|js|mjs|css|svg|vtt|json|txt|webmanifest|xml)$/;
/**
 * Below this, compression saves less than its headers cost; the build (scripts/precompress.ts)
 * skips such files on purpose, so they are listed, not counted.
 */
const TINY_BYTES = 512;
const YEAR = 'max-age=31536000';

interface Asset {
  /** What the table calls it. */
  name: string;
  url: string;
  size: number;
  needsCookie?: boolean;
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    // Dotfiles (the build stamp) are not served.
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}

/** The build's text files, by the URL a visitor uses: index.html is served as the login page. */
function textAssets(site: Site): Asset[] {
  const assets: Asset[] = [];
  for (const path of walk(site.distDir)) {
    if (!TEXT.test(path)) continue;
    const rel = relative(site.distDir, path).split(sep).join('/');
    const url = rel === 'index.html' ? `${site.base}/login` : `${site.base}/${rel}`;
    assets.push({ name: rel, url, size: statSync(path).size });
  }
  return assets;
}

const header = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value.join(', ') : (value ?? '');

export function compressionMeasurement(site: Site): Measurement<'compressed' | 'cached'> {
  return {
    name: 'compression and caching',
    timeoutMs: 30_000,
    figures: {
      compressed: { figure: 'Text assets served compressed', target: holds('all (br or gzip)') },
      cached: { figure: 'Hashed assets cached a year', target: holds(`all (${YEAR}, immutable)`) },
    },
    async run() {
      const { cookie } = await signedIn(site);
      // The captions are a text asset too, served by the media route rather than from dist.
      const assets = [
        ...textAssets(site),
        {
          name: 'captions (/api/video/captions.vtt)',
          url: '/api/video/captions.vtt',
          size: 0,
          needsCookie: true,
        },
      ];
      const checked = await Promise.all(
        assets.map(async (asset) => {
          const head = await send(`${site.origin}${asset.url}`, {
            headers: { 'accept-encoding': 'br, gzip', ...(asset.needsCookie ? { cookie } : {}) },
          });
          const encoding = header(head.headers['content-encoding']);
          // The captions' size is known only from the answer.
          const size = asset.size || head.bytes;
          return {
            ...asset,
            size,
            ok: head.status === 200,
            status: head.status,
            compressed: /\b(br|gzip)\b/.test(encoding),
            cacheControl: header(head.headers['cache-control']),
          };
        }),
      );

      const counted = checked.filter((asset) => asset.size >= TINY_BYTES || asset.compressed);
      const plain = counted.filter((asset) => !asset.compressed || !asset.ok);
      const tiny = checked.filter((asset) => !counted.includes(asset));
      const hashed = checked.filter((asset) => asset.url.startsWith(`${site.base}/assets/`));
      const uncached = hashed.filter(
        (asset) => !(asset.cacheControl.includes(YEAR) && asset.cacheControl.includes('immutable')),
      );

      const compressedNote = [
        plain.length
          ? `not compressed: ${plain.map((a) => `${a.name} (${a.status}, ${a.size} B)`).join(', ')}`
          : '',
        tiny.length ? `exempt, under ${TINY_BYTES} B: ${tiny.map((a) => a.name).join(', ')}` : '',
      ]
        .filter(Boolean)
        .join('; ');
      return {
        compressed: {
          value: `${counted.length - plain.length}/${counted.length}`,
          measured: counted.length > 0 && plain.length === 0,
          ...(compressedNote ? { note: compressedNote } : {}),
        },
        cached: {
          value: `${hashed.length - uncached.length}/${hashed.length}`,
          measured: hashed.length > 0 && uncached.length === 0,
          ...(uncached.length
            ? {
                note: `without a year: ${uncached.map((a) => `${a.name} (${a.cacheControl || 'none'})`).join(', ')}`,
              }
            : {}),
        },
      };
    },
  };
}
