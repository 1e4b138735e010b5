/**
 * A press of "Ingresar" before the app's bundle is there. The login paints from index.html at
 * once, but on a slow link the bundle comes seconds later; the boot script answers the form
 * until then and starts the signin, and the login screen hands that signin to the machine when
 * it is live, so the machine still decides what it means. The form element carries what the two
 * bundles share. The whole story: docs/video-start.md.
 */
import { signin, type SigninResult } from '../../api/signin';
import { SUBMITTING_MESSAGE } from './login-view';

export const LOGIN_FORM_CLASS = 'login__form';

interface EarlySignin {
  password: string;
  result: Promise<SigninResult>;
}

declare global {
  interface HTMLFormElement {
    /** The signin the boot script started, taken once by the login screen. */
    earlySignin?: EarlySignin;
    /** Set by the login screen when it is live: from then on React answers the form. */
    answeredByApp?: boolean;
    /**
     * Set by the boot script, called on a signin's success by whoever answered it: the video's
     * first requests leave at once (startAhead in video-start.ts, which the login's bundle
     * does not carry).
     */
    signedIn?: () => void;
  }
}

/**
 * The boot script's part: answers the form until the app does; `onSignin` hears the start,
 * `signedIn` its success (and the app's).
 */
export function answerBeforeApp(form: HTMLFormElement, onSignin: () => void, signedIn: () => void) {
  form.signedIn = signedIn;
  // index.html has it disabled: with no script at all, a press would put the password in the URL.
  form.querySelector('button[type="submit"]')?.removeAttribute('disabled');
  form.addEventListener('submit', (event) => {
    if (form.answeredByApp) return;
    event.preventDefault();
    const password = new FormData(form).get('password');
    // As the machine does: an empty password, or a signin already out, does nothing.
    if (typeof password !== 'string' || password === '' || form.earlySignin) return;
    const status = form.querySelector('[role="status"]');
    if (status) status.textContent = SUBMITTING_MESSAGE;
    form.earlySignin = { password, result: signin(password) };
    void form.earlySignin.result.then(({ kind }) => kind === 'ok' && signedIn());
    onSignin();
  });
}

/** The login screen's part, once live: the signin the boot script started, if any (once). */
export function takeEarlySignin(form: HTMLFormElement | null): EarlySignin | undefined {
  if (!form) return undefined;
  form.answeredByApp = true;
  const early = form.earlySignin;
  delete form.earlySignin;
  return early;
}
