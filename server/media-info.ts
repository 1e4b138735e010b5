import {
  MEDIA_INFO_ELEMENT,
  RUNG_DIR_PATTERN,
  isCount,
  type MediaInfo,
} from '../config/media-layout.js';

/** More than any ladder prepare-video makes (six rungs): a longer list is not its file. */
const MAX_RUNGS = 16;

/**
 * What the page is told about a publish, from MEDIA_DIR's media.json (scripts/prepare-video.ts
 * writes it; someone may have edited it by hand): the renditions lowest first, or null when
 * the text is not a publish the player could use. Never throws.
 */
export function parseMediaInfo(text: string): MediaInfo | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { rungs } = value as Record<string, unknown>;
  if (!Array.isArray(rungs) || rungs.length === 0 || rungs.length > MAX_RUNGS) return null;
  const parsed: MediaInfo['rungs'] = [];
  for (const rung of rungs as unknown[]) {
    if (typeof rung !== 'object' || rung === null) return null;
    const { dir, width, height, peakBandwidth } = rung as Record<string, unknown>;
    if (typeof dir !== 'string' || !RUNG_DIR_PATTERN.test(dir)) return null;
    if (!isCount(width) || !isCount(height) || !isCount(peakBandwidth)) return null;
    if (parsed.some((other) => other.dir === dir)) return null;
    // The short side names the quality ("360p"), portrait or not.
    parsed.push({ dir, height: Math.min(width, height), peakBandwidth });
  }
  return { rungs: parsed.sort((a, b) => a.peakBandwidth - b.peakBandwidth) };
}

/** The page with its media-info element holding `info`; `<` escaped so nothing ends the element. */
export function withMediaInfo(html: string, info: MediaInfo | null): string {
  if (!info) return html;
  const json = JSON.stringify(info).replace(/</g, '\\u003c');
  return html.replace(MEDIA_INFO_ELEMENT, () => MEDIA_INFO_ELEMENT.replace('>null<', `>${json}<`));
}
