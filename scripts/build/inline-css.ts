/**
 * Puts the entry stylesheet into index.html as one `<style>` in the head, so that the login's
 * first paint does not wait for a second request (a whole round trip on a slow link). The
 * server allows exactly that style by its hash (server/security.ts); the lazy screens keep
 * their own stylesheets.
 */
import type { Plugin } from 'vite';

export function inlineEntryCssPlugin(): Plugin {
  return {
    name: 'inline-entry-css',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle) return html;
        let styles = '';
        const out = html.replace(/\s*<link\b[^>]*\brel="stylesheet"[^>]*>/g, (tag) => {
          const href = /\shref="([^"]+)"/.exec(tag)?.[1];
          const fileName = Object.keys(bundle).find((name) => href?.endsWith(`/${name}`));
          const asset = fileName ? bundle[fileName] : undefined;
          if (!fileName || asset?.type !== 'asset') return tag;
          styles += String(asset.source);
          return '';
        });
        if (!styles) return html;
        // Vite's CSS never holds `</style`, but a stray one would end the element early.
        if (/<\/style/i.test(styles)) throw new Error('inline-entry-css: CSS contains </style');
        // The file stays: a lazy chunk's preload list may name the entry CSS too (its CSS was
        // merged into it), and a missing file there fails the chunk's import.
        return out.replace(/\s*<\/head>/, `\n    <style>${styles.trim()}</style>\n  </head>`);
      },
    },
  };
}
