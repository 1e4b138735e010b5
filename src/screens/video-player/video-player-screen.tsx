import { useEffect, useRef, useState } from 'react';
import bannerUrl from '../../assets/banner.svg';
import logoUrl from '../../assets/logo.svg';
import { AuthActor } from '../../auth/auth-provider';
import { resilientStorage } from '../../auth/storage';
import { config } from '../../config';
import { useViewReport } from '../../field-report/page-reports';
import { readRecord, type DownloadRecord } from '../../offline/download-store';
import { copyStatus, forgetCopy } from '../../offline/offline-copy';
import { OfflineDownload } from '../../offline/offline-download';
import { SignoutChoice } from '../../offline/signout-choice';
import { registerWorkerWhenIdle } from '../../offline/register-worker';
import { VIDEO_TITLE, useDocumentTitle } from '../use-document-title';
import { Background } from './background';
import { Chapters } from './chapters';
import { Player } from './player';
import { SessionButton } from './session-button';
import { Transcript } from './transcript';
import { useAfterFirstFrame } from './use-player-video';
import { useTrack } from './use-track';

/**
 * The training video screen; only rendered for a logged-in visitor (see routes.tsx). The build
 * prerenders it into index.html, where the boot script shows it to a returning visitor before
 * the bundle arrives (src/boot/boot.ts); React then hydrates it.
 */
export default function VideoPlayerScreen() {
  useDocumentTitle(VIDEO_TITLE);
  const actorRef = AuthActor.useActorRef();
  const videoRef = useRef<HTMLVideoElement>(null);
  // The player's captions and the transcript: one file, fetched once for both, and like the
  // chapters only after the first frame.
  const afterFirstFrame = useAfterFirstFrame(videoRef);
  // What this view saw and how it played, for the company (docs/field-reports.md).
  useViewReport(videoRef, 'site');
  const captions = useTrack(config.captionsUrl, afterFirstFrame);
  // The offline worker, once the page has loaded what it precaches (register-worker.ts).
  useEffect(() => {
    if (afterFirstFrame) registerWorkerWhenIdle();
  }, [afterFirstFrame]);
  const nombres = AuthActor.useSelector((state) => state.context.session?.nombres ?? '');
  const empresa = AuthActor.useSelector((state) => state.context.session?.empresa ?? '');
  const label = `Hola ${nombres} / ${empresa}`;
  // A finished copy that outlives the session: the visitor says whether to keep it.
  const [asking, setAsking] = useState<DownloadRecord | null>(null);
  const logout = () => actorRef.send({ type: 'logout' });
  const askOrLogout = async () => {
    const record = await readRecord();
    if (copyStatus(record, Date.now()) === 'live') setAsking(record);
    else logout();
  };

  return (
    <div className="video-screen">
      <Background />
      <header className="topbar">
        <img
          className="topbar__logo"
          src={logoUrl}
          alt="Logo de la empresa"
          width={240}
          height={64}
        />
        {/* A new label (another tab logged in) is a new button, measured afresh. */}
        <SessionButton key={label} label={label} onLogout={() => void askOrLogout()} />
      </header>
      {asking && (
        <SignoutChoice
          record={asking}
          onKeep={logout}
          onDelete={() => void forgetCopy(resilientStorage()).then(logout)}
          onCancel={() => setAsking(null)}
        />
      )}
      <main className="video-main">
        <h1 className="visually-hidden">Capacitación: manejo de silo bolsa, edición 2023</h1>
        <img
          className="banner"
          src={bannerUrl}
          alt="Capacitación: manejo de silo bolsa — edición 2023"
          width={1200}
          height={200}
        />
        <Player videoRef={videoRef} captions={captions} />
        <OfflineDownload wanted={afterFirstFrame} videoRef={videoRef} />
        <Chapters videoRef={videoRef} wanted={afterFirstFrame} />
        <Transcript videoRef={videoRef} track={captions} />
      </main>
    </div>
  );
}
