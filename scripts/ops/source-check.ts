/**
 * Before prepare-video changes anything: ffmpeg decodes the whole source once, to learn how much
 * of it really plays. A copy cut off halfway keeps its header, which still announces the whole
 * length; only decoding finds where the pictures and the sound stop.
 */
import { spawn } from 'node:child_process';

export interface SourceCheck {
  /** What the container announces, seconds. */
  containerS: number;
  /** How much of each stream decodes, seconds (audio null without a sound track). */
  videoS: number;
  audioS: number | null;
  /** ffmpeg's decoding errors, as it says them (the first few). */
  errors: string[];
  errorCount: number;
  /** What is wrong, one sentence each; empty for a whole source. */
  problems: string[];
  /** How much plays: the length a publish of this source has (its longer stream). */
  playsS: number;
}

/** The longer of "a frame or two" and what audio frames and encoder priming leave. */
const toleranceS = (frameRate: number) => Math.max(2 / (frameRate || 25), 0.1);

const seconds = (s: number) => `${s.toFixed(1)} s`;

/**
 * Decodes `source` (video scaled to 16×16 first: the check costs the decode, not the frames'
 * copies) and measures each stream's end from ffmpeg's per-frame timestamps.
 */
export function checkSource(
  source: string,
  probe: { durationS: number; frameRate: number; hasAudio: boolean },
  signal?: AbortSignal,
): Promise<SourceCheck> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      'ffmpeg',
      [
        ...['-hide_banner', '-nostdin', '-v', 'error', '-i', source],
        ...['-map', '0:v:0', ...(probe.hasAudio ? ['-map', '0:a:0'] : [])],
        ...['-vf', 'scale=16:16', '-fps_mode', 'passthrough', '-f', 'framecrc', '-'],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], signal },
    );
    const timeBase = new Map<string, number>();
    const start = new Map<string, number>();
    const end = new Map<string, number>();
    let pending = '';
    const read = (line: string) => {
      const tb = /^#tb (\d+): (\d+)\/(\d+)/.exec(line);
      if (tb) return void timeBase.set(tb[1]!, Number(tb[2]) / Number(tb[3]));
      if (line.startsWith('#') || !line.trim()) return;
      const [stream, , pts, duration] = line.split(',').map((part) => part.trim());
      const tbOf = timeBase.get(stream!) ?? 0;
      const at = Number(pts) * tbOf;
      if (!start.has(stream!)) start.set(stream!, at);
      end.set(stream!, Math.max(end.get(stream!) ?? 0, at + Number(duration) * tbOf));
    };
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(read);
    });
    let errorText = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (errorText.length < 1_000_000) errorText += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      read(pending);
      const length = (stream: string) =>
        end.has(stream) ? end.get(stream)! - (start.get(stream) ?? 0) : 0;
      const videoS = length('0');
      const audioS = probe.hasAudio ? length('1') : null;
      // Each damaged spot is usually several lines (the demuxer's, the decoder's).
      const errorLines = errorText
        .split('\n')
        .map((line) => line.replace(/^\[[^\]]+\] /, '').trim())
        .filter(Boolean);
      resolvePromise(judge(probe, videoS, audioS, errorLines));
    });
  });
}

function judge(
  probe: { durationS: number; frameRate: number },
  videoS: number,
  audioS: number | null,
  errors: string[],
): SourceCheck {
  const tolerance = toleranceS(probe.frameRate);
  const playsS = Math.max(videoS, audioS ?? 0);
  const problems: string[] = [];
  if (probe.durationS - playsS > tolerance)
    problems.push(
      `its header says ${seconds(probe.durationS)} but only ${seconds(playsS)} decodes (the file looks cut off)`,
    );
  if (audioS !== null && Math.abs(videoS - audioS) > tolerance)
    problems.push(
      `its picture lasts ${seconds(videoS)} and its sound ${seconds(audioS)}: they disagree`,
    );
  if (errors.length)
    problems.push(
      `ffmpeg reports ${errors.length} decoding error${errors.length > 1 ? 's' : ''} (${errors
        .slice(0, 2)
        .join('; ')})`,
    );
  return {
    containerS: probe.durationS,
    videoS,
    audioS,
    errors: errors.slice(0, 5),
    errorCount: errors.length,
    problems,
    playsS,
  };
}
