/**
 * The staff page's stylesheet, served as a file from {base}/equipo/estilo.css: the site's CSP
 * allows styles from 'self' and no inline style. Phone first; the wide graph from 700 px.
 */
export const STAFF_CSS = `
:root { color-scheme: light; --green: #2e6b34; --ink: #1d2420; --muted: #59645c; --line: #d5ddd6; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.45 system-ui, sans-serif; color: var(--ink); background: #f4f6f3; }
main { max-width: 960px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5rem; margin: 0; }
h2 { font-size: 1.15rem; margin: 0 0 8px; }
h3 { font-size: 1rem; margin: 12px 0 0; }
header { display: flex; justify-content: space-between; align-items: center; gap: 12px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px; margin: 14px 0; }
form.period { display: flex; flex-wrap: wrap; align-items: end; gap: 8px 12px; margin: 14px 0 4px; }
form.period label { flex-basis: 100%; font-size: 0.9rem; color: var(--muted); margin-bottom: -6px; }
input, select, button { font: inherit; min-height: 44px; border-radius: 6px; }
input, select { border: 1px solid #8a958c; padding: 6px 10px; background: #fff; }
button { border: 0; padding: 8px 18px; background: var(--green); color: #fff; font-weight: 600; cursor: pointer; }
button.secondary { background: #fff; color: var(--green); border: 1px solid var(--green); }
.dates, small { color: var(--muted); }
.error { color: #a4161a; font-weight: 600; }
.empty { font-size: 1.1rem; background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 20px; }
.signin { max-width: 420px; padding-top: 12vh; }
.signin form { display: flex; flex-direction: column; gap: 10px; margin-top: 20px; }
dl.figures { display: grid; grid-template-columns: repeat(2, 1fr); gap: 10px; margin: 0 0 10px; }
.figure { border-left: 4px solid var(--green); padding: 2px 10px; }
dt { font-size: 0.9rem; color: var(--muted); }
dd { margin: 0; font-size: 1.5rem; font-weight: 700; }
dd small { display: block; font-size: 0.8rem; font-weight: 400; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0; }
svg .bar { fill: var(--green); }
svg .grid { stroke: var(--line); }
svg .chapter { stroke: #6b4f9e; stroke-width: 1.5; }
svg .chapter-number { fill: #6b4f9e; font-size: 12px; font-weight: 700; }
svg .stop { stroke: #a4161a; stroke-width: 2; stroke-dasharray: 4 3; }
svg text { fill: var(--ink); font-size: 12px; }
svg .axis { fill: var(--muted); font-size: 11px; }
svg.bars text { font-size: 13px; }
.only-wide { display: none; }
ol.chapters { padding-left: 1.5em; margin: 8px 0; }
ol.chapters span { color: var(--muted); font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
caption { text-align: left; color: var(--muted); padding-bottom: 6px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
details { margin-top: 8px; }
summary { cursor: pointer; min-height: 44px; display: flex; align-items: center; color: var(--green); font-weight: 600; }
.rating { padding: 2px 8px; border-radius: 10px; font-weight: 600; }
.rating.good { background: #d8eed9; color: #1d5423; }
.rating.needs-improvement { background: #fbecc5; color: #6b4b00; }
.rating.poor { background: #f7d4d4; color: #7d1114; }
@media (min-width: 700px) {
  dl.figures { grid-template-columns: repeat(4, 1fr); }
  .only-wide { display: block; }
  .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
  .only-phone { display: none; }
  form.period label { flex-basis: auto; margin: 0; }
}
`;
