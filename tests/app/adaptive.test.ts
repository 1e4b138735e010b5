import { describe, expect, it } from 'vitest';
import { MEDIA_INFO_ID, segmentAt } from '../../config/media-layout';
import { memoryStorage } from '../../machines/session';
import {
  DEFAULT_CHOICE,
  dataSaverCap,
  levelsFor,
  parseChoice,
  readEstimate,
  serializeChoice,
  startRung,
  type QualityChoice,
} from '../../src/screens/video-player/quality';
import type { Rendition } from '../../src/video-start/contract';
import { readMediaInfo } from '../../src/screens/video-player/media-support';

/** hls.js sorts its levels from the lowest up. */
const LADDER: Rendition[] = [144, 240, 360, 480, 720].map((height, index) => ({
  index,
  height,
  bitrate: height * 3000,
}));

describe('the stored quality choice', () => {
  it('reads back what was saved', () => {
    const choice = { quality: 480, dataSaver: true } as const;
    expect(parseChoice(serializeChoice(choice))).toEqual(choice);
    expect(parseChoice(serializeChoice(DEFAULT_CHOICE))).toEqual(DEFAULT_CHOICE);
  });

  it.each([
    null,
    '',
    'not json',
    'null',
    '[]',
    '"auto"',
    '{"quality":-1}',
    '{"quality":360.5}',
    '{"quality":"360"}',
    '{"quality":99999}',
    `{"quality":"auto","pad":"${'x'.repeat(300)}"}`,
  ])('falls back to automatic without data saver on %j', (raw) => {
    expect(parseChoice(raw)).toEqual(DEFAULT_CHOICE);
  });

  it('keeps a valid part of a partly broken value', () => {
    expect(parseChoice('{"quality":"huge","dataSaver":true}')).toEqual({
      quality: 'auto',
      dataSaver: true,
    });
    expect(parseChoice('{"quality":240,"dataSaver":"yes"}')).toEqual({
      quality: 240,
      dataSaver: false,
    });
  });
});

describe('what a choice asks of hls.js', () => {
  it('automatic: no fixed level, no cap', () => {
    expect(levelsFor({ quality: 'auto', dataSaver: false }, LADDER)).toEqual({
      level: -1,
      cap: -1,
    });
  });

  it('a rendition: that level', () => {
    expect(levelsFor({ quality: 480, dataSaver: false }, LADDER)).toEqual({ level: 3, cap: -1 });
  });

  it('a rendition this video does not have: automatic', () => {
    expect(levelsFor({ quality: 1080, dataSaver: false }, LADDER).level).toBe(-1);
  });

  it('data saver: automatic capped at 240p, and it wins over a rendition above the cap', () => {
    expect(levelsFor({ quality: 'auto', dataSaver: true }, LADDER)).toEqual({ level: -1, cap: 1 });
    expect(levelsFor({ quality: 720, dataSaver: true }, LADDER)).toEqual({ level: -1, cap: 1 });
    expect(levelsFor({ quality: 144, dataSaver: true }, LADDER)).toEqual({ level: 0, cap: 1 });
  });

  it('data saver on a ladder with nothing at 240p or less: the lowest rendition', () => {
    const big = LADDER.slice(2).map((r, index) => ({ ...r, index }));
    expect(dataSaverCap(big)).toBe(0);
  });
});

describe('the rendition a start asks for first', () => {
  // The bench's ladder (peak bandwidths as prepare-video measured them), lowest first.
  const RUNGS = [
    { dir: 'abcd1234-144p', height: 144, peakBandwidth: 105_000 },
    { dir: 'abcd1234-240p', height: 240, peakBandwidth: 232_000 },
    { dir: 'abcd1234-360p', height: 360, peakBandwidth: 632_000 },
    { dir: 'abcd1234-480p', height: 480, peakBandwidth: 1_020_000 },
    { dir: 'abcd1234-720p', height: 720, peakBandwidth: 2_335_000 },
  ];
  const auto = DEFAULT_CHOICE;
  const start = (estimate: number, choice: QualityChoice = auto) =>
    startRung(RUNGS, choice, estimate).height;

  it('is the highest whose first segment comes within a second at the estimated speed', () => {
    // Slow 3G, Fast 3G as Chromium reports them, a 4G link, a fast Wi-Fi.
    expect(start(400_000)).toBe(144);
    expect(start(1_250_000)).toBe(144);
    expect(start(1_400_000)).toBe(240);
    expect(start(10_000_000)).toBe(480);
    expect(start(20_000_000)).toBe(720);
  });

  it('is the lowest when even that one is slower', () => {
    expect(start(60_000)).toBe(144);
  });

  it("is the visitor's fixed rendition, within the data saver's cap", () => {
    expect(start(400_000, { quality: 720, dataSaver: false })).toBe(720);
    expect(start(20_000_000, { quality: 720, dataSaver: true })).toBe(240);
    expect(start(20_000_000, { quality: 'auto', dataSaver: true })).toBe(240);
    expect(start(400_000, { quality: 1080, dataSaver: false })).toBe(144);
  });
});

describe("the link's speed a start assumes", () => {
  it("is this device's last measurement, else the browser's hint, else hls.js's default", () => {
    expect(
      readEstimate(memoryStorage({ videoBandwidthEstimate: '800000' }), { downlink: 10 }),
    ).toBe(800_000);
    expect(readEstimate(memoryStorage(), { downlink: 1.25 })).toBe(1_250_000);
    expect(readEstimate(memoryStorage())).toBe(500_000);
    expect(readEstimate(memoryStorage(), { downlink: 0 })).toBe(500_000);
  });

  it.each(['abc', '-5', '10', 'Infinity', '1e12'])('ignores a stored %j', (stored) => {
    expect(readEstimate(memoryStorage({ videoBandwidthEstimate: stored }), { downlink: 2 })).toBe(
      2_000_000,
    );
  });
});

describe('what the server wrote into the page about the published video', () => {
  const page = (json: string) => {
    const doc = document.implementation.createHTMLDocument();
    doc.body.innerHTML = `<script type="application/json" id="${MEDIA_INFO_ID}">${json}</script>`;
    return doc;
  };
  const rung = { dir: 'abcd1234-144p', height: 144, peakBandwidth: 105_000 };

  it('is read when it is a ladder', () => {
    expect(readMediaInfo(page(JSON.stringify({ rungs: [rung] })))).toEqual({ rungs: [rung] });
  });

  it("keeps the first segment's length, which says where a resume position's segment is", () => {
    const info = readMediaInfo(page(JSON.stringify({ firstSegmentS: 2, rungs: [rung] })));
    expect(info).toEqual({ firstSegmentS: 2, rungs: [rung] });
    // 2 s, then 6 s each: 0-2 s, 2-8 s, 8-14 s…
    expect([0, 1.9, 2, 7.9, 8, 13.9, 14].map((s) => segmentAt(s, info!.firstSegmentS))).toEqual([
      0, 0, 1, 1, 2, 2, 3,
    ]);
    // An older publish: every segment 6 s.
    expect([0, 5.9, 6, 12].map((s) => segmentAt(s))).toEqual([0, 0, 1, 2]);
  });

  it.each([
    ['the single MP4', 'null'],
    ['no element', undefined],
    ['broken JSON', '{"rungs":['],
    ['no rungs', '{"rungs":[]}'],
    ['a folder outside the publish', JSON.stringify({ rungs: [{ ...rung, dir: '../x' }] })],
    ['a height that is no number', JSON.stringify({ rungs: [{ ...rung, height: '144' }] })],
    ['a negative bandwidth', JSON.stringify({ rungs: [{ ...rung, peakBandwidth: -1 }] })],
    ['a first segment longer than the others', JSON.stringify({ firstSegmentS: 9, rungs: [rung] })],
    ['a first segment of no length', JSON.stringify({ firstSegmentS: 0, rungs: [rung] })],
  ])('is null for %s: the page plays the MP4', (_, json) => {
    const doc = json === undefined ? document.implementation.createHTMLDocument() : page(json);
    expect(readMediaInfo(doc)).toBeNull();
  });
});
