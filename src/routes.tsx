import { useEffect, type ReactNode } from 'react';
import { Navigate, Route, Routes, useNavigate } from 'react-router';
import { createActor } from 'xstate';
import type { AuthMachine } from '../machines/auth-machine';
import { SCREEN_PATHS } from '../config/paths';
import { useIsLoggedIn } from './auth/auth-provider';
import { useChunks } from './chunks';
import { config } from './config';
import { LoginScreen } from './screens/login/login-screen';
import { VideoPlayerRoute } from './screens/video-player/video-player-route';

export const PATHS = {
  login: `${config.basePath}${SCREEN_PATHS.login}`,
  video: `${config.basePath}${SCREEN_PATHS.video}`,
} as const;

/** The video screen is for logged-in visitors; logout and expiry send them to the login. */
function RequireSession({ children }: { children: ReactNode }) {
  return useIsLoggedIn() ? children : <Navigate to={PATHS.login} replace />;
}

/**
 * A logged-in visitor has nothing to do on the login screen. It stays, saying "Cargando...",
 * until the video screen's chunk is here (or failed, which the video route then says): a
 * `<Navigate>` would paint an empty page, and the route the lazy screen's fallback.
 */
function RedirectWhenLoggedIn({ children }: { children: ReactNode }) {
  const loggedIn = useIsLoggedIn();
  const navigate = useNavigate();
  const chunk = useChunks().videoPlayer;
  useEffect(() => {
    if (!loggedIn) return;
    let current = true;
    const go = () => current && void navigate(PATHS.video, { replace: true });
    if (chunk.loaded()) go();
    else chunk.load().then(go, go);
    return () => {
      current = false;
    };
  }, [loggedIn, navigate, chunk]);
  return children;
}

/**
 * Full paths rather than a router basename: with a basename, React Router renders nothing at
 * all outside it, and every path, inside the base or not, must end at the login. Declarative
 * routes: the data router (loaders, actions) would add to the login page's bytes
 * (docs/benchmarks.md) for features this app does not use.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route
        path={PATHS.login}
        element={
          <RedirectWhenLoggedIn>
            <LoginScreen />
          </RedirectWhenLoggedIn>
        }
      />
      <Route
        path={PATHS.video}
        element={
          <RequireSession>
            <VideoPlayerRoute />
          </RequireSession>
        }
      />
      <Route path="*" element={<Navigate to={PATHS.login} replace />} />
    </Routes>
  );
}

/**
 * Where the first render will land, decided before it happens, and the address set to it: the
 * router would redirect there anyway (a visitor without a session ends at the login whatever
 * the address, one with a session at the video), and React can then adopt the screen that
 * index.html shows, which was rendered at that very route. Reads the session through the
 * machine (not started, so nothing runs).
 */
export function settleFirstRoute(machine: AuthMachine): 'login' | 'video' {
  const route = createActor(machine).getSnapshot().matches('loggedIn') ? 'video' : 'login';
  if (window.location.pathname !== PATHS[route])
    window.history.replaceState(null, '', PATHS[route]);
  return route;
}
