import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEMO_PASSWORD,
  DEMO_PASSWORD_HASH,
  DEV_SESSION_SECRET,
  configWarnings,
  loadConfig,
} from '../../server/config.js';
import { parsePasswordHash } from '../../config/password-hash.js';
import { verifyPassword } from '../../server/password.js';
import { REPO } from './helpers.js';

const REAL_HASH =
  'scrypt$32768$8$3$8k1Pe5jXNAmGNz28gmKWcg==$xXbxyigxXbzwemnlrJtcDBkXkQGzkOlMEM/PbprPVUU=';
const SECRET = 'a-real-secret-of-at-least-32-characters!!';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env, REPO);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
};

describe('server configuration', () => {
  it('starts with documented defaults when nothing is set', () => {
    const config = loadConfig({}, REPO);
    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      basePath: '/capacitacion',
      username: 'capacitacion',
      empresa: 'Agro Demo S.A.',
      nombres: 'Visitante Demo',
      sessionTtlS: 7200,
      production: false,
      trustProxy: false,
      logLevel: 'info',
      usingDemoPassword: true,
      usingDevSecret: true,
      sessionSecret: DEV_SESSION_SECRET,
    });
    expect(config.videoFile).toBe(`${REPO}/media/sample.mp4`);
    expect(config.captionsFile).toBe(`${REPO}/media/sample.es.vtt`);
    expect(config.posterFile).toBe(`${REPO}/media/poster.jpg`);
    expect(config.distDir).toBe(`${REPO}/dist`);
    expect(config.signin.maxFailuresPerHour).toBeLessThanOrEqual(100);
  });

  it('the demo hash really is the hash of the published demo password', async () => {
    const hash = parsePasswordHash(DEMO_PASSWORD_HASH);
    expect(hash).not.toBeNull();
    expect(await verifyPassword(DEMO_PASSWORD, hash!)).toBe(true);
  });

  it('warns loudly, naming the demo password, when no password hash is configured', () => {
    const warnings = configWarnings(loadConfig({}, REPO));
    expect(warnings.join('\n')).toContain(`DEMO PASSWORD IN USE`);
    expect(warnings.join('\n')).toContain(DEMO_PASSWORD);
    expect(warnings.join('\n')).toContain('SESSION_SECRET');
  });

  it('has nothing to warn about once a password hash and a secret are set', () => {
    const config = loadConfig({ PASSWORD_HASH: REAL_HASH, SESSION_SECRET: SECRET }, REPO);
    expect(config.usingDemoPassword).toBe(false);
    expect(configWarnings(config)).toEqual([]);
  });

  it('refuses to start in production with the demo password, naming PASSWORD_HASH', () => {
    const message = problemsOf({ NODE_ENV: 'production', SESSION_SECRET: SECRET });
    expect(message).toMatch(/PASSWORD_HASH must be set in production/);
    expect(message).not.toMatch(/SESSION_SECRET/);
  });

  it('refuses to start in production with the default secret, naming SESSION_SECRET', () => {
    const message = problemsOf({ NODE_ENV: 'production', PASSWORD_HASH: REAL_HASH });
    expect(message).toMatch(/SESSION_SECRET must be set in production/);
    expect(message).not.toMatch(/PASSWORD_HASH/);
  });

  it('starts in production when both the hash and the secret are set', () => {
    const config = loadConfig(
      { NODE_ENV: 'production', PASSWORD_HASH: REAL_HASH, SESSION_SECRET: SECRET },
      REPO,
    );
    expect(config.production).toBe(true);
  });

  it('refuses metrics open to the network in production unless METRICS_OPEN=true confirms it', () => {
    const production = { NODE_ENV: 'production', PASSWORD_HASH: REAL_HASH, SESSION_SECRET: SECRET };
    const open = { ...production, METRICS_PORT: '9101', METRICS_HOST: '0.0.0.0' };
    expect(problemsOf(open)).toMatch(/METRICS_HOST is not loopback in production/);
    expect(problemsOf({ ...open, METRICS_HOST: '192.0.2.5' })).toMatch(/METRICS_OPEN=true/);
    expect(loadConfig({ ...open, METRICS_OPEN: 'true' }, REPO).metrics).toEqual({
      port: 9101,
      host: '0.0.0.0',
    });
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost'])
      expect(loadConfig({ ...open, METRICS_HOST: host }, REPO).metrics?.host).toBe(host);
    // No metrics, nothing open; and outside production the operator is on their own machine.
    expect(loadConfig({ ...open, METRICS_PORT: '' }, REPO).metrics).toBeNull();
    expect(loadConfig({ ...open, NODE_ENV: 'development' }, REPO).metrics?.host).toBe('0.0.0.0');
    expect(problemsOf({ ...open, METRICS_OPEN: 'yes' })).toMatch(
      /METRICS_OPEN must be true or false/,
    );
  });

  it('fails fast with every problem listed at once', () => {
    const message = problemsOf({
      PORT: 'eighty',
      BASE_PATH: 'capacitacion',
      PASSWORD_HASH: 'hunter2',
      SESSION_SECRET: 'short',
      SESSION_TTL_S: '-5',
      TRUST_PROXY: 'sometimes',
      SIGNIN_MAX_FAILURES_PER_HOUR: '500',
      LOG_LEVEL: 'loud',
      EMPRESA: 'x'.repeat(201),
      VIDEO_URL: 'ftp://example.com/v.mp4',
    });
    const lines = message.split('\n').slice(1);
    expect(lines).toHaveLength(10);
    for (const name of [
      'PORT',
      'BASE_PATH',
      'PASSWORD_HASH',
      'SESSION_SECRET',
      'SESSION_TTL_S',
      'TRUST_PROXY',
      'SIGNIN_MAX_FAILURES_PER_HOUR',
      'LOG_LEVEL',
      'EMPRESA',
      'VIDEO_URL',
    ]) {
      expect(message).toContain(`- ${name}`);
    }
  });

  it('applies the same base path rule as the client build', () => {
    expect(loadConfig({ BASE_PATH: '/capacitacion/' }, REPO).basePath).toBe('/capacitacion');
    expect(loadConfig({ BASE_PATH: '/a/b-c_d.e~f' }, REPO).basePath).toBe('/a/b-c_d.e~f');
    for (const bad of ['/', '', 'x', '/a b', '/a//b', '/ñ', '/a?b'])
      expect(problemsOf({ BASE_PATH: bad })).toContain('BASE_PATH');
  });

  it('refuses empty names and names longer than the client accepts', () => {
    expect(problemsOf({ SHARED_USERNAME: '' })).toContain('SHARED_USERNAME must not be empty');
    expect(problemsOf({ NOMBRES: 'n'.repeat(201) })).toContain('NOMBRES must be at most 200');
  });

  it('reads TRUST_PROXY as a boolean, a hop count or a list of proxy addresses', () => {
    const trust = (value: string) => loadConfig({ TRUST_PROXY: value }, REPO).trustProxy;
    expect(trust('true')).toBe(true);
    expect(trust('FALSE')).toBe(false);
    expect(trust('0')).toBe(false);
    expect(trust('1')).toEqual({ hops: 1 });
    expect(trust('127.0.0.1, 10.0.0.0/8,::1')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
    expect(problemsOf({ TRUST_PROXY: '10.0.0.0/33' })).toContain('TRUST_PROXY');
    expect(problemsOf({ TRUST_PROXY: 'proxy.local' })).toContain('TRUST_PROXY');
  });

  it('reads REDIS_URL as unset, a redis URL or a socket path, and refuses anything else', () => {
    const redisUrl = (value?: string) =>
      loadConfig(value === undefined ? {} : { REDIS_URL: value }, REPO).redisUrl;
    expect(redisUrl()).toBeNull();
    expect(redisUrl('')).toBeNull();
    expect(redisUrl('redis://127.0.0.1:6379/0')).toBe('redis://127.0.0.1:6379/0');
    expect(redisUrl('rediss://user:secret@redis.example:6380')).toBe(
      'rediss://user:secret@redis.example:6380',
    );
    expect(redisUrl('/run/redis/redis.sock')).toBe('/run/redis/redis.sock');
    expect(problemsOf({ REDIS_URL: 'http://127.0.0.1:6379' })).toContain('REDIS_URL');
    expect(problemsOf({ REDIS_URL: '127.0.0.1:6379' })).toContain('REDIS_URL');
    expect(problemsOf({ REDIS_URL: 'redis://' })).toContain('REDIS_URL');
  });

  it('warns that a hop count trusts whoever reaches the server directly', () => {
    expect(configWarnings(loadConfig({ TRUST_PROXY: '2' }, REPO)).join()).toContain('hop count');
  });

  it('takes the outside origins of the client URLs for the CSP, ignoring same-origin paths', () => {
    const config = loadConfig(
      {
        API_URL: 'https://api.example.com/base/',
        VIDEO_URL: 'https://cdn.example.net/v/training.mp4?x=1',
        CAPTIONS_URL: '/api/video/captions.vtt',
      },
      REPO,
    );
    expect(config.outsideOrigins).toEqual({
      connect: ['https://api.example.com'],
      media: ['https://api.example.com', 'https://cdn.example.net'],
      img: ['https://api.example.com'],
    });
  });

  it('rejects a password hash whose parameters are out of bounds', () => {
    const tooBig = REAL_HASH.replace('$32768$', '$4194304$');
    const notPowerOfTwo = REAL_HASH.replace('$32768$', '$30000$');
    const shortKey = REAL_HASH.replace(/\$[^$]+$/, '$AAAA');
    for (const hash of [tooBig, notPowerOfTwo, shortKey, `${REAL_HASH}$extra`, 'bcrypt$2b$10$x'])
      expect(problemsOf({ PASSWORD_HASH: hash })).toContain('PASSWORD_HASH');
  });

  it('accepts a hash pasted with a trailing newline', () => {
    expect(loadConfig({ PASSWORD_HASH: `${REAL_HASH}\n` }, REPO).usingDemoPassword).toBe(false);
  });

  it("keeps the publishes' keys beside MEDIA_DIR by default, and refuses them inside it or without it", () => {
    const media = join(mkdtempSync(join(tmpdir(), 'keys-')), 'video');
    mkdirSync(media);
    writeFileSync(join(media, 'master.m3u8'), '#EXTM3U\n');
    expect(loadConfig({}, REPO).mediaKeysDir).toBeNull();
    expect(loadConfig({ MEDIA_DIR: `${media}/` }, REPO).mediaKeysDir).toBe(`${media}.keys`);
    expect(loadConfig({ MEDIA_DIR: media, MEDIA_KEYS_DIR: '/srv/claves' }, REPO).mediaKeysDir).toBe(
      '/srv/claves',
    );
    expect(problemsOf({ MEDIA_KEYS_DIR: '/srv/claves' })).toContain(
      'MEDIA_KEYS_DIR means nothing without MEDIA_DIR',
    );
    for (const inside of [media, `${media}/keys`, `${media}/./a/../keys`, `${media}/..keys`])
      expect(problemsOf({ MEDIA_DIR: media, MEDIA_KEYS_DIR: inside }), inside).toContain(
        'MEDIA_KEYS_DIR must not be MEDIA_DIR or inside it',
      );
    // A name that only starts like the media folder is beside it.
    expect(
      loadConfig({ MEDIA_DIR: media, MEDIA_KEYS_DIR: `${media}..keys` }, REPO).mediaKeysDir,
    ).toBe(`${media}..keys`);
  });
});
