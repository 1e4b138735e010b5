import { useEffect, useState } from 'react';
import type { VideoRef } from '../screens/video-player/use-player-video';
import { useOnline } from './use-online';

/**
 * Whether playback waits because the network is gone: the video wants to play (a `waiting`
 * with no `playing` or pause since) and the browser says it is offline. hls.js loads again when
 * the link is back (use-adaptive-source.ts); this only lets the screen say so.
 */
export function useNetworkWait(videoRef: VideoRef): boolean {
  const online = useOnline();
  const [waiting, setWaiting] = useState(false);
  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    const wait = () => setWaiting(true);
    const go = () => setWaiting(false);
    video.addEventListener('waiting', wait);
    ['playing', 'pause', 'ended', 'emptied'].forEach((name) => video.addEventListener(name, go));
    return () => {
      video.removeEventListener('waiting', wait);
      ['playing', 'pause', 'ended', 'emptied'].forEach((name) =>
        video.removeEventListener(name, go),
      );
    };
  }, [videoRef]);
  return waiting && !online;
}
