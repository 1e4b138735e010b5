import { MEDIA_INFO_ELEMENT, type MediaInfo } from '../config/media-layout.js';

// media.json is checked by the same function as the page's copy of it.
export { parseMediaInfo } from '../config/media-layout.js';

/** The page with its media-info element holding `info`; `<` escaped so nothing ends the element. */
export function withMediaInfo(html: string, info: MediaInfo | null): string {
  if (!info) return html;
  const json = JSON.stringify(info).replace(/</g, '\\u003c');
  return html.replace(MEDIA_INFO_ELEMENT, () => MEDIA_INFO_ELEMENT.replace('>null<', `>${json}<`));
}
