/**
 * The transformation as every front end runs it: load and validate the PIDM (errors stop it), transform
 * to a KVLM AST, validate that AST in memory with every check a `.kvlm` file gets (its references must
 * link as the printed text would), and print it — a transformation bug shows up here as an internal
 * error with the KVLM diagnostics, never as a wrong file. That the printed text parses back to the same
 * model is a property the tests hold (test/pipeline/transform.test.ts); parsing it here again cost more
 * than everything else on large models. Writing is the caller's business (see `writeFileAtomically` in
 * generation-writer.ts).
 */
import { basename } from 'node:path';
import type { KvlmModel, PidmModel } from '../language/generated/ast.js';
import { printKvlm } from '../language/kvlm/kvlm-printer.js';
import {
    checkTransformOptions,
    databaseNameFromPath,
    transformPidmToKvlm,
    type MergeDecisionInfo,
    type TransformOptions,
} from '../../transformations/pidm-to-kvlm/index.js';
import { KvmodError } from './errors.js';
import { checkHeapForFiles, checkHeapHeadroom, TRANSFORM_HEAP_SCALE } from './memory-guard.js';
import { checkBuiltKvlm, formatDiagnostic, loadWorkspace, type KvmodDiagnostic } from './load.js';

/** Options of `transformFiles`: the transformation's, all optional. */
export type TransformFilesOptions = Partial<Omit<TransformOptions, 'optimizer'>>;

/** What `transformFiles` produced. Without `kvlm`, the PIDM had errors (see `diagnostics`). */
export interface TransformFilesResult {
    /** The printed KVLM, canonical text. */
    kvlmText?: string;
    /** The KVLM model (validated; built in memory, so it has no CST: `kvlmText` is its text). */
    kvlm?: KvlmModel;
    /** The PIDM models transformed (so a caller that needs them does not parse them again). */
    pidm?: PidmModel[];
    /** Every pair of collections that passed the threshold: merged or refused. */
    decisions: MergeDecisionInfo[];
    /** The transformation's warnings (e.g. merges the paper policy made although answers may change). */
    warnings: string[];
    /** The PIDM diagnostics (errors stop the run), then any warnings on the printed KVLM. */
    diagnostics: KvmodDiagnostic[];
    /** The options in effect, defaults filled. */
    options: TransformOptions;
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
    const databaseName = options.databaseName ?? databaseNameFromPath(paths[0]);
    const effective: TransformOptions = {
        threshold: options.threshold ?? 0.8,
        merge: options.merge ?? 'safe',
        keyStrategy: options.keyStrategy ?? 'natural',
        databaseName,
        sourceName: options.sourceName ?? (paths[0] !== undefined ? basename(paths[0]) : undefined),
    };
    await checkHeapForFiles(paths, TRANSFORM_HEAP_SCALE, 'transform');
    const workspace = await loadWorkspace(paths);
    if (workspace.hasErrors)
        return { decisions: [], warnings: [], diagnostics: workspace.diagnostics, options: effective };
    const models = workspace.pidm.map((entry) => entry.model);
    if (models.length === 0) {
        throw new KvmodError(`no PIDM model among ${paths.join(', ') || 'the inputs'}`, {
            code: TransformIssueCodes.NoModel,
        });
    }
    const result = transformPidmToKvlm(models, effective);
    checkHeapHeadroom('after the transformation');
    const kvlm = result.model;
    const kvlmDiagnostics = await checkBuiltKvlm(kvlm, `${databaseName}.kvlm`, workspace.services);
    const errors = kvlmDiagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
        const lines = errors.map(formatDiagnostic);
        throw new Error(`the KVLM the transformation built does not validate:\n${lines.slice(0, 20).join('\n')}`);
    }
    const kvlmText = printKvlm(kvlm);
    return {
        kvlmText,
        kvlm,
        pidm: models,
        decisions: result.decisions,
        warnings: result.warnings,
        diagnostics: [...workspace.diagnostics, ...kvlmDiagnostics],
        options: effective,
    };
}

/**
 * The merge decisions as an aligned table for people: the pair, common fields, both sizes, both
 * ratios, and what happened (merged into what, or refused and why).
 */
export function explainDecisions(
    decisions: readonly MergeDecisionInfo[],
    options: Pick<TransformOptions, 'merge' | 'threshold'>,
): string {
    const header = `Merge decisions (policy ${options.merge}, threshold ${options.threshold}; common = non-key fields with the same resolved attribute path)`;
    if (options.merge === 'none') return `${header}\nMerging is off (--merge none): one collection per query.\n`;
    if (decisions.length === 0) return `${header}\nNo pair of collections passed the threshold.\n`;
    const rows = decisions.map((decision) => [
        decision.left,
        decision.right,
        String(decision.common),
        String(decision.leftSize),
        String(decision.rightSize),
        (decision.common / decision.leftSize).toFixed(2),
        (decision.common / decision.rightSize).toFixed(2),
        decision.result !== undefined ? `merged -> ${decision.result}` : `refused: ${decision.refusedBecause ?? ''}`,
    ]);
    const titles = ['left', 'right', 'common', 'n1', 'n2', 'common/n1', 'common/n2', 'decision'];
    const numeric = [false, false, true, true, true, true, true, false];
    const widths = titles.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
    const line = (cells: string[]) =>
        cells
            .map((cell, column) =>
                column === cells.length - 1
                    ? cell
                    : numeric[column]
                      ? cell.padStart(widths[column])
                      : cell.padEnd(widths[column]),
            )
            .join('  ')
            .trimEnd();
    return [header, line(titles), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n') + '\n';
}
