import { useEffect } from 'react';

const SITE_NAME = 'Capacitación silo bolsa';

/** The video screen's, which the boot script sets before the screen's chunk arrives. */
export const VIDEO_TITLE = 'Video';

export const documentTitle = (screen: string) => `${screen} — ${SITE_NAME}`;

export function useDocumentTitle(screen: string) {
  useEffect(() => {
    document.title = documentTitle(screen);
  }, [screen]);
}
