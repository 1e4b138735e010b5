import type { Metric } from 'web-vitals';

/**
 * Field metrics (CLS, INP, FCP, LCP, TTFB; web-vitals 5 replaced FID with INP), only when a
 * target is configured. Without one the library is not even downloaded: the import is dynamic
 * so that it lives in its own chunk.
 */
let started = false;

export async function reportWebVitals(url: string): Promise<void> {
  // StrictMode runs effects twice in development; each metric must be reported once.
  if (!url || started) return;
  started = true;
  const { onCLS, onFCP, onINP, onLCP, onTTFB } = await import('web-vitals');
  const send = ({ name, value, rating, delta, id, navigationType }: Metric) => {
    const body = JSON.stringify({
      name,
      value,
      rating,
      delta,
      id,
      navigationType,
      page: window.location.pathname,
    });
    // sendBeacon survives the page being hidden or closed, which is when CLS and INP report. A
    // plain string goes as text/plain, which needs no CORS preflight on another origin.
    navigator.sendBeacon(url, body);
  };
  for (const on of [onCLS, onFCP, onINP, onLCP, onTTFB]) on(send);
}
