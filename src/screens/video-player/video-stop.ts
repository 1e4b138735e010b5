/**
 * Lets a <video> go (its screen left, or the app will not keep the one the boot script started):
 * hls.js stops and nothing more is asked; a detached <video> would go on loading and playing.
 * The start's other half (video-start.ts), in its own file: the app's entry needs only this.
 */
export function stopVideo(video: HTMLVideoElement): void {
  const playback = video.playback;
  delete video.playback;
  void playback?.then((player) => player?.destroy());
  video.removeAttribute('src');
  video.load();
}
