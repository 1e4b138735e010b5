import { useEffect, useRef, useState, type RefObject } from 'react';
import { AuthActor } from '../../auth/auth-provider';
import { config } from '../../config';
import { useHandoff } from '../../handoff-context';
import { mediaUrls, readMediaInfo } from './media-support';

export const VIDEO_UNAVAILABLE_MESSAGE =
  'El video no está disponible en este momento. Reintentando…';

/** When the server gives no Retry-After, and the most a Retry-After is trusted for. */
const DEFAULT_RETRY_S = 2;
const MAX_RETRY_S = 30;

type Answer =
  | { kind: 'refused' }
  | { kind: 'unavailable'; retryAfterS: number }
  | { kind: 'replaced' }
  | { kind: 'other' };

/**
 * Whether the publish this page plays is gone: replaced and removed (`npm run rekey` removes
 * the old one at once). Only a new page knows the new one.
 */
async function publishGone(): Promise<boolean> {
  const info = readMediaInfo();
  if (!info?.version) return false;
  const response = await fetch(mediaUrls(info).master, {
    method: 'HEAD',
    credentials: 'include',
    cache: 'no-store',
  });
  return response.status === 404;
}

/**
 * What the server says about the video. The media element cannot tell a 401 (the session is
 * over) from a 503 (the server's store is down for a moment: the session is not over).
 */
async function askServer(): Promise<Answer> {
  try {
    const response = await fetch(config.videoUrl, {
      method: 'HEAD',
      credentials: 'include',
      cache: 'no-store',
    });
    if (response.status === 401) return { kind: 'refused' };
    if (response.status !== 503) return { kind: 'other' };
    const header = Number(response.headers.get('retry-after'));
    const retryAfterS = Number.isFinite(header) && header > 0 ? header : DEFAULT_RETRY_S;
    return { kind: 'unavailable', retryAfterS: Math.min(retryAfterS, MAX_RETRY_S) };
  } catch {
    return { kind: 'other' };
  }
}

/**
 * When the video fails to load: a refused session (signout elsewhere, server restart) ends the
 * local one, which sends the visitor to the login with the expired notice; a server that is
 * temporarily unavailable gets the video asked again after its Retry-After, the visitor staying
 * in; anything else shows a message and a retry.
 */
export function useVideoProblem(videoRef: RefObject<HTMLVideoElement | null>) {
  const actorRef = AuthActor.useActorRef();
  const start = useHandoff().video;
  const [failed, setFailed] = useState<false | 'failed' | 'replaced'>(false);
  const [unavailable, setUnavailable] = useState(false);
  const checking = useRef(false);
  const retryTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(retryTimer.current), []);

  const onMediaError = async () => {
    // The <source> and the <video> can both report the same failure.
    if (checking.current) return;
    checking.current = true;
    try {
      let answer = await askServer();
      if (answer.kind === 'other' && (await publishGone().catch(() => false)))
        answer = { kind: 'replaced' };
      if (answer.kind === 'refused') actorRef.send({ type: 'session.refused' });
      else if (answer.kind === 'unavailable') {
        setUnavailable(true);
        clearTimeout(retryTimer.current);
        retryTimer.current = setTimeout(() => {
          setUnavailable(false);
          // A new failure comes back here and waits again.
          if (videoRef.current) start.reload(videoRef.current);
        }, answer.retryAfterS * 1000);
      } else setFailed(answer.kind === 'replaced' ? 'replaced' : 'failed');
    } finally {
      checking.current = false;
    }
  };

  /**
   * A video already buffered plays on after the server has ended the session (signout in
   * another browser, a restart); asking when playback starts ends the local session at once.
   * Not before the first frame: the requests that bring it ask the server anyway, and until then
   * the link is theirs.
   */
  const onPlay = async () => {
    const video = videoRef.current;
    if (!video || video.readyState < HTMLMediaElement.HAVE_CURRENT_DATA) return;
    if ((await askServer()).kind === 'refused') actorRef.send({ type: 'session.refused' });
  };

  return { failed, unavailable, onMediaError, onPlay, clear: () => setFailed(false) };
}
