/**
 * Writes the settings table of docs/configuration.md from config/settings.ts:
 * `npx tsx scripts/build/readme-settings.ts`. tests/config/settings.test.ts fails when they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { format } from 'prettier';
import { settingsTableRows } from '../../config/settings';

const file = new URL('../../docs/configuration.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const [before, rest = ''] = doc.split('\n## Settings\n');
const lines = rest.split('\n');
const start = lines.findIndex((line) => line.startsWith('|'));
const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
const table = [
  '| variable | default | meaning |',
  '| --- | --- | --- |',
  ...settingsTableRows().map((row) => `| ${row.join(' | ')} |`),
];
lines.splice(start, end - start, ...table);
const text = `${before}\n## Settings\n${lines.join('\n')}`;
writeFileSync(file, await format(text, { filepath: file.pathname }));
