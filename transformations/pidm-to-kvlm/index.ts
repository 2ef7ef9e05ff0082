/**
 * The model-to-model transformation PIDM → KVLM (paper section 4.5): Algorithm 1 makes one collection
 * per query, Algorithm 3 merges collections that share enough fields (with Algorithm 2), and the result
 * is a KVLM AST built in memory. Pure: no file system, no console.
 */
import type { KvlmModel, PidmModel } from '../../src/language/generated/ast.js';
import { buildKvlm } from './build-kvlm.js';
import { FieldInterner, type CollectionModel } from './collection-model.js';
import { optimizeSchema } from './optimize-schema.js';
import { optimizeSchemaReference } from './optimize-schema-reference.js';
import {
    databaseNameFromPath,
    declaredDatabaseName,
    DEFAULT_TRANSFORM_OPTIONS,
    resolveTransformOptions,
    type TransformOptions,
} from './options.js';
import { queryToCollection } from './query-to-collection.js';
import type { MergeDecisionInfo } from './trace.js';
import { closestPairs, type NearMisses } from './near-misses.js';
import {
    chooseByCost,
    costedDesign,
    type CostChoice,
    type CostedDesign,
    type LookupPricing,
} from './choose-by-cost.js';
import { Workload } from '../../src/language/pidm/pidm-workload.js';

export {
    checkTransformOptions,
    DEFAULT_TRANSFORM_OPTIONS,
    KEY_STRATEGIES,
    MERGE_POLICIES,
    databaseNameFromPath,
    declaredDatabaseName,
} from './options.js';
export type { KeyStrategyKind, MergePolicy, OptimizerKind, TransformOptions } from './options.js';
export type { MergeDecisionInfo } from './trace.js';
export type { NearMiss, NearMisses } from './near-misses.js';
export type { CostChoice, CostDecision, CostedDesign, LookupPricing } from './choose-by-cost.js';
export type { Cost } from './cost-model.js';
export { COPY, INDEX, OPERATION, ROUND_TRIP, ROW, SCAN } from './cost-model.js';

/** The transformation's result: the KVLM AST, the merge trace, and warnings about the input. */
export interface TransformResult {
    model: KvlmModel;
    decisions: MergeDecisionInfo[];
    warnings: string[];
    /** The closest pairs below the threshold, when `closestPairs` asked for them. */
    nearMisses?: NearMisses;
    /** Under `--merge cost`: the greedy's steps with their figures, the cost of the start and of the choice. */
    cost?: Pick<CostChoice, 'steps' | 'startCost' | 'cost' | 'lookups'>;
}

/**
 * Transforms validated PIDM models (queries in argument order, then declaration order) into a KVLM
 * model. Throws a RangeError on an invalid option (see `checkTransformOptions`).
 */
export function transformPidmToKvlm(models: PidmModel[], options: Partial<TransformOptions> = {}): TransformResult {
    const resolved = resolveTransformOptions(
        options,
        declaredDatabaseName(models) ?? databaseNameFromPath(models[0]?.$document?.uri.path),
    );
    const warnings: string[] = [];
    const collections = collectionsOfQueries(models, warnings);
    const optimize = resolved.optimizer === 'reference' ? optimizeSchemaReference : optimizeSchema;
    const choice =
        resolved.merge === 'cost' ? chooseByCost(collections, resolved.threshold, new Workload(models)) : undefined;
    const optimized = choice ?? optimize(collections, resolved.threshold, resolved.merge);
    const model = buildKvlm(optimized.collections, optimized.decisions, {
        databaseName: resolved.databaseName,
        sourceName: resolved.sourceName,
        merge: resolved.merge,
        threshold: resolved.threshold,
        keyStrategy: resolved.keyStrategy,
    });
    const wanted = resolved.closestPairs ?? 0;
    const nearMisses =
        wanted > 0 && !choice
            ? closestPairs(optimized.collections, resolved.threshold, resolved.merge, wanted)
            : undefined;
    return {
        model,
        decisions: optimized.decisions,
        warnings: [...warnings, ...optimized.warnings],
        ...(nearMisses ? { nearMisses } : {}),
        ...(choice
            ? { cost: { steps: choice.steps, startCost: choice.startCost, cost: choice.cost, lookups: choice.lookups } }
            : {}),
    };
}

/** The design the cost policy chooses and the one the 80% rule (`paper`) makes, each with its cost. */
export interface CostComparison {
    threshold: number;
    cost: CostedDesign;
    paper: CostedDesign;
    /** The cost design's collections in their narrower form with a lookup, priced (not served by a target yet). */
    lookups: LookupPricing[];
}

/**
 * What `--merge cost` and `--merge paper` make of the models at the threshold, costed under the models' workload
 * (its defaults where it says nothing), for a side-by-side comparison (the report target's).
 */
export function compareByCost(models: PidmModel[], threshold = DEFAULT_TRANSFORM_OPTIONS.threshold): CostComparison {
    const collections = collectionsOfQueries(models, []);
    const workload = new Workload(models);
    const choice = chooseByCost(collections, threshold, workload);
    return {
        threshold,
        cost: costedDesign(choice.collections, workload),
        paper: costedDesign(optimizeSchema(collections, threshold, 'paper').collections, workload),
        lookups: choice.lookups,
    };
}

/** Algorithm 1 over every query; a query whose name was already used is skipped with a warning. */
export function collectionsOfQueries(
    models: readonly PidmModel[],
    warnings: string[],
    interner = new FieldInterner(),
): CollectionModel[] {
    const collections: CollectionModel[] = [];
    const names = new Set<string>();
    for (const model of models) {
        for (const query of model.queries ?? []) {
            if (names.has(query.name)) {
                warnings.push(`query ${query.name} is declared more than once; only the first one gets a collection`);
                continue;
            }
            const collection = queryToCollection(query, interner, warnings);
            if (!collection) continue;
            names.add(query.name);
            collections.push(collection);
        }
    }
    return collections;
}
