import { useCallback, useEffect, useLayoutEffect, useRef, type FormEvent } from 'react';
import type { AuthEvent } from '../../../machines/authMachine';
import type { SigninResult } from '../../api/signin';
import logoUrl from '../../assets/logo.svg';
import { AuthActor } from '../../auth/AuthProvider';
import { dropVideoShell } from '../../boot/videoShell';
import { config } from '../../config';
import { preloadVideoPlayerScreen } from '../VideoPlayer/load';
import { useDocumentTitle } from '../useDocumentTitle';
import { useHydrated } from '../useHydrated';
import { LoginMessages } from './LoginMessages';
import { sameLoginView, selectLoginView } from './loginView';
import { useSignin } from './useSignin';
import './Login.css';

export const LOGIN_TITLE = 'Ingresar';

function eventFor(result: SigninResult): AuthEvent {
  switch (result.kind) {
    case 'ok':
      return { type: 'signin.succeeded', empresa: result.empresa, nombres: result.nombres };
    case 'wrong':
      return { type: 'signin.rejected' };
    case 'rateLimited':
      return { type: 'signin.rateLimited', retryAfterS: result.retryAfterS };
    case 'failed':
      return { type: 'signin.failed' };
  }
}

/**
 * The login screen. index.html carries the same markup, so that the form is on screen before
 * the JavaScript arrives; keep the two identical (tests/app/staticMarkup.test.tsx checks it).
 */
export function LoginScreen() {
  useDocumentTitle(LOGIN_TITLE);
  // index.html may have guessed the video screen from a stored session the machine refused.
  useLayoutEffect(dropVideoShell, []);
  const actorRef = AuthActor.useActorRef();
  const view = AuthActor.useSelector(selectLoginView, sameLoginView);
  // Before hydration a press of Enter would submit the form natively, password in the URL.
  const hydrated = useHydrated();
  const onResult = useCallback(
    (result: SigninResult) => actorRef.send(eventFor(result)),
    [actorRef],
  );
  const signin = useSignin(onResult);
  const passwordRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (view.kind === 'wrongPassword') passwordRef.current?.select();
  }, [view.kind]);

  const onSubmit = (formEvent: FormEvent<HTMLFormElement>) => {
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
    signin.run(event.password);
    preloadVideoPlayerScreen();
  };

  return (
    <main className="login">
      <h1 className="visually-hidden">Capacitación: manejo de silo bolsa</h1>
      <img className="login__logo" src={logoUrl} alt="Logo de la empresa" width={240} height={64} />
      <form className="login__form" noValidate onSubmit={onSubmit}>
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
        />
        <button className="button login__submit" type="submit" disabled={!hydrated}>
          Ingresar
        </button>
        <LoginMessages view={view} />
      </form>
      {signin.element}
    </main>
  );
}
