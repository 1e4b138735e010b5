import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState, type ComponentType, type ReactNode } from 'react';
import { BrowserRouter } from 'react-router';
import type { ActorOptions } from 'xstate';
import type { AuthMachine } from '../machines/auth-machine';
import { createQueryClient } from './api/signin';
import { AuthActor, useCrossTabSession, usePendingSignout } from './auth/auth-provider';
import type { Handoff } from './boot/handoff';
import { Chunks, createAppChunks, type AppChunks } from './chunks';
import { ErrorBoundary } from './error-boundary';
import { createPageReports, PageReportsContext } from './field-report/page-reports';
import { HandoffContext } from './handoff-context';
import { useCopyLifetime } from './offline/use-copy-lifetime';
import { AppRoutes } from './routes';

/** Page-wide effects; renders nothing, so it does not disturb the adopted markup. */
function PageEffects() {
  useCrossTabSession();
  usePendingSignout();
  useCopyLifetime();
  return null;
}

interface Props {
  machine: AuthMachine;
  /** The boot's (main.tsx), or the app's own where no boot ran (src/boot/own-handoff.ts). */
  handoff: Handoff;
  /** Tests pass a fresh one; the app makes its own. */
  queryClient?: QueryClient;
  /** main.tsx passes the ones it already started; tests pass their own loaders. */
  chunks?: AppChunks;
  /** Tests pass a simulated clock for the session timer. */
  actorOptions?: ActorOptions<AuthMachine>;
  /** The build's prerender, which has no browser, passes a router at a fixed address. */
  Router?: ComponentType<{ children: ReactNode }>;
}

export const APP_ERROR_MESSAGE = 'Algo salió mal al mostrar la página. Intente nuevamente.';

export function App({
  machine,
  handoff,
  queryClient,
  chunks,
  actorOptions,
  Router = BrowserRouter,
}: Props) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  const [appChunks] = useState(() => chunks ?? createAppChunks());
  const [pageReports] = useState(() => createPageReports(handoff.video));
  return (
    <ErrorBoundary message={APP_ERROR_MESSAGE}>
      <QueryClientProvider client={client}>
        <Chunks.Provider value={appChunks}>
          <HandoffContext.Provider value={handoff}>
            <PageReportsContext.Provider value={pageReports}>
              <AuthActor.Provider logic={machine} options={actorOptions}>
                <PageEffects />
                <Router>
                  <AppRoutes />
                </Router>
              </AuthActor.Provider>
            </PageReportsContext.Provider>
          </HandoffContext.Provider>
        </Chunks.Provider>
      </QueryClientProvider>
    </ErrorBoundary>
  );
}
