import { useEffect } from 'react';
import { useIsLoggedIn } from '../auth/auth-provider';
import { deleteDownload } from './download-store';

/**
 * The download belongs to the session that made it: whenever the auth machine is not logged in
 * (the logout button, the timer, another tab's logout, a stored session refused at start, the
 * server refusing the video), the stored video, captions, chapters and poster go at once,
 * online or offline. The machine decides; this only follows its state.
 */
export function useDeleteDownloadWithSession() {
  const loggedIn = useIsLoggedIn();
  useEffect(() => {
    if (!loggedIn) void deleteDownload();
  }, [loggedIn]);
}
