import { useEffect } from 'react';

export const SITE_NAME = 'Capacitación silo bolsa';

export const documentTitle = (screen: string) => `${screen} — ${SITE_NAME}`;

export function useDocumentTitle(screen: string) {
  useEffect(() => {
    document.title = documentTitle(screen);
  }, [screen]);
}
