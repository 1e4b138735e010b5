/**
 * A leaked password, as the company handles it (SECURITY.md): a new PASSWORD_HASH and a
 * restart, or `npm run end-sessions`. The built server on a real redis-server; the visitor's
 * open page sees the login with the expired notice at its next video request, not an error.
 */
import { expect, test, type Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { startRedis, type RedisServer } from '../scripts/test-support/redis-server';
import { startServer, type RunningServer } from '../scripts/test-support/test-server';
import { hashPassword } from '../server/password';
import { BASE, E2E_PASSWORD } from './site';
import { MESSAGES } from './ui';

test.describe.configure({ mode: 'serial' });

const NEW_PASSWORD = 'la-nueva-clave-e2e-2026';

let redis: RedisServer;
let server: RunningServer | null = null;
let env: Record<string, string>;
/** The password in force. */
let password = E2E_PASSWORD;

test.beforeAll(async () => {
  redis = await startRedis();
  env = {
    NODE_ENV: 'test',
    REDIS_URL: redis.url,
    PASSWORD_HASH: await hashPassword(E2E_PASSWORD),
    SESSION_SECRET: randomBytes(48).toString('base64'),
    LOG_LEVEL: 'warn',
  };
  server = await startServer(env);
});

test.afterAll(async () => {
  await server?.stop();
  await redis?.stop();
});

async function signIn(page: Page, password: string) {
  await page.goto(`${server!.origin}${BASE}/login`);
  await page.getByLabel('Contraseña').fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await expect(page).toHaveURL(`${server!.origin}${BASE}/VideoPlayer`);
  await expect
    .poll(() => page.evaluate(() => document.querySelector('video')?.readyState ?? 0))
    .toBeGreaterThanOrEqual(1);
}

async function expectExpired(page: Page) {
  // The page still holds its session: its next video request meets the server's 401.
  await page.reload();
  await expect(page.getByText(MESSAGES.expired)).toBeVisible({ timeout: 15_000 });
  await expect(page.getByLabel('Contraseña')).toBeVisible();
  await expect(page).toHaveURL(`${server!.origin}${BASE}/login`);
}

test('a new password and a restart: the visitor of the old one sees the login with the expired notice', async ({
  page,
}) => {
  await signIn(page, E2E_PASSWORD);
  const { port } = new URL(server!.origin);
  await server!.stop();
  env = { ...env, PASSWORD_HASH: await hashPassword(NEW_PASSWORD) };
  server = await startServer(env, { port: Number(port) });
  password = NEW_PASSWORD;
  await expectExpired(page);
  // The new password lets the visitor back in.
  await signIn(page, NEW_PASSWORD);
});

test('npm run end-sessions: the visitor sees the login with the expired notice, no restart', async ({
  page,
}) => {
  await signIn(page, password);
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ops/end-sessions.ts'], {
    env: { PATH: process.env.PATH, REDIS_URL: redis.url },
    encoding: 'utf8',
  });
  expect(run.status, run.stderr).toBe(0);
  expect(run.stdout).toMatch(/^Ended [1-9]\d* sessions? in Redis/);
  await expectExpired(page);
});
