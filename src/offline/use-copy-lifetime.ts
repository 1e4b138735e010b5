import { useEffect, useState } from 'react';
import { useIsLoggedIn } from '../auth/auth-provider';
import { resilientStorage } from '../auth/storage';
import { settleCopy } from './offline-copy';

/** setTimeout's longest wait; a longer period is looked at again then. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Keeps the stored copy to its rules (offline-copy.ts) on every page: when the page opens, when
 * the session ends (the logout button, the timer, another tab, a stored session refused at start,
 * the server refusing the video), when the phone wakes the page, and at the end of its period.
 * The machine decides the session; this only follows its state.
 */
export function useCopyLifetime() {
  const loggedIn = useIsLoggedIn();
  const [storage] = useState(() => resilientStorage());
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = async () => {
      clearTimeout(timer);
      const record = await settleCopy(storage, { loggedIn, nowMs: Date.now() });
      if (live && typeof record?.until === 'number')
        timer = setTimeout(settle, Math.min(Math.max(record.until - Date.now(), 0), MAX_TIMER_MS));
    };
    const onVisible = () => document.visibilityState === 'visible' && void settle();
    void settle();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      live = false;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [loggedIn, storage]);
}
