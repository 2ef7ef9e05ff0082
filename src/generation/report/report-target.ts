/**
 * The report target: a design report in Markdown with Mermaid diagrams (the PIDM as an ER diagram, each
 * collection's row grain, key, fields and queries, the merge decisions, each query's access path on the
 * default engine). Template-only, so users restyle it with `kvmod templates eject report`. It runs on no
 * engine and declares no options.
 */
import type { GenerationTarget } from '../generation-target.js';
import type { ReportViewModel } from './report-design.js';
import { reportHelpers } from './report-helpers.js';

/** The report target's option declarations: none. */
export const reportTargetOptions = {};

/** The design-report generation target. */
export const reportTarget: GenerationTarget<typeof reportTargetOptions, ReportViewModel> = {
    name: 'report',
    description:
        'A design report in Markdown with Mermaid diagrams: the model, the collections, the merges, the access paths',
    usesSourceModel: true,
    options: reportTargetOptions,
    // Imported when it runs: the design code reaches the language layer, which `kvmod --help` must not load.
    buildDesign: async (input) => (await import('./report-design.js')).buildReportViewModel(input),
    templates: {
        viewModelSchema: 'schemas/report-view-model.schema.json',
        entries: [{ template: 'report.md.hbs' }],
        helpers: reportHelpers,
    },
};
