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
        const inlined = new Set<string>();
        const out = html.replace(/\s*<link\b[^>]*\brel="stylesheet"[^>]*>/g, (tag) => {
          const href = /\shref="([^"]+)"/.exec(tag)?.[1];
          const fileName = Object.keys(bundle).find((name) => href?.endsWith(`/${name}`));
          const asset = fileName ? bundle[fileName] : undefined;
          if (!fileName || asset?.type !== 'asset') return tag;
          styles += String(asset.source);
          inlined.add(fileName);
          return '';
        });
        if (!styles) return html;
        // Vite's CSS never holds `</style`, but a stray one would end the element early.
        if (/<\/style/i.test(styles)) throw new Error('inline-entry-css: CSS contains </style');
        // Only the HTML links the entry CSS; the chunks' preload lists name their own CSS.
        for (const fileName of inlined) delete bundle[fileName];
        return out.replace(/\s*<\/head>/, `\n    <style>${styles.trim()}</style>\n  </head>`);
      },
    },
  };
}
