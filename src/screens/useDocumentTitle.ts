import { useEffect } from 'react';

export const SITE_NAME = 'Capacitación silo bolsa';

export function useDocumentTitle(screen: string) {
  useEffect(() => {
    document.title = `${screen} — ${SITE_NAME}`;
  }, [screen]);
}
