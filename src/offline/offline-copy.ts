/**
 * The downloaded copy's own period. A download is made in town to be watched in the field, so
 * it outlives the session: it plays with no signal for OFFLINE_COPY_DAYS (the server writes it
 * on the page) from the moment it was finished; 0 keeps the old rule, the copy ends with the
 * session. The auth machine's rules are untouched: online, an ended session still needs the
 * password; the copy is its own way in, offline only (copy-screen.tsx).
 *
 * What this phone was told about its copy is kept beside it in local storage (COPY_NOTE_KEY),
 * so that a copy deleted at its period's end, or evicted by the browser under storage pressure,
 * is reported once as gone instead of silently missing.
 */
import { COPY_DAYS_ATTRIBUTE, type MediaInfo } from '../../config/media-layout';
import type { SessionStorage } from '../../machines/session';
import { deleteDownload, publishOf, readRecord, type DownloadRecord } from './download-store';

const DAY_MS = 86_400_000;

/** The days the page says a copy lasts; 0 when it says nothing (a dev server, an old page). */
export function copyDays(root: Element = document.documentElement): number {
  const days = Number(root.getAttribute(COPY_DAYS_ATTRIBUTE) ?? 0);
  return Number.isInteger(days) && days > 0 ? days : 0;
}

/** When a copy finished at `doneAtMs` stops playing; null: it ends with the session. */
export const copyUntil = (doneAtMs: number, days: number): number | null =>
  days > 0 ? doneAtMs + days * DAY_MS : null;

/**
 * - `unfinished`: a download under way or stopped; it belongs to the session.
 * - `sessionOnly`: finished, with no period of its own (OFFLINE_COPY_DAYS=0, or an older copy).
 * - `live`: finished and within its period: it plays with no signal, session or not.
 * - `expired`: its period is over: deleted at the next look.
 */
export type CopyStatus = 'none' | 'unfinished' | 'sessionOnly' | 'live' | 'expired';

export function copyStatus(record: DownloadRecord | null, nowMs: number): CopyStatus {
  if (!record) return 'none';
  if (!record.done) return 'unfinished';
  if (typeof record.until !== 'number') return 'sessionOnly';
  return nowMs < record.until ? 'live' : 'expired';
}

/** Whether a stored adaptive download is of the publish `info` describes (else a newer exists). */
export const isCopyOf = (info: MediaInfo, record: DownloadRecord) =>
  info.rungs.some((rung) => publishOf(info, rung.dir) === record.publish);

/** "3 de diciembre" (and the year when it is not this one's), as the screens say it. */
export function untilText(untilMs: number, nowMs: number = Date.now()): string {
  const date = new Date(untilMs);
  const otherYear = date.getFullYear() !== new Date(nowMs).getFullYear();
  return date.toLocaleDateString('es-AR', {
    day: 'numeric',
    month: 'long',
    ...(otherYear ? { year: 'numeric' } : {}),
  });
}

export const COPY_NOTE_KEY = 'offline-copy';

/** What the phone knows of its copy: until when it plays, and why it went if it did. */
export interface CopyNote {
  until: number;
  ended?: 'expired' | 'evicted';
}

export function readNote(storage: SessionStorage): CopyNote | null {
  try {
    const note = JSON.parse(storage.getItem(COPY_NOTE_KEY) ?? 'null') as Partial<CopyNote> | null;
    if (typeof note?.until !== 'number') return null;
    const ended = note.ended === 'expired' || note.ended === 'evicted' ? note.ended : undefined;
    return { until: note.until, ...(ended ? { ended } : {}) };
  } catch {
    return null;
  }
}

export const writeNote = (storage: SessionStorage, note: CopyNote) =>
  storage.setItem(COPY_NOTE_KEY, JSON.stringify(note));

/** The message for a copy that is gone, said once; null when nothing is to be said. */
export function takeEndedMessage(storage: SessionStorage): string | null {
  const note = readNote(storage);
  if (!note?.ended) return null;
  storage.removeItem(COPY_NOTE_KEY);
  return note.ended === 'expired'
    ? `La copia del video guardada en este teléfono venció el ${untilText(note.until)} y se borró.`
    : 'La copia del video guardada en este teléfono ya no está: el navegador la borró para liberar espacio.';
}

/** The visitor's own deletion ("Borrar descarga", the choice at signout): nothing to report. */
export async function forgetCopy(storage: SessionStorage): Promise<void> {
  storage.removeItem(COPY_NOTE_KEY);
  await deleteDownload();
}

/**
 * Brings the stored copy in line with its rules, at `nowMs`: a copy past its period is deleted
 * (and noted, to say so); with no session, a download that is not a copy of its own (unfinished,
 * or without a period) goes with the session, as before; a copy the browser evicted is noted.
 * Returns what is stored afterwards.
 */
export async function settleCopy(
  storage: SessionStorage,
  { loggedIn, nowMs }: { loggedIn: boolean; nowMs: number },
): Promise<DownloadRecord | null> {
  const record = await readRecord();
  const status = copyStatus(record, nowMs);
  if (status === 'expired') {
    writeNote(storage, { until: record!.until!, ended: 'expired' });
    await deleteDownload();
    return null;
  }
  if (!loggedIn && (status === 'unfinished' || status === 'sessionOnly')) {
    await forgetCopy(storage);
    return null;
  }
  // Gone without this page's knowing: past its period the worker deleted it (sw.ts), else the
  // browser evicted it.
  const note = readNote(storage);
  if (status === 'none' && note && !note.ended)
    writeNote(storage, { ...note, ended: nowMs >= note.until ? 'expired' : 'evicted' });
  return record;
}
