/**
 * Who sends a report, as config/field-report.ts allows it: the kind of browser and device, never
 * which one. The user-agent string is read here and never leaves the phone.
 */
import type { FieldReport } from '../../config/field-report';

export type Sender = Pick<FieldReport, 'browser' | 'device'>;

const FAMILIES: [FieldReport['browser']['family'], RegExp][] = [
  ['edge', /Edg(?:e|A|iOS)?\/(\d+)/],
  ['samsung', /SamsungBrowser\/(\d+)/],
  ['opera', /(?:OPR|OPiOS)\/(\d+)/],
  ['firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  ['chrome', /(?:Chrome|CriOS)\/(\d+)/],
  ['safari', /Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//],
];

export function senderOf(userAgent: string): Sender {
  const [family, major] = FAMILIES.reduce<[FieldReport['browser']['family'], number] | null>(
    (found, [name, pattern]) => {
      const match = found ? null : pattern.exec(userAgent);
      return match ? [name, Math.min(Number(match[1]), 999)] : found;
    },
    null,
  ) ?? ['other', 0];
  // On an iPhone or iPad every browser is WebKit: the engine is what plays the video.
  const engine = /iPhone|iPad|iPod/.test(userAgent)
    ? 'webkit'
    : /Firefox\//.test(userAgent)
      ? 'gecko'
      : /Chrom(?:e|ium)\//.test(userAgent)
        ? 'blink'
        : /AppleWebKit\//.test(userAgent)
          ? 'webkit'
          : 'other';
  const device = /Mobi|Android|iPhone|iPod/.test(userAgent) ? 'phone' : 'desktop';
  return { browser: { family, major, engine }, device };
}

/** 16 random bytes in base64url, as the format wants a report's and a view's id. */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
