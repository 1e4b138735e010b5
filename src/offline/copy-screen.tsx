import { useEffect, useRef, useState } from 'react';
import logoUrl from '../assets/logo.svg';
import { useViewReport } from '../field-report/page-reports';
import { useDocumentTitle } from '../screens/use-document-title';
import { hasMediaSource } from '../screens/video-player/media-support';
import type { AdaptivePlayer } from '../video-start/contract';
import { copySource } from './copy-source';
import type { DownloadRecord } from './download-store';
import { copyStatus, untilText } from './offline-copy';

const COPY_GONE_MESSAGE =
  'La copia guardada ya no está completa en este teléfono: el navegador borró parte de ella para liberar espacio. Conéctese para descargarla de nuevo.';

const PLAY_ERROR_MESSAGE = 'No se pudo reproducir la copia guardada.';

interface Props {
  record: DownloadRecord;
  /** Whether a newer publish than the copy's is known (the page names another one). */
  outdated: boolean;
  onBack: () => void;
  /** The copy turned out unplayable (past its period, files missing): the caller forgets it. */
  onGone: () => void;
}

/**
 * The downloaded copy, played with no signal and without a session: the copy's own way in
 * (offline-copy.ts), opened from the login. Everything it shows comes from the phone's storage
 * (copy-source.ts); hls.js plays the stored rendition where the page plays with it, the video
 * element itself plays the MP4 (and, on iPhones without Media Source, the stored playlist
 * through the service worker).
 */
export default function CopyScreen({ record, outdated, onBack, onGone }: Props) {
  useDocumentTitle('Copia guardada');
  const videoRef = useRef<HTMLVideoElement>(null);
  const [tracks, setTracks] = useState<{ captions: string | null; poster: string | null }>({
    captions: null,
    poster: null,
  });
  const [problem, setProblem] = useState<string | null>(null);
  // No controls until the source is there: a play pressed before would be undone by its load.
  const [ready, setReady] = useState(false);
  const backRef = useRef<HTMLButtonElement>(null);
  // A view of the copy counts too: kept on the phone, sent when a session can take it.
  useViewReport(videoRef, 'copy');

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    let live = true;
    let release = () => {};
    let player: AdaptivePlayer | null = null;
    void (async () => {
      // Offered a while ago, maybe: past its period it plays no more.
      if (copyStatus(record, Date.now()) !== 'live') {
        setProblem(
          typeof record.until === 'number'
            ? `La copia guardada venció el ${untilText(record.until)} y se borró.`
            : COPY_GONE_MESSAGE,
        );
        return onGone();
      }
      const source = await copySource(record);
      if (!live) return source?.release();
      if (!source) {
        setProblem(COPY_GONE_MESSAGE);
        return onGone();
      }
      release = source.release;
      setTracks({ captions: source.captions, poster: source.poster });
      const play = (url: string) => {
        video.src = url;
        setReady(true);
      };
      if (source.kind === 'mp4') return play(source.url);
      // Native HLS cannot follow object URLs: the worker answers the stored files there.
      if (!hasMediaSource()) return play(record.finish.url);
      const { attachAdaptive } = await import('../video-start/adaptive-player');
      if (!live) return;
      player = attachAdaptive({
        video,
        masterUrl: source.url,
        fallBack: () => setProblem(PLAY_ERROR_MESSAGE),
        early: new Map(),
        handover: null,
        startDir: '',
        position: 0,
        estimateBps: 1_000_000,
        levelsFor: () => ({ level: -1, cap: -1 }),
        onEstimate: () => {},
        // The copy's playlist names its own stored key (copy-source.ts).
        keyFor: null,
      });
      if (player) setReady(true);
      else play(record.finish.url);
    })();
    return () => {
      live = false;
      player?.destroy();
      video.removeAttribute('src');
      video.load();
      release();
    };
  }, [record, onGone]);

  useEffect(() => backRef.current?.focus(), []);

  return (
    <div className="video-screen copy-screen">
      <header className="topbar">
        <img
          className="topbar__logo"
          src={logoUrl}
          alt="Logo de la empresa"
          width={240}
          height={64}
        />
        <button ref={backRef} className="session-button" type="button" onClick={onBack}>
          Volver al ingreso
        </button>
      </header>
      <main className="video-main">
        <h1 className="visually-hidden">
          Capacitación: manejo de silo bolsa, edición 2023 (copia guardada)
        </h1>
        <div className="player">
          <div className="player__slot">
            {/* The captions come with the copy when it has them. */}
            {/* eslint-disable-next-line jsx-a11y/media-has-caption */}
            <video
              ref={videoRef}
              className="player__video"
              controls={ready}
              playsInline
              preload="metadata"
              poster={tracks.poster ?? undefined}
              aria-label="Video de la capacitación (copia guardada)"
              onError={() => setProblem(PLAY_ERROR_MESSAGE)}
            >
              {tracks.captions && (
                <track kind="captions" srcLang="es" label="Español" src={tracks.captions} default />
              )}
            </video>
          </div>
          {problem && (
            <p className="player__problem" role="alert">
              {problem}
            </p>
          )}
        </div>
        <section className="offline" aria-label="Copia guardada">
          <p role="status">
            Copia guardada en este teléfono: se ve sin conexión
            {typeof record.until === 'number' ? ` hasta el ${untilText(record.until)}` : ''}.
            {outdated && ' Hay una versión más nueva del video: conéctese e ingrese para verla.'}
          </p>
        </section>
      </main>
    </div>
  );
}
