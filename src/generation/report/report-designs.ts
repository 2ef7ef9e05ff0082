/**
 * The designs a report can describe. Light on purpose (no import): the target's option declarations read it, and
 * `kvmod --help` loads those.
 */

/** The redis target's design (RediSearch) or the redis-core target's (core Redis and its function library). */
export const REPORT_DESIGNS = ['redis', 'redis-core'] as const;

/** A design a report can describe. */
export type ReportDesign = (typeof REPORT_DESIGNS)[number];
