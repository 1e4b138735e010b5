import bannerUrl from '../../assets/banner.svg';
import logoUrl from '../../assets/logo.svg';
import { AuthActor } from '../../auth/AuthProvider';
import { VIDEO_TITLE } from '../../boot/videoShell';
import { useDocumentTitle } from '../useDocumentTitle';
import { Background } from './Background';
import { Chapters } from './Chapters';
import { Player } from './Player';
import { SessionButton } from './SessionButton';
import { Transcript } from './Transcript';

/**
 * The training video screen; only rendered for a logged-in visitor (see routes.tsx). index.html
 * may already show its first render (src/boot/videoShell.ts); keep the two identical.
 */
export default function VideoPlayerScreen() {
  useDocumentTitle(VIDEO_TITLE);
  const actorRef = AuthActor.useActorRef();
  const nombres = AuthActor.useSelector((state) => state.context.session?.nombres ?? '');
  const empresa = AuthActor.useSelector((state) => state.context.session?.empresa ?? '');
  const label = `Hola ${nombres} / ${empresa}`;

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
        <SessionButton
          key={label}
          label={label}
          onLogout={() => actorRef.send({ type: 'logout' })}
        />
      </header>
      <main className="video-main">
        <h1 className="visually-hidden">Capacitación: manejo de silo bolsa, edición 2023</h1>
        <img
          className="banner"
          src={bannerUrl}
          alt="Capacitación: manejo de silo bolsa — edición 2023"
          width={1200}
          height={200}
        />
        <Player />
        <Chapters />
        <Transcript />
      </main>
    </div>
  );
}
