import { useEffect, useState, type ReactNode } from 'react';
import { SUBMITTING_MESSAGE, type LoginView } from './login-view';

const MESSAGES = {
  submitting: SUBMITTING_MESSAGE,
  wrongPassword: 'Error, contraseña incorrecta',
  network: 'No se pudo conectar con el servidor. Intente nuevamente.',
  expired: 'Su sesión expiró. Ingrese nuevamente.',
  canRetry: 'Ya puede intentar nuevamente.',
} as const;

function waitText(seconds: number): string {
  // Long waits read better in minutes; short ones count down second by second.
  if (seconds > 120) return `${Math.ceil(seconds / 60)} minutos`;
  return seconds === 1 ? '1 segundo' : `${seconds} segundos`;
}

function useSecondsLeft(totalS: number): number {
  const [deadline] = useState(() => Date.now() + totalS * 1000);
  const [now, setNow] = useState(() => Date.now());
  const left = Math.max(0, Math.ceil((deadline - now) / 1000));
  useEffect(() => {
    if (left === 0) return;
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, [left]);
  return left;
}

function RateLimited({ retryAfterS }: { retryAfterS: number }) {
  const left = useSecondsLeft(retryAfterS);
  if (left === 0) return MESSAGES.canRetry;
  // The count is announced once, with the message, not every second.
  return (
    <>
      Demasiados intentos. Espere <span aria-live="off">{waitText(left)}</span> e intente
      nuevamente.
    </>
  );
}

/**
 * Two live regions that are always in the page (and in index.html), so that screen readers
 * hear what is put in them: a polite one for progress and notices, an assertive one for errors.
 */
export function LoginMessages({ view }: { view: LoginView }) {
  const status =
    view.kind === 'submitting'
      ? MESSAGES.submitting
      : view.kind === 'expired'
        ? MESSAGES.expired
        : '';
  let error: ReactNode = '';
  if (view.kind === 'wrongPassword') error = MESSAGES.wrongPassword;
  else if (view.kind === 'network') error = MESSAGES.network;
  else if (view.kind === 'rateLimited') error = <RateLimited retryAfterS={view.retryAfterS} />;
  return (
    <div id="login-messages" className="login__messages">
      {/* The boot script may have written "Cargando..." here before React came (first-press.ts). */}
      <p
        role="status"
        className={view.kind === 'expired' ? 'login__notice' : 'login__message'}
        suppressHydrationWarning
      >
        {status}
      </p>
      <p role="alert" className="login__message">
        {error}
      </p>
    </div>
  );
}
