import { useRef, useState } from 'react';
import { AuthActor } from '../../auth/AuthProvider';
import { config } from '../../config';

/** Did the server refuse the session? The media element cannot tell a 401 from a bad file. */
async function sessionRefused(): Promise<boolean> {
  try {
    const response = await fetch(config.videoUrl, {
      method: 'HEAD',
      credentials: 'include',
      cache: 'no-store',
    });
    return response.status === 401;
  } catch {
    return false;
  }
}

/**
 * When the video fails to load: a refused session (signout elsewhere, server restart) ends the
 * local one, which sends the visitor to the login with the expired notice; anything else shows
 * a message and a retry.
 */
export function useVideoProblem() {
  const actorRef = AuthActor.useActorRef();
  const [failed, setFailed] = useState(false);
  const checking = useRef(false);

  const onMediaError = async () => {
    // The <source> and the <video> can both report the same failure.
    if (checking.current) return;
    checking.current = true;
    try {
      if (await sessionRefused()) actorRef.send({ type: 'session.refused' });
      else setFailed(true);
    } finally {
      checking.current = false;
    }
  };

  /**
   * A video already buffered plays on after the server has ended the session (signout in
   * another browser, a restart); asking when playback starts ends the local session at once.
   */
  const onPlay = async () => {
    if (await sessionRefused()) actorRef.send({ type: 'session.refused' });
  };

  return { failed, onMediaError, onPlay, clear: () => setFailed(false) };
}
