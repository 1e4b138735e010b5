import type { FastifyInstance } from 'fastify';

/**
 * For a load balancer or an orchestrator. `/livez`: the process answers (it never asks Redis,
 * or an outage would get every healthy instance restarted). `/readyz`: this instance should
 * receive traffic: it is not shutting down and its store answers.
 */
export async function healthRoutes(
  app: FastifyInstance,
  { ready }: { ready: () => Promise<boolean> },
) {
  // Asked every few seconds by the balancer: not worth a log line each.
  const quiet = { logLevel: 'warn' } as const;
  app.get('/livez', quiet, async (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );
  app.get('/readyz', quiet, async (_request, reply) => {
    const ok = await ready();
    return reply
      .code(ok ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ok ? 'ready' : 'unavailable' });
  });
}
