import { useEffect, useRef } from 'react';
import type { DownloadRecord } from './download-store';
import { untilText } from './offline-copy';

interface Props {
  record: DownloadRecord;
  onKeep: () => void;
  onDelete: () => void;
  onCancel: () => void;
}

/**
 * Asked at the signout when a finished copy is stored: a double tap on the greeting must not
 * delete a download paid for by the megabyte. Keeping it is the default (the focused button).
 */
export function SignoutChoice({ record, onKeep, onDelete, onCancel }: Props) {
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    keepRef.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onCancel();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div className="signout-choice__backdrop">
      <div
        className="signout-choice"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="signout-choice-title"
        aria-describedby="signout-choice-text"
      >
        <h2 id="signout-choice-title">¿Qué hacemos con la copia descargada?</h2>
        <p id="signout-choice-text">
          {typeof record.until === 'number'
            ? `Si la conserva, podrá verla en este teléfono sin conexión hasta el ${untilText(record.until)}, aun con la sesión cerrada.`
            : 'Si la conserva, podrá verla en este teléfono sin conexión.'}
        </p>
        <div className="signout-choice__actions">
          <button ref={keepRef} className="button" type="button" onClick={onKeep}>
            Conservar la copia y cerrar sesión
          </button>
          <button className="button button--secondary" type="button" onClick={onDelete}>
            Borrar la copia y cerrar sesión
          </button>
          <button className="button button--quiet" type="button" onClick={onCancel}>
            Cancelar
          </button>
        </div>
      </div>
    </div>
  );
}
