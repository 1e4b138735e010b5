/**
 * Writes the README's configuration table from the settings table (config/settings.ts):
 * `npx tsx scripts/readme-settings.ts`. tests/config/settings.test.ts fails when they differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { format } from 'prettier';
import { settingsTableRows } from '../config/settings';

const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const [before, rest = ''] = readme.split('\n## Configuration\n');
const lines = rest.split('\n');
const start = lines.findIndex((line) => line.startsWith('|'));
const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
const table = [
  '| variable | default | meaning |',
  '| --- | --- | --- |',
  ...settingsTableRows().map((row) => `| ${row.join(' | ')} |`),
];
lines.splice(start, end - start, ...table);
const text = `${before}\n## Configuration\n${lines.join('\n')}`;
writeFileSync(file, await format(text, { filepath: file.pathname }));
