/**
 * The transformation as every front end runs it: load and validate the PIDM (errors stop it), transform
 * to a KVLM AST, validate that AST in memory with the language's checks a `.kvlm` file gets (a rule the
 * transformation breaks shows up here as an internal error with the KVLM diagnostics, never as a wrong file;
 * the model's warnings are the user's), and print it. That the printed text parses back to the same model,
 * every reference linking to the node the AST holds, is a property the tests hold
 * (test/pipeline/transform.test.ts, test/transformations/optimize-schema-property.test.ts): parsing it here
 * again cost more than everything else on large models, and checking each reference's link in memory was
 * most of the check's time. Writing is the caller's business (see `writeFileAtomically` in generation-writer.ts).
 */
import { basename } from 'node:path';
import type { KvmodCoreServices } from '../language/kvmod-core-module.js';
import type { KvlmModel, PidmModel } from '../language/generated/ast.js';
import type { Mutable } from '../language/common/ast-construction.js';
import { printKvlm } from '../language/kvlm/kvlm-printer.js';
import { detachedEntities } from '../language/pidm/pidm-detached.js';
import { markBuiltFromSource } from '../language/kvlm/kvlm-source-check.js';
import {
    checkTransformOptions,
    databaseNameFromPath,
    declaredDatabaseName,
    transformPidmToKvlm,
    type MergeDecisionInfo,
    type NearMisses,
    type TransformOptions,
    type TransformResult,
    OPERATION,
    ROUND_TRIP,
} from '../../transformations/pidm-to-kvlm/index.js';
import { KvmodError } from './errors.js';
import { checkHeapHeadroom } from './memory-guard.js';
import { releaseHeap } from './heap-release.js';
import { phaseDone } from './phase-timing.js';
import { checkBuiltKvlm, formatDiagnostic, loadWorkspace, type KvmodDiagnostic } from './load.js';

/**
 * How much more than loading the PIDM a transformation takes at its peak, for the memory guard: the peak is
 * the in-memory check of the KVLM while the PIDM is still loaded (when the caller keeps it; otherwise it is freed
 * before the check); printing and generation come after the PIDM is freed. The check's symbol index is small
 * (built-model-check.ts): the measured ratios (docs/benchmarks.md) stay below this, which keeps a margin.
 */
export const TRANSFORM_HEAP_SCALE = 1.4;

/** Options of `transformFiles`: the transformation's, all optional. */
export type TransformFilesOptions = Partial<Omit<TransformOptions, 'optimizer'>> & {
    /**
     * Print the KVLM (`kvlmText`); default true. `generate` works from the model and skips it: printing a
     * 1000 × 1000 model is seconds and a 90 MB string nobody reads.
     */
    print?: boolean;
    /**
     * Return the PIDM models (`pidm`); default false: without them their syntax trees are freed once the
     * KVLM is checked, before printing (a 1000 × 1000 model is gigabytes of them). `querySites` stay.
     * `'entities'`: `pidm` holds detached plain copies of the entities only (`detachedEntities`), and the parsed
     * models are freed as without `keepSource`.
     */
    keepSource?: boolean | 'entities';
};

/** A query's declaration in its PIDM file: 1-based, end column exclusive (as in `KvmodDiagnostic`). */
export interface QuerySite {
    path: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
}

/**
 * Where a design's database name came from: given as an option, declared in the model (`database clinic`), made
 * from the first file's name (the default), or read from a `.kvlm` design.
 */
export interface DatabaseNameOrigin {
    name: string;
    source: 'option' | 'declared' | 'file-name' | 'kvlm';
    /** The declaration's `path:line:col`, or the file the name was made from or read from. */
    at: string;
}

/** A database name's origin as people read it: `declared at clinic.pidm:1:1`. */
export function describeDatabaseOrigin(origin: DatabaseNameOrigin): string {
    switch (origin.source) {
        case 'option':
            return 'given as an option';
        case 'declared':
            return `declared at ${origin.at}`;
        case 'file-name':
            return `from the file name ${origin.at}; the model declares no \`database\``;
        case 'kvlm':
            return `from ${origin.at}`;
    }
}

/** What `transformFiles` produced. Without `kvlm`, the PIDM had errors (see `diagnostics`). */
export interface TransformFilesResult {
    /** The printed KVLM, canonical text (absent when `print` was false). */
    kvlmText?: string;
    /** The KVLM model (validated; built in memory, so it has no CST: `kvlmText` is its text). */
    kvlm?: KvlmModel;
    /** The PIDM models transformed, when `keepSource` asked for them (so a caller does not parse them again). */
    pidm?: PidmModel[];
    /** Where each PIDM query is declared (the first declaration of a name), for diagnostics about it. */
    querySites: ReadonlyMap<string, QuerySite>;
    /** Every pair of collections that passed the threshold: merged or refused. */
    decisions: MergeDecisionInfo[];
    /** The closest pairs below the threshold, when `closestPairs` asked for them. */
    nearMisses?: NearMisses;
    /** Under `--merge cost`: the greedy's steps with their figures (`TransformResult.cost`). */
    cost?: TransformResult['cost'];
    /** The transformation's warnings (e.g. merges the paper policy made although answers may change). */
    warnings: string[];
    /** The PIDM diagnostics (errors stop the run), then any warnings on the printed KVLM. */
    diagnostics: KvmodDiagnostic[];
    /** The options in effect, defaults filled. */
    options: TransformOptions;
    /** Where `options.databaseName` came from. */
    databaseOrigin: DatabaseNameOrigin;
}

/** Stable codes of the transformation front door. */
export const TransformIssueCodes = {
    BadOption: 'transform.bad-option',
    NoModel: 'transform.no-model',
} as const;

/**
 * Loads the PIDM files (one workspace), transforms them, validates and prints the KVLM. A bad option
 * or an input without a PIDM model is a `KvmodError`; KVLM that does not validate is an internal `Error`.
 */
export async function transformFiles(
    paths: string[],
    options: TransformFilesOptions = {},
): Promise<TransformFilesResult> {
    const problem = checkTransformOptions(options);
    if (problem) throw new KvmodError(problem, { code: TransformIssueCodes.BadOption });
    // Until the models are loaded: then a `database` declaration they hold takes the place of the file name.
    const databaseName = options.databaseName ?? databaseNameFromPath(paths[0]);
    const effective: TransformOptions = {
        threshold: options.threshold ?? 0.8,
        merge: options.merge ?? 'safe',
        keyStrategy: options.keyStrategy ?? 'natural',
        databaseName,
        sourceName: options.sourceName ?? (paths[0] !== undefined ? basename(paths[0]) : undefined),
        ...(options.closestPairs !== undefined ? { closestPairs: options.closestPairs } : {}),
    };
    const fileName: DatabaseNameOrigin = { name: databaseName, source: 'file-name', at: paths[0] ?? '' };
    const origin: DatabaseNameOrigin =
        options.databaseName !== undefined ? { name: databaseName, source: 'option', at: '' } : fileName;
    const loaded = await loadAndTransform(paths, effective, options.keepSource ?? false, origin);
    if (loaded.kvlm === undefined)
        return {
            decisions: [],
            warnings: [],
            diagnostics: loaded.loadDiagnostics,
            querySites: new Map(),
            options: effective,
            databaseOrigin: loaded.databaseOrigin,
        };
    const { kvlm, pidm, services } = loaded;
    // Without `keepSource` nothing holds the PIDM any more: freed before the check (see `LoadedAndTransformed.services`).
    if (!services) {
        releaseHeap();
        phaseDone('release source');
    }
    // The references' links are the transformation's own property, proven by the tests (see the file comment).
    const kvlmDiagnostics = await checkBuiltKvlm(kvlm, loaded.checkPath, services, { links: false });
    phaseDone('check KVLM');
    const errors = kvlmDiagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
        const lines = errors.map(formatDiagnostic);
        throw new Error(`the KVLM the transformation built does not validate:\n${lines.slice(0, 20).join('\n')}`);
    }
    // The check wrapped the model in a document with an index of every named node (a third of the model's
    // size again); nothing after the check reads it, so the model goes back to having no document.
    (kvlm as Mutable<KvlmModel>).$document = undefined;
    const diagnostics = [...loaded.loadDiagnostics, ...kvlmDiagnostics];
    const kvlmText = options.print === false ? undefined : printKvlm(kvlm);
    if (kvlmText !== undefined) phaseDone('print KVLM');
    return {
        kvlmText,
        kvlm,
        pidm,
        querySites: loaded.querySites,
        decisions: loaded.decisions,
        ...(loaded.nearMisses ? { nearMisses: loaded.nearMisses } : {}),
        ...(loaded.cost ? { cost: loaded.cost } : {}),
        warnings: loaded.warnings,
        diagnostics,
        options: effective,
        databaseOrigin: loaded.databaseOrigin,
    };
}

/** The transformation of loaded PIDM files, what the KVLM check needs, and nothing of the PIDM unless asked. */
interface LoadedAndTransformed {
    /** Absent when the PIDM has errors. */
    kvlm?: KvlmModel;
    decisions: MergeDecisionInfo[];
    nearMisses?: NearMisses;
    cost?: TransformResult['cost'];
    warnings: string[];
    querySites: ReadonlyMap<string, QuerySite>;
    /** The diagnostics of loading the PIDM. */
    loadDiagnostics: KvmodDiagnostic[];
    /** The path the KVLM is checked as. */
    checkPath: string;
    /** Where the database name came from (the models' declaration, once they are loaded). */
    databaseOrigin: DatabaseNameOrigin;
    /** The PIDM models, when the caller keeps them (or their entities' detached copies). */
    pidm?: PidmModel[];
    /**
     * The workspace's services, when the caller keeps the PIDM. Otherwise the check gets services of its own and
     * the PIDM, whose nodes are most of the heap, can be freed before it: the check's results are the same (the
     * PIDM's symbols are of no type a KVLM reference takes, and the KVLM is not compared with the PIDM it was
     * built from: `markBuiltFromSource`), and it runs on a heap the size of the KVLM.
     */
    services?: KvmodCoreServices;
}

/**
 * Loads the PIDM files and transforms them. A function of its own so that once it returns nothing (not even
 * a stale temporary of its frame) holds the workspace but what it returns.
 */
async function loadAndTransform(
    paths: string[],
    effective: TransformOptions,
    keepSource: boolean | 'entities',
    origin: DatabaseNameOrigin,
): Promise<LoadedAndTransformed> {
    const workspace = await loadWorkspace(paths, { scale: TRANSFORM_HEAP_SCALE, purpose: 'transform' });
    if (workspace.hasErrors)
        return {
            decisions: [],
            warnings: [],
            querySites: new Map(),
            loadDiagnostics: workspace.diagnostics,
            checkPath: `${effective.databaseName}.kvlm`,
            databaseOrigin: origin,
        };
    phaseDone('load');
    // Parsing left the syntax trees (released once validated) and the parser's garbage: collected now, before the
    // transformation adds the KVLM, rather than whenever V8 next gets to it (on a large model that can be after the
    // transformation, with the KVLM and the garbage in the heap at once).
    releaseHeap();
    phaseDone('release syntax');
    const models = workspace.pidm.map((entry) => entry.model);
    if (models.length === 0) {
        throw new KvmodError(`no PIDM model among ${paths.join(', ') || 'the inputs'}`, {
            code: TransformIssueCodes.NoModel,
        });
    }
    const declared = origin.source === 'option' ? undefined : declarationOf(workspace.pidm);
    if (declared) effective.databaseName = declared.name;
    const databaseOrigin = declared ?? origin;
    const checkPath = `${effective.databaseName}.kvlm`;
    const result = transformPidmToKvlm(models, effective);
    phaseDone('transform');
    checkHeapHeadroom('after the transformation');
    // Built from these models: the check need not compare it with them (kvlm-source-check.ts, `builtFromSource`).
    markBuiltFromSource(result.model);
    return {
        kvlm: result.model,
        decisions: result.decisions,
        ...(result.nearMisses ? { nearMisses: result.nearMisses } : {}),
        ...(result.cost ? { cost: result.cost } : {}),
        warnings: result.warnings,
        querySites: querySitesOf(workspace.pidm),
        loadDiagnostics: workspace.diagnostics,
        checkPath,
        databaseOrigin,
        ...(keepSource === 'entities'
            ? { pidm: detachedEntities(models) }
            : keepSource
              ? { pidm: models, services: workspace.services }
              : {}),
    };
}

/** The models' `database` declaration (the validation allows one) with its `path:line:col`, if any. */
function declarationOf(entries: readonly { path: string; model: PidmModel }[]): DatabaseNameOrigin | undefined {
    const name = declaredDatabaseName(entries.map((entry) => entry.model));
    if (name === undefined) return undefined;
    for (const { path, model } of entries) {
        const database = model.databases?.[0];
        if (!database) continue;
        const start = database.$cstNode?.range.start;
        return { name, source: 'declared', at: start ? `${path}:${start.line + 1}:${start.character + 1}` : path };
    }
    return undefined;
}

/** The declaration of each query name (the first one) in loaded PIDM files. */
export function querySitesOf(entries: readonly { path: string; model: PidmModel }[]): Map<string, QuerySite> {
    const sites = new Map<string, QuerySite>();
    for (const { path, model } of entries) {
        for (const query of model.queries) {
            const range = query.$cstNode?.range;
            if (sites.has(query.name) || !range) continue;
            sites.set(query.name, {
                path,
                line: range.start.line + 1,
                column: range.start.character + 1,
                endLine: range.end.line + 1,
                endColumn: range.end.character + 1,
            });
        }
    }
    return sites;
}

/** How many of the closest pairs below the threshold `transform --explain` shows. */
export const EXPLAINED_NEAR_MISSES = 5;

/**
 * The merge decisions as an aligned table for people: the pair, common fields, both sizes, both
 * ratios, and what happened (merged into what, or refused and why); then, when the transformation looked
 * for them (`closestPairs`), the closest pairs below the threshold with the highest threshold each passes.
 */
export function explainDecisions(
    decisions: readonly MergeDecisionInfo[],
    options: Pick<TransformOptions, 'merge' | 'threshold'>,
    nearMisses?: NearMisses,
    cost?: TransformResult['cost'],
): string {
    const header = `Merge decisions (policy ${options.merge}, threshold ${options.threshold}; common = non-key fields with the same resolved attribute path)`;
    if (options.merge === 'none') return `${header}\nMerging is off (--merge none): one collection per query.\n`;
    const ratios = (common: number, leftSize: number, rightSize: number) => [
        String(common),
        String(leftSize),
        String(rightSize),
        (common / leftSize).toFixed(2),
        (common / rightSize).toFixed(2),
    ];
    const lines = [header];
    if (decisions.length === 0) lines.push('No pair of collections passed the threshold.');
    else
        lines.push(
            ...alignedTable(
                ['left', 'right', 'common', 'n1', 'n2', 'common/n1', 'common/n2', 'decision'],
                decisions.map((decision) => [
                    decision.left,
                    decision.right,
                    ...ratios(decision.common, decision.leftSize, decision.rightSize),
                    decision.result !== undefined
                        ? `merged -> ${decision.result}`
                        : `refused: ${decision.refusedBecause ?? ''}`,
                ]),
            ),
        );
    if (nearMisses) lines.push(...explainNearMisses(nearMisses, options));
    if (cost) lines.push(...explainCostChoice(cost, options));
    return lines.join('\n') + '\n';
}

/**
 * The cost policy's lines of `explainDecisions`: each change the greedy took with the cost (per unit of the
 * workload's time, in field accesses) of the collections it replaced and of those it made, then the totals.
 */
function explainCostChoice(
    cost: NonNullable<TransformResult['cost']>,
    options: Pick<TransformOptions, 'threshold'>,
): string[] {
    const figure = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
    const lines = [
        `Cost decisions (greedy from the safe design at threshold ${options.threshold}; time = reads + writes in field accesses per unit of the workload, a round trip = ${ROUND_TRIP}, an entity operation ${OPERATION} whatever the design)`,
    ];
    if (cost.steps.length === 0) lines.push('No change saves anything: the safe design is kept.');
    else
        lines.push(
            ...alignedTable(
                ['change', 'of', 'time before', 'time after', 'reads after', 'writes after', 'memory after', 'queries'],
                cost.steps.map((step) => [
                    step.change,
                    step.change === 'merge' ? `${step.left} + ${step.right}` : `${step.right} out of ${step.left}`,
                    figure(step.before.time),
                    figure(step.after.time),
                    figure(step.after.reads),
                    figure(step.after.writes),
                    figure(step.after.memory),
                    `${step.leftQueries.join(', ')} | ${step.rightQueries.join(', ')}`,
                ]),
                2,
            ),
        );
    const total = (label: string, value: NonNullable<TransformResult['cost']>['cost']) =>
        `${label}: time ${figure(value.time)} (reads ${figure(value.reads)}, writes ${figure(value.writes)}), memory ${figure(value.memory)}`;
    lines.push(total('Safe design', cost.startCost), total('Chosen design', cost.cost));
    if (cost.lookups.length > 0) {
        lines.push(
            'Narrower collections with a lookup by identifier in the entity store (priced, not served by this target yet: its client does not join, so the choice never takes them)',
            ...alignedTable(
                [
                    'collection',
                    'time now',
                    'time narrowed',
                    'reads narrowed',
                    'writes narrowed',
                    'memory narrowed',
                    'looks up',
                ],
                cost.lookups.map((lookup) => [
                    lookup.collection,
                    figure(lookup.materialized.time),
                    figure(lookup.narrowed.time),
                    figure(lookup.narrowed.reads),
                    figure(lookup.narrowed.writes),
                    figure(lookup.narrowed.memory),
                    lookup.lookups.map((l) => `${l.entity} (${l.fields.join(', ')})`).join(', '),
                ]),
                1,
            ),
        );
    }
    return lines;
}

/** The near misses' lines of `explainDecisions`. */
function explainNearMisses(nearMisses: NearMisses, options: Pick<TransformOptions, 'merge' | 'threshold'>): string[] {
    const lines: string[] = [];
    if (nearMisses.pairs.length === 0) {
        const grains =
            options.merge === 'safe' ? ' (pairs whose grains differ left out: no threshold merges them)' : '';
        lines.push(`No pair below the threshold shares a field${grains}.`);
    } else {
        lines.push('Closest pairs below the threshold, with the highest --threshold at which each pair passes:');
        lines.push(
            ...alignedTable(
                ['left', 'right', 'common', 'n1', 'n2', 'common/n1', 'common/n2', 'passes at'],
                nearMisses.pairs.map((pair) => [
                    pair.left,
                    pair.right,
                    String(pair.common),
                    String(pair.leftSize),
                    String(pair.rightSize),
                    (pair.common / pair.leftSize).toFixed(2),
                    (pair.common / pair.rightSize).toFixed(2),
                    `--threshold ${pair.passesAt.toFixed(2)}`,
                ]),
            ),
        );
    }
    if (!nearMisses.complete)
        lines.push('(too many pairs share fields to compare them all: these are the closest among those compared)');
    return lines;
}

/** Rows under their titles, columns aligned (the figures to the right), the last column as is. */
function alignedTable(titles: string[], rows: string[][], names = 2): string[] {
    // Names first, then figures, and a last column of text.
    const alignRight = titles.map((_, column) => column >= names && column < titles.length - 1);
    const widths = titles.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (cells: string[]) =>
        cells
            .map((cell, column) =>
                column === cells.length - 1
                    ? cell
                    : alignRight[column]
                      ? cell.padStart(widths[column])
                      : cell.padEnd(widths[column]),
            )
            .join('  ')
            .trimEnd();
    return [line(titles), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}
