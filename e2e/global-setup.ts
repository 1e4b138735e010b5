/**
 * Before the browser tests: the paths JSON, a build if there is none, and the real built server
 * on a free port with a test password. The server's address reaches the tests through the
 * environment, which Playwright's workers inherit.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { publishTestClip } from '../scripts/test-support/test-clip';
import { buildIfMissing, startServer } from '../scripts/test-support/test-server';
import { writePathsFile } from '../tests/model/paths-file';
import { siteEnv } from './site';

export default async function globalSetup() {
  writePathsFile();
  buildIfMissing();
  const env = await siteEnv({
    // Every path with a wrong password comes from this one address; the limiter's own
    // behaviour is tested in tests/server.
    SIGNIN_FREE_FAILURES: '20',
    SIGNIN_BACKOFF_BASE_MS: '1',
    SIGNIN_BACKOFF_MAX_MS: '1',
    SIGNIN_MAX_REQUESTS_PER_MINUTE: '10000',
  });
  const server = await startServer(env);
  process.env.E2E_ORIGIN = server.origin;
  // A second server with adaptive video (MEDIA_DIR): a 24 s clip, four segments per rendition,
  // published by prepare-video (e2e/adaptive.spec.ts).
  const { dir } = await publishTestClip(24);
  const adaptive = await startServer({ ...env, MEDIA_DIR: dir });
  process.env.E2E_ADAPTIVE_ORIGIN = adaptive.origin;
  // The same two sites where a download ends with the session (OFFLINE_COPY_DAYS=0), as before
  // the copy had a period of its own (e2e/offline-session.spec.ts).
  const [sessionCopy, adaptiveSessionCopy] = await Promise.all([
    startServer({ ...env, OFFLINE_COPY_DAYS: '0' }),
    startServer({ ...env, MEDIA_DIR: dir, OFFLINE_COPY_DAYS: '0' }),
  ]);
  process.env.E2E_SESSION_COPY_ORIGIN = sessionCopy.origin;
  process.env.E2E_ADAPTIVE_SESSION_COPY_ORIGIN = adaptiveSessionCopy.origin;
  return async () => {
    await Promise.all([
      server.stop(),
      adaptive.stop(),
      sessionCopy.stop(),
      adaptiveSessionCopy.stop(),
    ]);
    rmSync(dirname(dir), { recursive: true, force: true });
    rmSync(env.DATA_DIR, { recursive: true, force: true });
  };
}
