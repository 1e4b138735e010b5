/** What every measurement knows about the site under test. */
import { clientConfig } from '../../config/settings';

export interface Site {
  /** e.g. http://127.0.0.1:40123 */
  origin: string;
  /** e.g. /capacitacion */
  base: string;
  username: string;
  password: string;
  /** The built front end the server serves (DIST_DIR, as the server reads it). */
  distDir: string;
  /** The server's process id, to read its memory. */
  pid: number;
}

/** The same build-time settings the app and the server were built with. */
export function siteSettings(env: NodeJS.ProcessEnv) {
  const client = clientConfig(env);
  return {
    base: client.basePath,
    username: client.username,
    distDir: env.DIST_DIR ?? 'dist',
  };
}
