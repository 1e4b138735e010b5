/**
 * SECURITY.md's table of the limits in force, from the code's defaults (the settings table,
 * the server's and the proxy's constants): `npx tsx scripts/build/security-limits.ts` writes
 * it; tests/config/security-limits.test.ts fails when the file and the code differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'prettier';
import { MAX_FIELD_LENGTH } from '../../machines/session';
import { BODY_LIMIT, SOCKET_LIMITS } from '../../server/app';
import { loadConfig } from '../../server/config';
import { UNAVAILABLE_RETRY_AFTER_S } from '../../server/redis';
import {
  MAX_PASSWORD_LENGTH,
  SIGNIN_BODY_LIMIT,
  SIGNOUT_BODY_LIMIT,
} from '../../server/routes/signin';
import { PROXY_LIMITS } from '../ops/nginx';

const FILE = fileURLToPath(new URL('../../SECURITY.md', import.meta.url));
const HEADING = '## Limits in force (defaults)';

const count = (n: number) => n.toLocaleString('en-US');
const kb = (bytes: number) => `${count(Math.round(bytes / 1024))} KB`;
const s = (ms: number) => `${count(ms / 1000)} s`;

/** limit, value: one row per limit, in the table's order. */
export function securityLimitRows(): [string, string][] {
  const config = loadConfig({});
  const signin = config.signin;
  const proxy = PROXY_LIMITS;
  return [
    [
      'request body (any route)',
      `${kb(BODY_LIMIT)}; signin ${kb(SIGNIN_BODY_LIMIT)}; signout ${kb(SIGNOUT_BODY_LIMIT)}; ${kb(proxy.bodyBytes)} at the proxy, never on disk`,
    ],
    [
      'password / username length',
      `${count(MAX_PASSWORD_LENGTH)} / ${count(MAX_FIELD_LENGTH)} characters`,
    ],
    [
      "receiving a request's headers",
      `${s(SOCKET_LIMITS.headersMs)} at an instance, ${proxy.headerS} s at the proxy`,
    ],
    [
      'receiving a whole request',
      `${s(SOCKET_LIMITS.requestMs)} (the instance; the proxy passes bodies on as they come)`,
    ],
    ['a body that stalls', `${proxy.bodyStallS} s between two reads (proxy)`],
    [
      'an answer the client stops reading',
      `${s(SOCKET_LIMITS.idleMs)} without progress at an instance, ${proxy.sendStallS} s at the proxy`,
    ],
    [
      'requests in progress at the proxy',
      `${count(proxy.perAddress)} per client address (429 beyond)`,
    ],
    ['session lifetime', `${count(config.sessionTtlS)} s from signin (\`SESSION_TTL_S\`)`],
    [
      'sessions kept',
      `${count(config.maxSessions)}; when full, the least recently used ends (\`SESSION_MAX_COUNT\`)`,
    ],
    [
      'free failures, backoff',
      `${signin.freeFailures}, then ${s(signin.backoffBaseMs)} doubling to ${s(signin.backoffMaxMs)}`,
    ],
    [
      'failures per address per hour',
      `${signin.maxFailuresPerHour} in any sliding hour (ASVS 4.0.3 V2.2.1)`,
    ],
    [
      'hashes in flight',
      `${signin.maxConcurrentHashes} computed at a time, ${count(signin.maxWaitingHashes)} waiting, 1 per address`,
    ],
    [
      'requests to `/api/users/*`',
      `${count(signin.maxRequestsPerMinute)} per minute per address or device`,
    ],
    [
      'while Redis is unreachable',
      `media and signin 503 with \`Retry-After: ${UNAVAILABLE_RETRY_AFTER_S}\`, no hash (\`REDIS_URL\`)`,
    ],
  ];
}

/** The table's rows as SECURITY.md has them, cells trimmed. */
export function documentedLimitRows(text = readFileSync(FILE, 'utf8')): string[][] {
  const [, rest = ''] = text.split(`\n${HEADING}\n`);
  return rest
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

async function write() {
  const text = readFileSync(FILE, 'utf8');
  const [before, rest = ''] = text.split(`\n${HEADING}\n`);
  const lines = rest.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  lines.splice(
    start,
    end - start,
    '| limit | value |',
    '| --- | --- |',
    ...securityLimitRows().map(([limit, value]) => `| ${limit} | ${value} |`),
  );
  writeFileSync(
    FILE,
    await format(`${before}\n${HEADING}\n${lines.join('\n')}`, { filepath: FILE }),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await write();
