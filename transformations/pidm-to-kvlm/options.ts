/**
 * The options of the PIDM → KVLM transformation, their defaults, and the one place that checks them, so
 * that the CLI, the pipeline and the tests reject the same bad values with the same words.
 */
import type { PidmModel } from '../../src/language/generated/ast.js';

/**
 * How collections are merged: Algorithm 3 grain-safe only (default), the paper's literal rule, never, or by the
 * cost of the design under the model's workload (grain-safe merges only, the threshold giving the start).
 */
export type MergePolicy = 'safe' | 'paper' | 'none' | 'cost';

/** How row keys are made: from the identifiers along the row's path, or from a per-collection counter. */
export type KeyStrategyKind = 'natural' | 'counter';

/** Which Algorithm 3 implementation runs; both give the same model, the reference is only for tests and the bench. */
export type OptimizerKind = 'fast' | 'reference';

/** The transformation's options (all have defaults, see `DEFAULT_TRANSFORM_OPTIONS`). */
export interface TransformOptions {
    /** Merge when common/n1 >= t and common/n2 >= t (non-key fields). Default 0.8. */ threshold: number;
    /** Which pairs that pass the threshold may merge. Default `safe`. */
    merge: MergePolicy;
    /** How row keys are made. Default `natural`. */
    keyStrategy: KeyStrategyKind;
    /**
     * The KVLM database name. Default: the one the models declare (`database clinic`), else the first model
     * document's base name, else `kvmod`.
     */
    databaseName: string;
    /** Printed as `source "…"` when given. */
    sourceName?: string;
    /** Algorithm 3 implementation; `reference` is the literal O(m²·n²) one kept for tests and the bench. Default `fast`. */
    optimizer?: OptimizerKind;
    /** How many of the closest pairs below the threshold to report (`TransformResult.nearMisses`). Default 0: none looked for. */
    closestPairs?: number;
}

/** The defaults; `databaseName` is filled from the input when the caller gives none. */
export const DEFAULT_TRANSFORM_OPTIONS: Readonly<Omit<TransformOptions, 'databaseName'>> = {
    threshold: 0.8,
    merge: 'safe',
    keyStrategy: 'natural',
    optimizer: 'fast',
};

/** The merge policies, in the order help texts list them. */
export const MERGE_POLICIES: readonly MergePolicy[] = ['safe', 'paper', 'none', 'cost'];

/** The key strategies, in the order help texts list them. */
export const KEY_STRATEGIES: readonly KeyStrategyKind[] = ['natural', 'counter'];

/** Why an option value is unacceptable, in a user's words; undefined when it is fine. */
export function checkTransformOptions(options: Partial<TransformOptions>): string | undefined {
    const { threshold, merge, keyStrategy, databaseName, optimizer, closestPairs } = options;
    if (
        threshold !== undefined &&
        !(typeof threshold === 'number' && Number.isFinite(threshold) && threshold > 0 && threshold <= 1)
    ) {
        return `the threshold must be a number in (0, 1], got ${String(threshold)}`;
    }
    if (merge !== undefined && !MERGE_POLICIES.includes(merge)) {
        return `the merge policy must be one of ${MERGE_POLICIES.join(', ')}, got ${String(merge)}`;
    }
    if (keyStrategy !== undefined && !KEY_STRATEGIES.includes(keyStrategy)) {
        return `the key strategy must be one of ${KEY_STRATEGIES.join(', ')}, got ${String(keyStrategy)}`;
    }
    if (databaseName !== undefined && !/^[_a-zA-Z]\w*$/.test(databaseName)) {
        return `the database name must be letters, digits and '_', not starting with a digit, got ${JSON.stringify(databaseName)}`;
    }
    if (optimizer !== undefined && optimizer !== 'fast' && optimizer !== 'reference') {
        return `the optimizer must be fast or reference, got ${String(optimizer)}`;
    }
    if (closestPairs !== undefined && !(Number.isInteger(closestPairs) && closestPairs >= 0)) {
        return `the number of closest pairs must be a whole number >= 0, got ${String(closestPairs)}`;
    }
    return undefined;
}

/** Fills the defaults; throws a RangeError with `checkTransformOptions`'s words on a bad value. */
export function resolveTransformOptions(
    options: Partial<TransformOptions>,
    fallbackDatabaseName: string,
): TransformOptions {
    const problem = checkTransformOptions(options);
    if (problem) throw new RangeError(problem);
    const defined = Object.fromEntries(
        Object.entries(options).filter(([, value]) => value !== undefined),
    ) as Partial<TransformOptions>;
    return { ...DEFAULT_TRANSFORM_OPTIONS, databaseName: fallbackDatabaseName, ...defined };
}

/** The database name the models declare (`database clinic`; the validation allows one declaration), if any. */
export function declaredDatabaseName(models: readonly PidmModel[]): string | undefined {
    for (const model of models) for (const database of model.databases ?? []) if (database.name) return database.name;
    return undefined;
}

/** A database name made from a file name: its base name without extension, non-word characters as `_`. */
export function databaseNameFromPath(path: string | undefined): string {
    const base = (path ?? '').split(/[\\/]/).pop() ?? '';
    const stem = base.replace(/\.[^.]*$/, '');
    const cleaned = stem.replace(/\W/g, '_');
    if (cleaned === '') return 'kvmod';
    return /^\d/.test(cleaned) ? `_${cleaned}` : cleaned;
}
