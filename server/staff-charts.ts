/**
 * The staff page's pictures, drawn on the server as SVG strings: no script, no library, nothing a
 * visitor ever loads. Colours come from staff-style.ts by class (the CSP allows no inline style); each
 * picture has a title and a description, and the page gives its numbers in a table as well.
 */

export interface Chapter {
  startS: number;
  title: string;
}

export interface BarRow {
  label: string;
  value: number;
  /** The value as the reader should see it. */
  text: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** For text and attribute values alike. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** Two decimals are finer than any screen's pixel; longer numbers only weigh. */
const at = (value: number) => String(Math.round(value * 100) / 100);

export const clock = (second: number) =>
  `${Math.floor(second / 60)}:${String(Math.floor(second % 60)).padStart(2, '0')}`;

/** The second after which the most views stopped watching (the largest drop), or null. */
export function mostStopsAt(seconds: number[]): number | null {
  let best: number | null = null;
  let drop = 0;
  for (let second = 1; second < seconds.length; second += 1) {
    const lost = seconds[second - 1]! - seconds[second]!;
    if (lost > drop) [best, drop] = [second, lost];
  }
  return best;
}

/** A round step between time labels that leaves at most `most` of them. */
function tickStep(seconds: number, most: number): number {
  const steps = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  return steps.find((step) => seconds / step <= most) ?? 3600;
}

const titled = (id: string, title: string, desc: string) =>
  `<title id="${id}-t">${escapeHtml(title)}</title><desc id="${id}-d">${escapeHtml(desc)}</desc>`;

/**
 * The engagement graph: one bar per second of the video, its height the share of the period's
 * views that saw it; the chapters' starts as numbered lines, the largest drop as a dashed one.
 * Drawn at its own size (`width`×`height`, never scaled up) so its text stays legible: the page
 * draws a narrow one for phones and a wide one for desktops.
 */
export function engagementChart(
  seconds: number[],
  views: number,
  chapters: Chapter[],
  { id, width, height }: { id: string; width: number; height: number },
): string {
  const [left, right, top, bottom] = [40, 8, 20, 24];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const barW = plotW / Math.max(1, seconds.length);
  const x = (second: number) => left + second * barW;
  const bars = seconds.map((count, second) => {
    const h = views > 0 ? (count / views) * plotH : 0;
    return `<rect class="bar" data-second="${second}" x="${at(x(second))}" y="${at(top + plotH - h)}" width="${at(barW)}" height="${at(h)}"/>`;
  });
  const grid = [0, 0.5, 1].map((share) => {
    const y = at(top + plotH - share * plotH);
    return `<line class="grid" x1="${left}" x2="${width - right}" y1="${y}" y2="${y}"/><text class="axis" x="${left - 4}" y="${y}" dy="4" text-anchor="end">${share * 100} %</text>`;
  });
  const step = tickStep(seconds.length, Math.floor(plotW / 56));
  const ticks: string[] = [];
  for (let second = 0; second <= seconds.length; second += step)
    ticks.push(
      `<text class="axis" x="${at(x(second))}" y="${height - 6}" text-anchor="middle">${clock(second)}</text>`,
    );
  const marks = chapters.map(
    (chapter, index) =>
      `<line class="chapter" x1="${at(x(chapter.startS))}" x2="${at(x(chapter.startS))}" y1="${top - 2}" y2="${top + plotH}"/><text class="chapter-number" x="${at(x(chapter.startS) + 3)}" y="${top - 6}">${index + 1}</text>`,
  );
  const stop = mostStopsAt(seconds);
  const stopMark =
    stop === null
      ? ''
      : `<line class="stop" x1="${at(x(stop))}" x2="${at(x(stop))}" y1="${top}" y2="${top + plotH}"/>`;
  const desc =
    `Para cada segundo del video (${seconds.length} s), la parte de las ${views} visitas que lo vio.` +
    (stop === null
      ? ''
      : ` La mayor caída, donde más visitas dejan de ver, es en ${clock(stop)}.`) +
    (chapters.length ? ` Los números marcan el comienzo de cada capítulo.` : '');
  return [
    `<svg class="chart engagement" id="${id}" data-plot-height="${plotH}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-t ${id}-d">`,
    titled(id, 'Segundos vistos', desc),
    ...grid,
    `<g class="bars">${bars.join('')}</g>`,
    ...marks,
    stopMark,
    ...ticks,
    `</svg>`,
  ].join('');
}

/** Horizontal bars, one row per entry, longest first as given; labels left, values right. */
export function barChart(
  rows: BarRow[],
  { id, title, desc }: { id: string; title: string; desc: string },
): string {
  const width = 360;
  const [labelW, valueW, rowH] = [112, 72, 26];
  const barArea = width - labelW - valueW;
  const most = Math.max(0, ...rows.map((row) => row.value));
  const height = rows.length * rowH + 4;
  const body = rows.map((row, index) => {
    const y = index * rowH + 4;
    const w = most > 0 ? (row.value / most) * barArea : 0;
    return (
      `<text class="label" x="0" y="${y + 14}">${escapeHtml(row.label)}</text>` +
      `<rect class="bar" x="${labelW}" y="${y + 3}" width="${at(w)}" height="14"/>` +
      `<text class="value" x="${width}" y="${y + 14}" text-anchor="end">${escapeHtml(row.text)}</text>`
    );
  });
  return [
    `<svg class="chart bars" id="${id}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-t ${id}-d">`,
    titled(id, title, desc),
    ...body,
    `</svg>`,
  ].join('');
}
