/** Facts about the site under test, shared by the global set-up and the tests. */
import { clientConfig } from '../config/settings';

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
