/**
 * Lets a <video> go (its screen is leaving, or the app will not keep the one the boot script
 * started): hls.js stops and nothing more is asked. A detached <video> would otherwise go on
 * loading, and playing if it was. Its own file: the app's entry needs this, not the start.
 */
export function stopVideo(video: HTMLVideoElement): void {
  const playback = video.playback;
  delete video.playback;
  void playback?.then((player) => player?.destroy());
  video.removeAttribute('src');
  video.load();
}
