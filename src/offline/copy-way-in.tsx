import { useEffect, useState } from 'react';
import { resilientStorage } from '../auth/storage';
import { useHydrated } from '../screens/use-hydrated';
import { hasMediaSource, readMediaInfo } from '../screens/video-player/media-support';
import type { DownloadRecord } from './download-store';
import { copyStatus, isCopyOf, settleCopy, takeEndedMessage, untilText } from './offline-copy';
import { useOnline } from './use-online';

export interface OpenCopy {
  record: DownloadRecord;
  outdated: boolean;
}

/**
 * On the login: the downloaded copy, one tap away, whatever became of the session
 * (offline-copy.ts). Offered whenever a copy is within its period, not only when the browser
 * says it is offline: in the field a phone often shows a signal that carries nothing, and the
 * copy costs no data. Everything else still needs the password. Also says, once, that a copy is
 * gone.
 */
export function CopyWayIn({
  networkFailed,
  onOpen,
}: {
  networkFailed: boolean;
  onOpen: (copy: OpenCopy) => void;
}) {
  const hydrated = useHydrated();
  const online = useOnline();
  const [record, setRecord] = useState<DownloadRecord | null>(null);
  const [ended, setEnded] = useState<string | null>(null);

  useEffect(() => {
    if (!hydrated) return;
    let live = true;
    const storage = resilientStorage();
    // Settled here too (it is idempotent): what is offered is what the rules leave.
    void settleCopy(storage, { loggedIn: false, nowMs: Date.now() }).then((stored) => {
      if (!live) return;
      setRecord(copyStatus(stored, Date.now()) === 'live' ? stored : null);
      setEnded((shown) => shown ?? takeEndedMessage(storage));
    });
    return () => {
      live = false;
    };
  }, [hydrated, online]);

  const noSignal = !online || networkFailed;
  // Native HLS (iPhones without Media Source) plays the copy through the worker, which asks
  // the network first: there it is offered only with no signal.
  const offer = record && (noSignal || record.kind === 'mp4' || hasMediaSource()) ? record : null;
  if (!offer && !ended) return null;
  return (
    <section className="login__copy" aria-label="Copia guardada">
      {ended && <p role="status">{ended}</p>}
      {offer && (
        <>
          <p>
            {noSignal && 'Sin conexión. '}Tiene una copia del video guardada en este teléfono: se ve
            sin conexión hasta el {untilText(offer.until!)}.
          </p>
          <button
            className="button"
            type="button"
            onClick={() => {
              const info = readMediaInfo();
              onOpen({
                record: offer,
                outdated: !!info && offer.kind === 'hls' && !isCopyOf(info, offer),
              });
            }}
          >
            Ver la copia guardada
          </button>
        </>
      )}
    </section>
  );
}
