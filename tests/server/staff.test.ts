/**
 * The staff page (docs/staff-page.md) through the real server: off without its hash, its own
 * password, limits and cookie, kept apart from the visitors' session, and the figures of
 * report-summary.ts drawn from reports sent through the real POST /api/reports.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventsReport, viewReport } from './field-reports.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPORTS_PATH, type EventsReport, type ViewReport } from '../../config/field-report.js';
import { FileReportStore } from '../../server/file-report-store.js';
import { DAY_MS } from '../../server/report-store.js';
import { summarize, type Summary } from '../../server/report-summary.js';
import {
  cheapPasswordHash,
  expectNoLeak,
  fakeClock,
  REPO,
  sessionCookie,
  signin,
  testServer,
} from './helpers.js';

const PAGE = '/capacitacion/equipo';
const SIGNIN_PATH = `${PAGE}/ingresar`;
const PASSWORD = 'clave-de-visitas-1';
const STAFF_PASSWORD = 'clave-del-equipo-2';
const PASSWORD_HASH = cheapPasswordHash(PASSWORD);
const STAFF_PASSWORD_HASH = cheapPasswordHash(STAFF_PASSWORD);

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'staff-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

async function server(env: Record<string, string> = {}, deps = {}) {
  return testServer({ DATA_DIR: dataDir, PASSWORD_HASH, STAFF_PASSWORD_HASH, ...env }, deps);
}

const staffSignin = (app: FastifyInstance, password: string, remoteAddress?: string) =>
  app.inject({
    method: 'POST',
    url: SIGNIN_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ contrasena: password }).toString(),
    remoteAddress,
  });

async function staffCookie(app: FastifyInstance): Promise<string> {
  const response = await staffSignin(app, STAFF_PASSWORD);
  expect(response.statusCode).toBe(303);
  return sessionCookie(response.headers['set-cookie']);
}

const staffPage = (app: FastifyInstance, cookie: string, query = '') =>
  app.inject({ method: 'GET', url: `${PAGE}${query}`, headers: { cookie } });

/** Reports sent as a phone sends them: a visitor's session, the real route. */
async function report(app: FastifyInstance, visitor: string, body: ViewReport | EventsReport) {
  const response = await app.inject({
    method: 'POST',
    url: REPORTS_PATH,
    headers: { 'content-type': 'text/plain;charset=UTF-8', cookie: visitor },
    payload: JSON.stringify(body),
  });
  expect(response.statusCode).toBe(204);
}

const visitorCookie = async (app: FastifyInstance) =>
  sessionCookie((await signin(app, PASSWORD)).headers['set-cookie']);

/** The text of the figure labelled `label` on the page (`<dt>label</dt><dd>value…`). */
function figureOf(html: string, label: string): string {
  const match = new RegExp(`<dt>${label}</dt><dd>([^<]*)`).exec(html);
  if (!match) throw new Error(`no figure "${label}" on the page`);
  return match[1]!;
}

/** Bar heights of the wide engagement graph, one per second, and its plot's height. */
function engagementBars(html: string): { heights: number[]; plot: number } {
  const svg = /<svg class="chart engagement" id="vistos"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
  const plot = Number(/data-plot-height="([\d.]+)"/.exec(svg)?.[1]);
  const heights = [...svg.matchAll(/<rect class="bar" data-second="(\d+)"[^>]*height="([\d.]+)"/g)]
    .map(([, second, height]) => [Number(second), Number(height)] as const)
    .sort((a, b) => a[0] - b[0])
    .map(([, height]) => height);
  return { heights, plot };
}

const es = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 1 });

describe('the staff page', () => {
  it('does not exist without STAFF_PASSWORD_HASH: 404 for the page, its form and its styles', async () => {
    const app = await testServer({ DATA_DIR: dataDir, PASSWORD_HASH });
    for (const [method, url] of [
      ['GET', PAGE],
      ['POST', SIGNIN_PATH],
      ['GET', `${PAGE}/estilo.css`],
    ] as const)
      expect((await app.inject({ method, url })).statusCode, `${method} ${url}`).toBe(404);
    await app.close();
  });

  it('answers 401 with a Spanish signin form, not indexed, under a CSP with nothing inline', async () => {
    const app = await server();
    const response = await app.inject({ method: 'GET', url: PAGE });
    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(response.body).toContain('<html lang="es">');
    expect(response.body).toMatch(/<form method="post" action="\/capacitacion\/equipo\/ingresar">/);
    expect(response.body).toContain('Contraseña del equipo');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.body).not.toMatch(/<script|\sstyle=|<style/);
    const css = await app.inject({ method: 'GET', url: `${PAGE}/estilo.css` });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    await app.close();
  });

  it('says plainly that the password is wrong, and sets no cookie', async () => {
    const app = await server();
    for (const password of [PASSWORD, 'otra cosa']) {
      const response = await staffSignin(app, password);
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('Contraseña incorrecta.');
      expect(response.body).toContain('aria-invalid="true"');
      expect(response.headers['set-cookie']).toBeUndefined();
      expectNoLeak(response.body);
    }
    await app.close();
  });

  it("holds the visitors' signin limits: after the free failures, 429 with the wait, even for the right password", async () => {
    const app = await server({
      SIGNIN_FREE_FAILURES: '3',
      SIGNIN_BACKOFF_BASE_MS: '60000',
      SIGNIN_MAX_HOLD_MS: '0',
    });
    for (let attempt = 0; attempt < 3; attempt += 1)
      expect((await staffSignin(app, 'mal', '203.0.113.9')).statusCode).toBe(401);
    const limited = await staffSignin(app, STAFF_PASSWORD, '203.0.113.9');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.body).toContain('Demasiados intentos. Espere 60 segundos');
    expect(limited.headers['set-cookie']).toBeUndefined();
    // Another address is not held back, nor is a visitor at the same one.
    expect((await staffSignin(app, STAFF_PASSWORD, '203.0.113.10')).statusCode).toBe(303);
    expect((await signin(app, PASSWORD, { remoteAddress: '203.0.113.9' })).statusCode).toBe(200);
    await app.close();
  });

  it('sets its own HttpOnly, SameSite=Strict, signed cookie with its own lifetime, Secure over HTTPS', async () => {
    const clock = fakeClock();
    const app = await server({ STAFF_SESSION_TTL_S: '3600', TRUST_PROXY: '127.0.0.1' }, clock);
    const response = await staffSignin(app, STAFF_PASSWORD);
    expect(response.headers.location).toBe(PAGE);
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(
      /^staff=staff\.\d+\.[\w-]+\.[\w%+/=-]+; Max-Age=3600; Path=\/; HttpOnly; SameSite=Strict$/,
    );
    const https = await app.inject({
      method: 'POST',
      url: SIGNIN_PATH,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-forwarded-proto': 'https',
      },
      payload: `contrasena=${STAFF_PASSWORD}`,
    });
    expect(String(https.headers['set-cookie'])).toMatch(
      /^__Host-staff=.*; Max-Age=3600; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = sessionCookie(response.headers['set-cookie']);
    expect((await staffPage(app, cookie)).statusCode).toBe(200);
    // A forged value, or one not signed by us, opens nothing.
    const [name, value] = cookie.split('=') as [string, string];
    const unsigned = decodeURIComponent(value).replace(/\.[^.]+$/, '');
    expect((await staffPage(app, `${name}=${unsigned}.forged`)).statusCode).toBe(401);
    clock.advance(3600 * 1000 + 1);
    expect((await staffPage(app, cookie)).statusCode).toBe(401);
    await app.close();
  });

  it('signs out: the browser is told to drop the cookie at once', async () => {
    const app = await server();
    const cookie = await staffCookie(app);
    const out = await app.inject({ method: 'POST', url: `${PAGE}/salir`, headers: { cookie } });
    expect(out.statusCode).toBe(303);
    expect(String(out.headers['set-cookie'])).toMatch(
      /^staff=; Max-Age=0;.*Expires=Thu, 01 Jan 1970/,
    );
    await app.close();
  });

  it("keeps the two apart: the visitors' session does not open the staff page, the staff cookie does not open the video", async () => {
    const app = await server();
    const visitor = await visitorCookie(app);
    const staff = await staffCookie(app);
    expect((await staffPage(app, visitor)).statusCode).toBe(401);
    // The visitor's signed token under the staff cookie's name is not a staff cookie either.
    expect((await staffPage(app, visitor.replace(/^sid=/, 'staff='))).statusCode).toBe(401);
    for (const url of ['/api/video', '/api/video/captions.vtt'])
      expect(
        (await app.inject({ method: 'GET', url, headers: { cookie: staff } })).statusCode,
      ).toBe(401);
    expect(
      (
        await app.inject({
          method: 'GET',
          url: '/api/video',
          headers: { cookie: staff.replace(/^staff=/, 'sid=') },
        })
      ).statusCode,
    ).toBe(401);
    await app.close();
  });

  it('is never linked from the visitors’ app', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : [path];
      });
    for (const file of files(join(REPO, 'src')))
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/\/equipo\b/);
  });
});

describe("the staff page's figures", () => {
  it('are those of report-summary.ts for the period, reports sent through the real route', async () => {
    const clock = fakeClock();
    const app = await server({}, clock);
    const phone = await visitorCookie(app);
    const desktop = await visitorCookie(app);
    await report(app, phone, viewReport());
    await report(app, phone, viewReport({ seen: [[0, 90]], firstFrameMs: 900, offline: true }));
    await report(
      app,
      desktop,
      viewReport({
        device: 'desktop',
        browser: { family: 'firefox', major: 128, engine: 'gecko' },
        seen: [[0, 85]],
        firstFrameMs: 3200,
        stalls: 0,
        seeks: 0,
        renditions: { '720p': 85 },
      }),
    );
    await report(
      app,
      desktop,
      eventsReport([
        { type: 'download', outcome: 'started', rendition: '360p', bytes: 0 },
        { type: 'download', outcome: 'finished', rendition: '360p', bytes: 12_000_000 },
        { type: 'vital', name: 'LCP', metric: 'v5-1-lcp', value: 2100 },
        { type: 'vital', name: 'INP', metric: 'v5-1-inp', value: 350 },
      ]),
    );
    clock.advance(60_000);
    const staff = await staffCookie(app);
    const response = await staffPage(app, staff, '?periodo=7');
    expect(response.statusCode).toBe(200);
    const html = response.body;

    const store = new FileReportStore({ dir: dataDir, retentionMs: 365 * DAY_MS, now: clock.now });
    const since = clock.now() - 7 * DAY_MS;
    const summary: Summary = await summarize(
      store.since(since),
      { since, until: clock.now() },
      null,
    );
    await store.close();
    expect(summary.views).toBe(3);
    expect(figureOf(html, 'Visitas')).toBe(es.format(summary.views));
    expect(figureOf(html, 'Dispositivos')).toBe(es.format(summary.devices));
    expect(figureOf(html, 'Completas')).toBe(`${es.format((100 * summary.completed) / 3)} %`);
    expect(figureOf(html, 'Sin conexión')).toBe(String(summary.offlineViews));
    // The two phone views seeked (the reports' default), the desktop one did not.
    expect(summary.viewsWithSeeks).toBe(2);
    expect(figureOf(html, 'Con saltos')).toBe(`${es.format(200 / 3)} %`);
    expect(figureOf(html, 'Primer cuadro, mediana')).toBe(
      `${es.format(summary.firstFrameMs.p50! / 1000)} s`,
    );
    expect(figureOf(html, 'Primer cuadro, p75')).toBe(
      `${es.format(summary.firstFrameMs.p75! / 1000)} s`,
    );
    expect(figureOf(html, 'Primer cuadro, p95')).toBe(
      `${es.format(summary.firstFrameMs.p95! / 1000)} s`,
    );
    expect(figureOf(html, 'Cortes por minuto')).toBe(es.format(summary.stallsPerMinute!));
    expect(figureOf(html, 'Iniciadas')).toBe('1');
    expect(figureOf(html, 'Terminadas')).toBe('1');
    expect(html).toContain(`<small>${es.format(12)} MB</small>`);
    // Web Vitals against their thresholds; browsers and renditions as bars.
    expect(html).toMatch(
      /<th scope="row">LCP<\/th><td>2,1 s<\/td><td><span class="rating good">Bien/,
    );
    expect(html).toMatch(
      /<th scope="row">INP<\/th><td>350 ms<\/td><td><span class="rating needs-improvement">A mejorar/,
    );
    expect(html).toMatch(
      /<svg class="chart bars" id="navegadores"[\s\S]*?chrome 131[\s\S]*?firefox 128/,
    );
    expect(html).toMatch(/<svg class="chart bars" id="calidades"[\s\S]*?720p/);
    // The engagement graph's bars are the summary's seconds, as shares of the views.
    const { heights, plot } = engagementBars(html);
    expect(heights).toHaveLength(summary.secondsWatched.length);
    heights.forEach((height, second) =>
      expect(height).toBeCloseTo((summary.secondsWatched[second]! / 3) * plot, 1),
    );
    // The sample's chapters are marked, and listed.
    expect(html).toContain('Elección y preparación del terreno');
    expect(html.match(/class="chapter"/g)?.length).toBe(2 * 5);
    await app.close();
  });

  it('draws one bar per second: full for seconds 0-20 and 60-70 of a view that saw them, empty elsewhere', async () => {
    const app = await server();
    await report(app, await visitorCookie(app), viewReport());
    const { heights, plot } = engagementBars((await staffPage(app, await staffCookie(app))).body);
    expect(heights).toHaveLength(90);
    const expected = Array.from({ length: 90 }, (_, s) =>
      s < 20 || (s >= 60 && s < 70) ? plot : 0,
    );
    expect(heights).toEqual(expected);
    await app.close();
  });

  it('filters by the period chosen in the GET form, and says so plainly when a period is empty', async () => {
    const clock = fakeClock();
    const app = await server({}, clock);
    await report(app, await visitorCookie(app), viewReport());
    clock.advance(20 * DAY_MS);
    await report(app, await visitorCookie(app), viewReport());
    await report(app, await visitorCookie(app), viewReport());
    let staff = await staffCookie(app);
    const views = async (query: string) => {
      const html = (await staffPage(app, staff, query)).body;
      return html.includes('No hubo visitas en este período.')
        ? 0
        : Number(figureOf(html, 'Visitas'));
    };
    expect(await views('?periodo=7')).toBe(2);
    expect(await views('?periodo=30')).toBe(3);
    expect(await views('')).toBe(3);
    const today = new Date(clock.now()).toISOString().slice(0, 10);
    expect(await views(`?periodo=desde&desde=${today}`)).toBe(2);
    expect(await views('?periodo=desde&desde=2020-01-01')).toBe(3);
    const form = (await staffPage(app, staff, `?periodo=desde&desde=${today}`)).body;
    expect(form).toContain('<option value="desde" selected>');
    expect(form).toContain(`value="${today}"`);
    const wrong = (await staffPage(app, staff, '?periodo=desde&desde=2099-01-01')).body;
    expect(wrong).toContain('Fecha no válida o futura');
    clock.advance(20 * DAY_MS);
    // The staff cookie has run out meanwhile.
    staff = await staffCookie(app);
    expect(await views('?periodo=7')).toBe(0);
    await app.close();
  });
});
