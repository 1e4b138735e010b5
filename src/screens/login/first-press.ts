/**
 * A press of "Ingresar" before the app's bundle is there. The login paints from index.html at
 * once, but on a slow link the bundle comes seconds later; the boot script answers the form
 * until then and starts the signin, and the login screen hands that signin to the machine when
 * it is live (through the boot's hand-off, src/boot/handoff.ts), so the machine still decides
 * what it means. The whole story: docs/video-start.md.
 */
import { signin, type SigninResult } from '../../api/signin';
import { SUBMITTING_MESSAGE } from './login-view';

export const LOGIN_FORM_CLASS = 'login__form';

export interface EarlySignin {
  password: string;
  result: Promise<SigninResult>;
  /** The result, once it came. */
  settled?: SigninResult;
}

export type SignedIn = Extract<SigninResult, { kind: 'ok' }>;

/**
 * The boot script's part: answers the form until the app does; `onPress` hears the start of a
 * signin, `onSignedIn` its success (the signin is kept for the app all the same: the machine
 * decides it). Returns the login screen's part: the signin started, if any, taken once when the
 * screen is live, after which React answers the form.
 */
export function answerBeforeApp(
  form: HTMLFormElement,
  { onPress, onSignedIn }: { onPress: () => void; onSignedIn: (result: SignedIn) => void },
): () => EarlySignin | undefined {
  let early: EarlySignin | undefined;
  let answeredByApp = false;
  // index.html has it disabled: with no script at all, a press would put the password in the URL.
  form.querySelector('button[type="submit"]')?.removeAttribute('disabled');
  form.addEventListener('submit', (event) => {
    if (answeredByApp) return;
    event.preventDefault();
    const password = new FormData(form).get('password');
    // As the machine does: an empty password, or a signin already out, does nothing.
    if (typeof password !== 'string' || password === '' || early) return;
    const status = form.querySelector('[role="status"]');
    if (status) status.textContent = SUBMITTING_MESSAGE;
    const started: EarlySignin = { password, result: signin(password) };
    early = started;
    void started.result.then((result) => {
      started.settled = result;
      if (result.kind === 'ok') onSignedIn(result);
    });
    onPress();
  });
  return () => {
    answeredByApp = true;
    const taken = early;
    early = undefined;
    return taken;
  };
}
