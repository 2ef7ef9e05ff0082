/**
 * The report target: a design report in Markdown with Mermaid diagrams (the PIDM as an ER diagram, each
 * collection's row grain, key, fields and queries, the merge decisions, each query's access path). Template-only,
 * so users restyle it with `kvmod templates eject report`. It runs on no engine; its options name the design it
 * describes (the redis target's or the redis-core target's) and the redis target's options that change what the
 * report shows (the dialect of the access paths, the names of indexes and keys).
 */
import { booleanOption, choiceOption } from '../generation-options.js';
import type { GenerationTarget } from '../generation-target.js';
import { REDIS_DIALECTS } from '../shared/redis-dialects.js';
import { DEFAULT_REDIS_OPTIONS } from '../redis/redis-view-model-types.js';
import type { ReportViewModel } from './report-design.js';
import { reportHelpers } from './report-helpers.js';
import { REPORT_DESIGNS } from './report-designs.js';

/** The report target's option declarations. */
export const reportTargetOptions = {
    design: choiceOption(
        REPORT_DESIGNS,
        'redis',
        'The design whose keys and access paths the report shows: redis (RediSearch, as `--target redis` generates it) or redis-core (core Redis and its function library, as `--target redis-core` generates it)',
        // Reports of both designs generated into one root sit side by side, as the redis target's dialects do.
        { outputFolder: true },
    ),
    dialect: choiceOption(
        REDIS_DIALECTS,
        DEFAULT_REDIS_OPTIONS.dialect,
        'The RediSearch dialect whose access paths the report shows (as `--target redis --dialect` generates them; --design redis only)',
    ),
    dbPrefix: booleanOption(
        DEFAULT_REDIS_OPTIONS.dbPrefix,
        'Show index names and keys prefixed with the database name, as `--target redis --db-prefix` stores them (--design redis only)',
    ),
};

/** The design-report generation target. */
export const reportTarget: GenerationTarget<typeof reportTargetOptions, ReportViewModel> = {
    name: 'report',
    description:
        'A design report in Markdown with Mermaid diagrams: the model, the collections, the merges, the access paths',
    usesSourceModel: true,
    describesTargetOption: 'design',
    options: reportTargetOptions,
    // Imported when it runs: the design code reaches the language layer, which `kvmod --help` must not load.
    buildDesign: async (input, options) => (await import('./report-design.js')).buildReportViewModel(input, options),
    templates: {
        viewModelSchema: 'schemas/report-view-model.schema.json',
        entries: [{ template: 'report.md.hbs' }],
        helpers: reportHelpers,
    },
};
