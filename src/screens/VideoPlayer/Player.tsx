import { useLayoutEffect, useRef, useState } from 'react';
import { resilientStorage } from '../../auth/storage';
import { createPlayerVideo, takeShellVideo } from '../../boot/videoShell';
import { config } from '../../config';
import { useKeyboardShortcuts } from './useKeyboardShortcuts';
import { QualityMenu } from './QualityMenu';
import { useAdaptiveSource } from './useAdaptiveSource';
import { positionKey, useResumePosition } from './useResumePosition';
import { useVideoProblem } from './useVideoProblem';

export const VIDEO_ERROR_MESSAGE = 'No se pudo cargar el video. Revise su conexión.';

export function Player() {
  const slotRef = useRef<HTMLDivElement>(null);
  const videoRef = useRef<HTMLVideoElement>(null);
  const [storage] = useState(() => resilientStorage());
  useResumePosition(videoRef, positionKey(config.videoUrl), storage);
  useKeyboardShortcuts(videoRef);
  const problem = useVideoProblem();
  const { failed, clear } = problem;
  // The listeners are attached once; they call this render's handlers.
  const handlers = useRef(problem);
  useLayoutEffect(() => {
    handlers.current = problem;
  });
  const adaptive = useAdaptiveSource(videoRef, storage, () => void handlers.current.onMediaError());

  // The <video> is not rendered by React: the one index.html started before the bundle arrived
  // (src/boot/videoShell.ts) is adopted, already loading; without it, an identical one is made.
  // Layout effect: the element is in place before the other hooks' effects read videoRef.
  useLayoutEffect(() => {
    const slot = slotRef.current;
    if (!slot) return;
    let failedEarly = false;
    let focusedEarly = false;
    if (!videoRef.current) {
      const early = takeShellVideo();
      failedEarly = early?.failed ?? false;
      focusedEarly = early?.focused ?? false;
      videoRef.current = early?.video ?? createPlayerVideo(config);
    }
    const video = videoRef.current;
    const source = video.querySelector('source');
    const onError = () => void handlers.current.onMediaError();
    const onPlay = () => void handlers.current.onPlay();
    video.addEventListener('error', onError);
    source?.addEventListener('error', onError);
    video.addEventListener('play', onPlay);
    slot.append(video);
    if (focusedEarly) video.focus();
    if (failedEarly) onError();
    return () => {
      video.removeEventListener('error', onError);
      source?.removeEventListener('error', onError);
      video.removeEventListener('play', onPlay);
    };
  }, []);

  const retry = () => {
    clear();
    videoRef.current?.load();
  };

  return (
    <div className="player">
      <div ref={slotRef} className="player__slot" />
      {adaptive && <QualityMenu source={adaptive} />}
      {failed && (
        <p className="player__problem" role="alert">
          {VIDEO_ERROR_MESSAGE}{' '}
          <button className="button" type="button" onClick={retry}>
            Reintentar
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
