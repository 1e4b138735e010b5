import {
  Suspense,
  lazy,
  useCallback,
  useEffect,
  useLayoutEffect,
  useReducer,
  useRef,
  useState,
  type FormEvent,
} from 'react';
import type { AuthEvent } from '../../../machines/auth-machine';
import { useSigninMutation, type SigninResult } from '../../api/signin';
import logoUrl from '../../assets/logo.svg';
import { AuthActor, signinEvent } from '../../auth/auth-provider';
import { preload, useChunks } from '../../chunks';
import { config } from '../../config';
import { useHandoff } from '../../handoff-context';
import { resilientStorage } from '../../auth/storage';
import { CopyWayIn, type OpenCopy } from '../../offline/copy-way-in';
import { forgetCopy } from '../../offline/offline-copy';
import { useDocumentTitle } from '../use-document-title';
import { useHydrated } from '../use-hydrated';
import { LOGIN_FORM_CLASS } from './first-press';
import { LoginMessages } from './login-messages';
import { sameLoginView, selectLoginView } from './login-view';
import './login.css';

const LOGIN_TITLE = 'Ingresar';

/** The downloaded copy's screen: a chunk of its own, which the service worker keeps. */
const CopyScreen = lazy(() => import('../../offline/copy-screen'));

/**
 * The login screen. The build prerenders it into index.html (scripts/build/prerender.ts), so that the
 * form is on screen before the JavaScript arrives; React then hydrates it.
 */
export function LoginScreen() {
  useDocumentTitle(LOGIN_TITLE);
  const actorRef = AuthActor.useActorRef();
  const chunks = useChunks();
  const handoff = useHandoff();
  const view = AuthActor.useSelector(selectLoginView, sameLoginView);
  // Before hydration a press of Enter would submit the form natively, password in the URL.
  const hydrated = useHydrated();
  const passwordRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const toMachine = useCallback(
    (result: SigninResult) => {
      if (result.kind === 'ok') handoff.video.signedIn(result.videoKey);
      actorRef.send(signinEvent(result));
    },
    [actorRef, handoff],
  );
  const signin = useSigninMutation(toMachine);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const [copy, setCopy] = useState<OpenCopy | null>(null);
  const closeCopy = useCallback(() => setCopy(null), []);
  const copyGone = useCallback(() => void forgetCopy(resilientStorage()), []);

  // A press the boot script answered before React came: its signin goes to the machine now.
  useLayoutEffect(() => {
    const early = handoff.takeEarlySignin();
    if (!early) return;
    const event: AuthEvent = {
      type: 'submit',
      username: config.username,
      password: early.password,
    };
    if (!actorRef.getSnapshot().can(event)) return;
    actorRef.send(event);
    // The store's subscription only starts in a passive effect: without a render now, an answer
    // already in would reach the screen with "submitting" never rendered, and React, which
    // hydrated the status as '', would leave the boot script's "Cargando..." beside the error.
    rerender();
    void early.result.then(toMachine);
    preload(chunks.videoPlayer);
  }, [actorRef, chunks, handoff, toMachine]);

  useEffect(() => {
    if (view.kind === 'wrongPassword') passwordRef.current?.select();
  }, [view.kind]);

  // Typed before the app came (the field is the prerendered page's): as at a keystroke below.
  useEffect(() => {
    if (passwordRef.current?.value) preload(chunks.videoPlayer);
  }, [chunks]);

  const onSubmit = (formEvent: FormEvent<HTMLFormElement>) => {
    // Already answered by the boot script (a press while React was adopting the page).
    if (formEvent.defaultPrevented) return;
    formEvent.preventDefault();
    const password = new FormData(formEvent.currentTarget).get('password');
    const event: AuthEvent = {
      type: 'submit',
      username: config.username,
      password: typeof password === 'string' ? password : '',
    };
    // The machine decides: an empty password, or a signin already in flight, does nothing.
    if (!actorRef.getSnapshot().can(event)) return;
    actorRef.send(event);
    signin.mutate(event.password);
    preload(chunks.videoPlayer);
  };

  if (copy)
    return (
      <Suspense
        fallback={
          <p className="screen-message" role="status">
            Cargando la copia guardada...
          </p>
        }
      >
        <CopyScreen {...copy} onBack={closeCopy} onGone={copyGone} />
      </Suspense>
    );

  return (
    <main className="login">
      <h1 className="visually-hidden">Capacitación: manejo de silo bolsa</h1>
      <img className="login__logo" src={logoUrl} alt="Logo de la empresa" width={240} height={64} />
      <form ref={formRef} className={LOGIN_FORM_CLASS} noValidate onSubmit={onSubmit}>
        <input
          type="text"
          name="username"
          defaultValue={config.username}
          autoComplete="username"
          readOnly
          hidden
        />
        <label className="login__label" htmlFor="password">
          Contraseña
        </label>
        <input
          ref={passwordRef}
          className="login__input"
          id="password"
          name="password"
          type="password"
          placeholder="Ingresar contraseña"
          required
          autoComplete="current-password"
          aria-describedby="login-messages"
          aria-invalid={view.kind === 'wrongPassword' ? true : undefined}
          // Typing, the link is idle: asked at the press, the chunk shared it with the second
          // segment and came after the signin's answer (docs/benchmarks.md). Left alone, never.
          onInput={() => preload(chunks.videoPlayer)}
        />
        {/* The boot script enables it at once (first-press.ts); React agrees once it is live. */}
        <button
          className="button login__submit"
          type="submit"
          disabled={!hydrated}
          suppressHydrationWarning
        >
          Ingresar
        </button>
        <LoginMessages view={view} />
      </form>
      <CopyWayIn networkFailed={view.kind === 'network'} onOpen={setCopy} />
    </main>
  );
}
