import { describe, expect, it } from 'vitest';
import { testServer } from './helpers.js';

describe('health checks', () => {
  it('answers /livez and /readyz with 200 in memory, and /readyz with 503 once draining', async () => {
    const lifecycle = { draining: false };
    const app = await testServer({}, { lifecycle });
    expect((await app.inject({ url: '/livez' })).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    lifecycle.draining = true;
    const readyz = await app.inject({ url: '/readyz' });
    expect(readyz.statusCode).toBe(503);
    expect(readyz.headers['cache-control']).toBe('no-store');
    expect((await app.inject({ url: '/livez' })).statusCode).toBe(200);
    await app.close();
  });
});
