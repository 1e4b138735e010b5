/**
 * The screens' side of the reports (src/field-report/page-reports.ts): the recorder's code,
 * web-vitals with it, is asked for only after the view's first frame, never beside the start.
 */
import { describe, expect, it, vi } from 'vitest';
import { createPageReports } from '../../src/field-report/page-reports';

const recorder = vi.hoisted(() => ({
  imported: 0,
  ended: 0,
  watched: [] as [HTMLVideoElement, string][],
}));
vi.mock('../../src/field-report/page-recorder', () => {
  recorder.imported += 1;
  return {
    watchView: (video: HTMLVideoElement, source: string) => {
      recorder.watched.push([video, source]);
      return () => (recorder.ended += 1);
    },
  };
});

const start = { timing: () => ({ pressAt: null, firstFrameAt: null }) };
const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('the page reports', () => {
  it('load the recorder at the first frame, not before, and end the view when its <video> leaves the page', async () => {
    const reports = createPageReports(start)!;
    const video = document.createElement('video');
    document.body.append(video);
    const cleanup = reports.watch(video, 'site');
    await tick();
    expect(recorder.imported).toBe(0);

    video.dispatchEvent(new Event('loadeddata'));
    await vi.waitFor(() => expect(recorder.watched).toEqual([[video, 'site']]));
    // An effect run again on the same element (StrictMode): the view goes on.
    cleanup();
    expect(recorder.ended).toBe(0);
    video.remove();
    reports.watch(video, 'site')();
    cleanup();
    expect(recorder.ended).toBe(1);
  });

  it('a screen gone before its first frame records nothing', async () => {
    const reports = createPageReports(start)!;
    const video = document.createElement('video');
    const cleanup = reports.watch(video, 'copy');
    cleanup();
    video.dispatchEvent(new Event('loadeddata'));
    await tick();
    expect(recorder.watched.filter(([element]) => element === video)).toEqual([]);
  });
});
