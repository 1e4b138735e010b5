/**
 * What the browser needs to know, read from the environment at build time (BASE_PATH is shared
 * with the server). Kept in one place so that the build, the server and the tests agree.
 */
export interface ClientConfig {
  basePath: string;
  username: string;
  apiUrl: string;
  videoUrl: string;
  captionsUrl: string;
  /** The chapters track (WebVTT); gated by the server like the captions. */
  chaptersUrl: string;
  /** The video's poster; gated by the server like the video itself. */
  posterUrl: string;
  sessionTimeoutMs: number;
  signinTimeoutMs: number;
  chunkTimeoutMs: number;
  webVitalsUrl: string;
}

/** Stands in index.html where the build writes the shared username. */
export const USERNAME_PLACEHOLDER = '%SHARED_USERNAME%';

export const CLIENT_DEFAULTS = {
  BASE_PATH: '/capacitacion',
  SHARED_USERNAME: 'capacitacion',
  API_URL: '',
  SESSION_TIMEOUT_MS: '72000000',
  SIGNIN_TIMEOUT_MS: '15000',
  CHUNK_TIMEOUT_MS: '120000',
  WEB_VITALS_URL: '',
} as const;

type Env = Record<string, string | undefined>;

const positiveInt = (name: string, raw: string, problems: string[]) => {
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) problems.push(`${name} must be a positive integer`);
  return value;
};

export function clientConfigFromEnv(env: Env): ClientConfig {
  const get = (name: keyof typeof CLIENT_DEFAULTS) => env[name] ?? CLIENT_DEFAULTS[name];
  const problems: string[] = [];
  const basePath = get('BASE_PATH').replace(/\/+$/, '');
  if (!/^\/[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(basePath))
    problems.push('BASE_PATH must look like /capacitacion (no trailing slash)');
  const apiUrl = get('API_URL').replace(/\/+$/, '');
  const config: ClientConfig = {
    basePath,
    username: get('SHARED_USERNAME'),
    apiUrl,
    videoUrl: env.VIDEO_URL || `${apiUrl}/api/video`,
    captionsUrl: env.CAPTIONS_URL || `${apiUrl}/api/video/captions.vtt`,
    chaptersUrl: `${apiUrl}/api/video/chapters.vtt`,
    posterUrl: `${apiUrl}/api/video/poster.jpg`,
    sessionTimeoutMs: positiveInt('SESSION_TIMEOUT_MS', get('SESSION_TIMEOUT_MS'), problems),
    signinTimeoutMs: positiveInt('SIGNIN_TIMEOUT_MS', get('SIGNIN_TIMEOUT_MS'), problems),
    chunkTimeoutMs: positiveInt('CHUNK_TIMEOUT_MS', get('CHUNK_TIMEOUT_MS'), problems),
    webVitalsUrl: get('WEB_VITALS_URL'),
  };
  if (!config.username) problems.push('SHARED_USERNAME must not be empty');
  if (problems.length) throw new Error(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return config;
}
