/**
 * The bench's one output: a table of figures (value, target, met or not), printed for people
 * and written as JSON (for tools) and Markdown (pasted into the README).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One line of the table: a figure, what was found, its target's label and whether it is met. */
export interface Row {
  figure: string;
  target: string;
  value: string;
  /** null: a reference, not a target. */
  met: boolean | null;
  measured: number | boolean | null;
  unit?: string;
  note?: string;
}

export interface Report {
  date: string;
  durationS: number;
  conditions: Record<string, string>;
  rows: Row[];
}

const mark = (met: boolean | null) => (met === null ? '-' : met ? 'yes' : 'NO');

export function formatTable(rows: Row[]): string {
  const header = ['figure', 'value', 'target', 'met?'];
  const cells = rows.map((row) => [row.figure, row.value, row.target, mark(row.met)]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]!.length)),
  );
  const line = (parts: string[]) => parts.map((part, i) => part.padEnd(widths[i]!)).join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-+-');
  return [line(header), rule, ...cells.map(line)].join('\n');
}

export function formatConditions(conditions: Record<string, string>): string {
  const width = Math.max(...Object.keys(conditions).map((key) => key.length));
  return Object.entries(conditions)
    .map(([key, text]) => `${key.padEnd(width)}  ${text}`)
    .join('\n');
}

/** Notes are long; the terminal gets them after the table, one per figure that has one. */
export function formatNotes(rows: Row[]): string {
  return rows
    .filter((row) => row.note)
    .map((row) => `- ${row.figure}: ${row.note}`)
    .join('\n');
}

const escapeCell = (text: string) => text.replaceAll('|', '\\|');

function toMarkdown(report: Report): string {
  const conditions = Object.entries(report.conditions)
    .map(([key, text]) => `- ${key}: ${escapeCell(text)}`)
    .join('\n');
  const rows = report.rows
    .map(
      (row) =>
        `| ${[row.figure, row.value, row.target, mark(row.met)].map(escapeCell).join(' | ')} |`,
    )
    .join('\n');
  return [
    `Measured ${report.date} by \`npm run bench\` (${report.durationS} s).`,
    '',
    conditions,
    '',
    '| figure | value | target | met? |',
    '| --- | --- | --- | --- |',
    rows,
    '',
  ].join('\n');
}

export function writeReport(report: Report, jsonPath: string, markdownPath: string): void {
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdownPath, toMarkdown(report));
}
