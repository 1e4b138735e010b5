import { DAY_MS } from './report-store.js';

/** The staff page's periods: the last 7, 30 or 90 days, or since a date. */
const PERIOD_CHOICES = ['7', '30', '90', 'desde'] as const;
type Choice = (typeof PERIOD_CHOICES)[number];

export interface Period {
  choice: Choice;
  /** `YYYY-MM-DD` as typed, for the form; empty unless chosen. */
  from: string;
  since: number;
  until: number;
  /** What was wrong with the query (the page then shows the default period). */
  problem: string | null;
}

const DEFAULT: Choice = '30';

const isChoice = (value: unknown): value is Choice =>
  typeof value === 'string' && (PERIOD_CHOICES as readonly string[]).includes(value);

/** The GET form's query, read leniently: anything wrong is the default period and a note. */
export function parsePeriod(query: Record<string, unknown>, now: number): Period {
  const choice = isChoice(query.periodo) ? query.periodo : DEFAULT;
  const days = (value: Choice) => ({ choice: value, since: now - Number(value) * DAY_MS });
  if (choice !== 'desde')
    return {
      ...days(choice),
      from: '',
      until: now,
      problem:
        query.periodo === undefined || isChoice(query.periodo)
          ? null
          : 'Período no válido: se muestran los últimos 30 días.',
    };
  const from = typeof query.desde === 'string' ? query.desde : '';
  // UTC midnight, like the report's dates; a date input always sends this shape.
  const since = /^\d{4}-\d{2}-\d{2}$/.test(from) ? Date.parse(`${from}T00:00:00Z`) : NaN;
  if (Number.isNaN(since) || since > now)
    return {
      ...days(DEFAULT),
      from,
      until: now,
      problem: 'Fecha no válida o futura: se muestran los últimos 30 días.',
    };
  return { choice, from, since, until: now, problem: null };
}
