import type { Summary } from './report-summary.js';
import {
  barChart,
  clock,
  engagementChart,
  escapeHtml as e,
  mostStopsAt,
  type BarRow,
  type Chapter,
} from './staff-charts.js';
import type { Period } from './staff-period.js';

/**
 * The staff page's HTML (docs/staff-page.md): the signin form and the period's report, whole
 * documents with no script. Spanish like the site; the figures are report-summary.ts's.
 */

export const STAFF_PATH = '/equipo';
export const STAFF_CSS_PATH = `${STAFF_PATH}/estilo.css`;

const number = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 1 });
const n = (value: number) => number.format(value);
const percent = (part: number, whole: number) => (whole > 0 ? `${n((100 * part) / whole)} %` : '–');
const ms = (value: number | null) =>
  value === null ? '–' : value >= 1000 ? `${n(value / 1000)} s` : `${n(value)} ms`;
const day = (iso: string) => iso.slice(0, 10).split('-').reverse().join('/');

function document(base: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${e(title)}</title>
<link rel="stylesheet" href="${base}${STAFF_CSS_PATH}">
</head>
<body>
${body}
</body>
</html>
`;
}

/** The staff signin; `error` is said above the field and tied to it for screen readers. */
export function signinPage(base: string, error: string | null): string {
  const message = error ? `<p class="error" id="error" role="alert">${e(error)}</p>` : '';
  return document(
    base,
    'Equipo: ingresar',
    `<main class="signin">
<h1>Informe de visitas</h1>
<p>Página del equipo de la empresa.</p>
<form method="post" action="${base}${STAFF_PATH}/ingresar">
${message}
<label for="contrasena">Contraseña del equipo</label>
<input id="contrasena" name="contrasena" type="password" autocomplete="current-password" required${error ? ' aria-invalid="true" aria-describedby="error"' : ''}>
<button type="submit">Ingresar</button>
</form>
</main>`,
  );
}

function periodForm(base: string, period: Period): string {
  const options = [
    ['7', 'Últimos 7 días'],
    ['30', 'Últimos 30 días'],
    ['90', 'Últimos 90 días'],
    ['desde', 'Desde una fecha'],
  ]
    .map(
      ([value, label]) =>
        `<option value="${value}"${period.choice === value ? ' selected' : ''}>${label}</option>`,
    )
    .join('');
  return `<form class="period" method="get" action="${base}${STAFF_PATH}">
<label for="periodo">Período</label>
<select id="periodo" name="periodo">${options}</select>
<label for="desde">Fecha (si elige «Desde una fecha»)</label>
<input id="desde" name="desde" type="date" value="${e(period.from)}">
<button type="submit">Ver</button>
</form>${period.problem ? `<p class="error" role="alert">${e(period.problem)}</p>` : ''}`;
}

const figure = (label: string, value: string, note = '') =>
  `<div class="figure"><dt>${e(label)}</dt><dd>${e(value)}${note ? `<small>${e(note)}</small>` : ''}</dd></div>`;

const section = (title: string, body: string) => `<section><h2>${e(title)}</h2>${body}</section>`;

function engagement(summary: Summary, chapters: Chapter[]): string {
  const { secondsWatched: seconds, views } = summary;
  if (seconds.length === 0) return '<p>Todavía no se conoce la duración del video.</p>';
  const stop = mostStopsAt(seconds);
  const charts =
    `<div class="only-phone">${engagementChart(seconds, views, chapters, { id: 'vistos-telefono', width: 360, height: 220 })}</div>` +
    `<div class="only-wide">${engagementChart(seconds, views, chapters, { id: 'vistos', width: 880, height: 280 })}</div>`;
  const stopText =
    stop === null
      ? '<p>Nadie dejó de ver antes del final.</p>'
      : `<p>Donde más visitas dejan de ver: <strong>${clock(stop)}</strong> (línea de trazos).</p>`;
  const list = chapters.length
    ? `<ol class="chapters">${chapters.map((c) => `<li><span>${clock(c.startS)}</span> ${e(c.title)}</li>`).join('')}</ol>`
    : '';
  // Every second up to ten minutes; a longer video in steps, so the table stays readable.
  const step = Math.max(1, Math.ceil(seconds.length / 600));
  const rows: string[] = [];
  for (let second = 0; second < seconds.length; second += step)
    rows.push(
      `<tr><td>${clock(second)}</td><td>${n(seconds[second]!)}</td><td>${percent(seconds[second]!, views)}</td></tr>`,
    );
  return `<p>Para cada segundo del video, la parte de las visitas que lo vio.</p>${charts}${stopText}${list}
<details><summary>Los números del gráfico</summary><table><caption>Visitas que vieron cada segundo</caption>
<thead><tr><th scope="col">Segundo</th><th scope="col">Visitas</th><th scope="col">Parte</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></details>`;
}

const RATINGS = { good: 'Bien', 'needs-improvement': 'A mejorar', poor: 'Mal' } as const;
/** web.dev's thresholds as report-summary.ts rates them, for the reader. */
const THRESHOLDS = {
  LCP: ['≤ 2,5 s', '> 4 s'],
  INP: ['≤ 200 ms', '> 500 ms'],
  CLS: ['≤ 0,1', '> 0,25'],
  FCP: ['≤ 1,8 s', '> 3 s'],
  TTFB: ['≤ 0,8 s', '> 1,8 s'],
} as const;

function vitals(summary: Summary): string {
  const rows = (Object.keys(THRESHOLDS) as (keyof typeof THRESHOLDS)[]).map((name) => {
    const { p75, count, rating } = summary.webVitals[name];
    const value = name === 'CLS' ? (p75 === null ? '–' : n(p75)) : ms(p75);
    const [good, poor] = THRESHOLDS[name];
    const badge = rating ? `<span class="rating ${rating}">${RATINGS[rating]}</span>` : '–';
    return `<tr><th scope="row">${name}</th><td>${value}</td><td>${badge}</td><td>${good} · ${poor}</td><td>${n(count)}</td></tr>`;
  });
  return `<div class="scroll"><table><caption>Percentil 75 de cada medida, con los umbrales publicados (bien · mal)</caption>
<thead><tr><th scope="col">Medida</th><th scope="col">p75</th><th scope="col">Resultado</th><th scope="col">Umbrales</th><th scope="col">Muestras</th></tr></thead>
<tbody>${rows.join('')}</tbody></table></div>`;
}

const rowsOf = (map: Record<string, number>, text: (value: number) => string): BarRow[] =>
  Object.entries(map)
    .sort((a, b) => b[1] - a[1])
    .map(([label, value]) => ({ label, value, text: text(value) }));

function bars(id: string, title: string, rows: BarRow[], desc: string): string {
  if (rows.length === 0) return `<p>${e(title)}: sin datos.</p>`;
  const list = rows.map((row) => `${row.label}: ${row.text}`).join('; ');
  return `<div><h3>${e(title)}</h3>${barChart(rows, { id, title, desc: `${desc} ${list}.` })}</div>`;
}

/** The period's report; an empty period says so and shows nothing else. */
export function reportPage(
  base: string,
  summary: Summary,
  period: Period,
  chapters: Chapter[],
  reportsOn: boolean,
): string {
  const { views, downloads: d, firstFrameMs: frame } = summary;
  const empty =
    views === 0 &&
    d.started === 0 &&
    Object.values(summary.webVitals).every((vital) => vital.count === 0);
  const header = `<header>
<h1>Informe de visitas</h1>
<form method="post" action="${base}${STAFF_PATH}/salir"><button type="submit" class="secondary">Salir</button></form>
</header>
${periodForm(base, period)}
<p class="dates">Del ${day(summary.since)} al ${day(summary.until)} (UTC).</p>`;
  if (!reportsOn || empty) {
    const why = reportsOn
      ? 'No hubo visitas en este período.'
      : 'Los informes están apagados (REPORTS=off): los teléfonos no envían nada.';
    return document(
      base,
      'Equipo: informe de visitas',
      `<main>${header}<p class="empty">${why}</p></main>`,
    );
  }
  const totalPlayed = Object.values(summary.renditions).reduce((a, b) => a + b, 0);
  const browsers = summary.browsers.map((b) => ({
    label: `${b.family} ${b.major}`,
    value: b.views,
    text: n(b.views),
  }));
  const body = [
    section(
      'Visitas',
      `<dl class="figures">${[
        figure(
          'Visitas',
          n(views),
          `teléfono ${n(summary.deviceClasses.phone)} · computadora ${n(summary.deviceClasses.desktop)}`,
        ),
        figure('Dispositivos', n(summary.devices), 'sesiones que enviaron informes'),
        figure(
          'Completas',
          percent(summary.completed, views),
          `${n(summary.completed)} vieron al menos el 90 %`,
        ),
        figure('Sin conexión', n(summary.offlineViews), 'visitas de la copia descargada'),
        figure(
          'Con saltos',
          percent(summary.viewsWithSeeks, views),
          `${n(summary.viewsWithSeeks)} adelantaron o volvieron atrás`,
        ),
      ].join('')}</dl>`,
    ),
    section('Segundos vistos', engagement(summary, chapters)),
    section(
      'Cómo se reprodujo',
      `<dl class="figures">${[
        figure('Primer cuadro, mediana', ms(frame.p50)),
        figure('Primer cuadro, p75', ms(frame.p75)),
        figure('Primer cuadro, p95', ms(frame.p95)),
        figure(
          'Cortes por minuto',
          summary.stallsPerMinute === null ? '–' : n(summary.stallsPerMinute),
          `${n(summary.stallSeconds)} s de corte en ${n(summary.minutesPlayed)} min`,
        ),
      ].join('')}</dl>${bars(
        'calidades',
        'Calidades vistas',
        rowsOf(summary.renditions, (s) => percent(s, totalPlayed)),
        'Parte del tiempo reproducido en cada calidad.',
      )}`,
    ),
    section(
      'Descargas',
      `<dl class="figures">${[
        figure('Iniciadas', n(d.started)),
        figure('Terminadas', n(d.finished), `${n(d.finishedBytes / 1e6)} MB`),
        figure('Canceladas', n(d.cancelled)),
        figure('Sin espacio', n(d.noRoom)),
      ].join('')}</dl>`,
    ),
    section('Web Vitals', vitals(summary)),
    section(
      'Navegadores',
      `<div class="pair">${bars('navegadores', 'Navegadores', browsers, 'Visitas por navegador y versión.')}${bars('motores', 'Motores', rowsOf(summary.engines, n), 'Visitas por motor del navegador.')}</div>`,
    ),
  ];
  const errors = Object.keys(summary.errors).length
    ? section(
        'Errores',
        bars(
          'errores',
          'Errores',
          rowsOf(summary.errors, n),
          'Visitas que terminaron en un error.',
        ),
      )
    : '';
  return document(
    base,
    'Equipo: informe de visitas',
    `<main>${header}${body.join('\n')}${errors}</main>`,
  );
}
