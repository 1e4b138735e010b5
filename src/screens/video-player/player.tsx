import { useLayoutEffect, useRef, useState } from 'react';
import { resilientStorage } from '../../auth/storage';
import { config } from '../../config';
import { QualityMenu } from './quality-menu';
import { useAdaptiveSource } from './use-adaptive-source';
import { useKeyboardShortcuts } from './use-keyboard-shortcuts';
import type { VideoRef } from './use-player-video';
import { useResumePosition } from './use-resume-position';
import { useTrackCues, type TrackState } from './use-track';
import { useVideoProblem, VIDEO_UNAVAILABLE_MESSAGE } from './use-video-problem';
import { useHandoff } from '../../handoff-context';
import { forgetPageCopy } from '../../offline/register-worker';

const VIDEO_ERROR_MESSAGE = 'No se pudo cargar el video. Revise su conexión.';
const VIDEO_REPLACED_MESSAGE = 'El video se volvió a publicar y esta página ya no lo tiene.';

/**
 * The video with its controls, captions and problems; the screen holds its ref (the panels follow
 * it). The captions track's file is the transcript's (`captions`); without a cue in it, the
 * player offers no empty track.
 */
export function Player({ videoRef, captions }: { videoRef: VideoRef; captions: TrackState }) {
  const [storage] = useState(() => resilientStorage());
  const start = useHandoff().video;
  useResumePosition(videoRef, config.videoUrl, storage);
  useKeyboardShortcuts(videoRef);
  const { failed, unavailable, clear, onMediaError, onPlay } = useVideoProblem(videoRef);
  const adaptive = useAdaptiveSource(videoRef, storage, () => void onMediaError());
  const captionsRef = useRef<HTMLTrackElement>(null);
  useTrackCues(captionsRef, captions);

  // The prerendered video may have failed before React adopted it: its error event is gone by
  // then, and the element keeps the error until its next load.
  useLayoutEffect(() => {
    if (videoRef.current?.error) void onMediaError();
    // Once, for the element React adopted.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const retry = () => {
    clear();
    // A new page names the publish that replaced this one: not the worker's copy of this one.
    if (failed === 'replaced') void forgetPageCopy().finally(() => location.reload());
    else if (videoRef.current) start.reload(videoRef.current);
  };

  return (
    <div className="player">
      <div className="player__slot">
        {/* No src here: video-start.ts owns the source (maybe set by the boot script before
            React hydrates this element), and a src prop would start the video a second time.
            Nor a poster: it sets that too, when it no longer competes with the start. */}
        {/* Without a cue there is nothing to caption; the transcript panel says so. */}
        {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
        <video
          ref={videoRef}
          className="player__video"
          controls
          playsInline
          preload="metadata"
          data-poster={config.posterUrl}
          aria-label="Video de la capacitación"
          suppressHydrationWarning
          onError={() => void onMediaError()}
          onPlay={() => void onPlay()}
        >
          {captions.status !== 'missing' && (
            <track ref={captionsRef} kind="captions" srcLang="es" label="Español" default />
          )}
        </video>
      </div>
      <QualityMenu source={adaptive} />
      {unavailable && (
        <p className="player__problem" role="status">
          {VIDEO_UNAVAILABLE_MESSAGE}
        </p>
      )}
      {failed && (
        <p className="player__problem" role="alert">
          {failed === 'replaced' ? VIDEO_REPLACED_MESSAGE : VIDEO_ERROR_MESSAGE}{' '}
          <button className="button" type="button" onClick={retry}>
            {failed === 'replaced' ? 'Cargar de nuevo' : 'Reintentar'}
          </button>
        </p>
      )}
      <p className="player__help">
        Atajos de teclado: espacio o K reproduce y pausa; J y L, o las flechas, retroceden y avanzan
        10 segundos; M silencia; F pantalla completa; C subtítulos.
      </p>
    </div>
  );
}
