/**
 * The Grafana dashboard in the docs asks Prometheus only for series an instance exposes: each
 * series and label its queries name is in the metrics text after real reports went through.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../server/metrics';
import { eventsReport, viewReport } from './field-reports';

const dashboard = JSON.parse(readFileSync('docs/grafana/field-reports.json', 'utf8')) as {
  panels: { title: string; targets: { expr: string }[] }[];
};
const queries = dashboard.panels.flatMap((panel) =>
  panel.targets.map((target) => ({ panel: panel.title, expr: target.expr })),
);

async function exposed() {
  const metrics = createMetrics();
  metrics.fieldReport(viewReport());
  metrics.fieldReport(viewReport({ stallS: 0, stalls: 0, offline: true }));
  metrics.fieldReport(
    eventsReport([{ type: 'download', outcome: 'finished', rendition: '360p', bytes: 1 }]),
  );
  metrics.report('duplicate');
  return metrics.registry.metrics();
}

describe('the Grafana dashboard (docs/grafana/field-reports.json)', () => {
  it('has a panel for views, completion, offline views, first frame, stalls and downloads', () => {
    const text = queries.map((query) => query.expr).join('\n');
    for (const name of [
      'field_views_total',
      'field_completions_total',
      'field_offline_views_total',
      'field_first_frame_seconds_bucket',
      'field_stall_seconds',
      'field_downloads_total',
    ])
      expect(text).toContain(name);
  });

  it('names only series the server exposes, with the labels it gives them', async () => {
    const text = await exposed();
    for (const { panel, expr } of queries) {
      for (const [series] of expr.matchAll(/\bfield_[a-z_]+/g))
        expect(text, `${panel}: ${series}`).toMatch(new RegExp(`^${series}[{ ]`, 'm'));
      for (const [, label] of expr.matchAll(/\bby \(([a-z_]+)\)/g))
        if (label !== 'le') expect(text, `${panel}: by ${label}`).toContain(`${label}="`);
      for (const [, label, value] of expr.matchAll(/\{([a-z_]+)="([^"]+)"\}/g))
        expect(text, `${panel}: ${label}="${value}"`).toContain(`${label}="${value}"`);
    }
  });
});
