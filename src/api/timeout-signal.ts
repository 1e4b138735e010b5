/**
 * A signal that aborts after `ms`, or as soon as `signal` does. It does what AbortSignal.timeout
 * and AbortSignal.any do, which Safari gained only in 16 and 17.4, above the floor
 * (docs/browsers.md).
 */
export function timeoutSignal(ms: number, signal?: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    ms,
  );
  const follow = () => {
    clearTimeout(timer);
    controller.abort(signal?.reason);
  };
  if (signal?.aborted) follow();
  else signal?.addEventListener('abort', follow, { once: true });
  return controller.signal;
}
