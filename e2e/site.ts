/** Facts about the site under test, shared by the global set-up and the tests. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientConfig } from '../config/settings';
import { hashPassword } from '../server/password';
import { EMPRESA, NOMBRES, USERNAME } from '../tests/model/model';

export const E2E_PASSWORD = 'clave-e2e-Silo-2023';
export const WRONG_PASSWORD = 'no-es-la-clave';

const client = clientConfig(process.env);
export const BASE = client.basePath;
export const SESSION_TIMEOUT_MS = client.sessionTimeoutMs;

function origin(): string {
  const value = process.env.E2E_ORIGIN;
  if (!value) throw new Error('E2E_ORIGIN is not set: the global set-up did not run');
  return value;
}

export const url = (path: string) => `${origin()}${path}`;

/**
 * The built server's settings for a site of the tests' own (a spec that publishes into its own
 * media folder): the e2e password at the cheapest scrypt parameters the server accepts.
 */
export const siteEnv = async (extra: Record<string, string> = {}) => ({
  NODE_ENV: 'test',
  TRUST_PROXY: '127.0.0.1',
  PASSWORD_HASH: await hashPassword(E2E_PASSWORD, { N: 2 ** 14, r: 8, p: 1 }),
  SESSION_SECRET: 'e2e-session-secret-0123456789-abcdefghijklmnop',
  SHARED_USERNAME: USERNAME,
  EMPRESA,
  NOMBRES,
  LOG_LEVEL: 'warn',
  // The field reports the pages send go into a folder of the run's, never the repo's data/, where
  // `npm start` and `npm run report` would count them. The global set-up removes it.
  DATA_DIR: (process.env.E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'e2e-data-'))),
  ...extra,
});
