import type { QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { BrowserRouter } from 'react-router';
import type { ActorOptions } from 'xstate';
import type { AuthMachine } from '../machines/authMachine';
import { InjectedQueryClient } from './api/injectedQueryClient';
import { AuthActor, useCrossTabSession } from './auth/AuthProvider';
import { config } from './config';
import { AppRoutes } from './routes';
import { reportWebVitals } from './vitals';

/** Page-wide effects; renders nothing, so it does not disturb the adopted login markup. */
function PageEffects() {
  useCrossTabSession();
  useEffect(() => {
    void reportWebVitals(config.webVitalsUrl);
  }, []);
  return null;
}

interface Props {
  machine: AuthMachine;
  /** Tests pass a fresh one; the app makes its own when the signin is first needed. */
  queryClient?: QueryClient;
  /** Tests pass a simulated clock for the session timer. */
  actorOptions?: ActorOptions<AuthMachine>;
}

export function App({ machine, queryClient, actorOptions }: Props) {
  return (
    <InjectedQueryClient.Provider value={queryClient}>
      <AuthActor.Provider logic={machine} options={actorOptions}>
        <PageEffects />
        <BrowserRouter>
          <AppRoutes />
        </BrowserRouter>
      </AuthActor.Provider>
    </InjectedQueryClient.Provider>
  );
}
