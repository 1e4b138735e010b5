import { describe, expect, it } from 'vitest';
import {
  defaultRendition,
  megabytes,
  mp4Pieces,
  oneRenditionMaster,
  parseMaster,
  playlistFiles,
} from '../../src/offline/download-plan';

const MASTER_URL = 'https://site.test/api/video/hls/v20261125000000-abcd1234/master.m3u8';
const MASTER = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-INDEPENDENT-SEGMENTS',
  '#EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=600000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2"',
  'k3f9a1c2-360p/index.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=200000,AVERAGE-BANDWIDTH=150000,RESOLUTION=256x144,CODECS="avc1.64000c,mp4a.40.2"',
  'k3f9a1c2-144p/index.m3u8',
  '#EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=300000,RESOLUTION=426x240,CODECS="avc1.640015,mp4a.40.2"',
  'k3f9a1c2-240p/index.m3u8',
  '',
].join('\n');

describe('the download plan', () => {
  it('reads the renditions of a master playlist, lowest first, with absolute playlist URLs', () => {
    const list = parseMaster(MASTER, MASTER_URL);
    expect(list.map((r) => [r.height, r.bitrate])).toEqual([
      [144, 150000],
      [240, 300000],
      [360, 600000],
    ]);
    expect(list[0]!.playlist).toBe(
      'https://site.test/api/video/hls/v20261125000000-abcd1234/k3f9a1c2-144p/index.m3u8',
    );
  });

  it('writes a master that names only the stored rendition, with the original header', () => {
    const r240 = parseMaster(MASTER, MASTER_URL)[1]!;
    const text = oneRenditionMaster(MASTER, r240);
    expect(text.split('\n')).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:7',
      '#EXT-X-INDEPENDENT-SEGMENTS',
      r240.streamInf,
      'https://site.test/api/video/hls/v20261125000000-abcd1234/k3f9a1c2-240p/index.m3u8',
      '',
    ]);
  });

  it("lists a rendition's init segment and every media segment, absolute", () => {
    const playlistUrl = 'https://site.test/hls/k3f9a1c2-240p/index.m3u8';
    const playlist = [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:6',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:6.000,',
      'seg00000.m4s',
      '#EXTINF:4.5,',
      'seg00001.m4s',
      '#EXT-X-ENDLIST',
    ].join('\n');
    expect(playlistFiles(playlist, playlistUrl)).toEqual([
      'https://site.test/hls/k3f9a1c2-240p/init.mp4',
      'https://site.test/hls/k3f9a1c2-240p/seg00000.m4s',
      'https://site.test/hls/k3f9a1c2-240p/seg00001.m4s',
    ]);
  });

  it('offers about 360p by default, and the highest the data saver allows when it is on', () => {
    const ladder = [144, 240, 360, 540, 720].map((height) => ({ height }));
    expect(defaultRendition(ladder, false)?.height).toBe(360);
    expect(defaultRendition(ladder, true)?.height).toBe(240);
    expect(defaultRendition([{ height: 480 }, { height: 720 }], true)?.height).toBe(480);
    expect(defaultRendition([{ height: 144 }, { height: 720 }], false)?.height).toBe(144);
  });

  it('cuts an MP4 into pieces that cover every byte once', () => {
    expect(mp4Pieces(10, 4)).toEqual([
      [0, 3],
      [4, 7],
      [8, 9],
    ]);
    expect(mp4Pieces(8, 4)).toEqual([
      [0, 3],
      [4, 7],
    ]);
  });

  it('says the size in whole megabytes, at least 1', () => {
    expect(megabytes(11_400_000)).toBe('≈ 11 MB');
    expect(megabytes(200_000)).toBe('≈ 1 MB');
  });
});
