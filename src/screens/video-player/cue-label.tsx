import { formatClock, isoDuration, type Cue } from '../../../machines/webvtt';

/** A chapter's or a line's start time and text, as both panels list them. */
export function CueLabel({ cue }: { cue: Pick<Cue, 'startS' | 'text'> }) {
  return (
    <>
      <time className="panel__time" dateTime={isoDuration(cue.startS)}>
        {formatClock(cue.startS)}
      </time>{' '}
      <span>{cue.text}</span>
    </>
  );
}
