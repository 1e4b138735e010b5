/**
 * The report format's limits that the page needs too (config/field-report.ts is the format). Apart
 * from it so that the page imports them without zod, which would add 30 KB to the video screen.
 */

/** A view with more separate watched stretches is reported in several parts. */
export const MAX_SEEN_RANGES = 64;
/** Events per report: a page queues more in several reports. */
export const MAX_EVENTS = 32;
