/**
 * Algorithm 3 (schema optimization), literal and simple: O(m²·n²) like the paper's, kept as the
 * specification the fast implementation is tested against (same input, same printed KVLM).
 *
 * The reading (see transformations/README.md): repeat { among all pairs (i < j) of the current list, in
 * list order, take the first pair that passes the threshold and may merge; replace the left one by the
 * merge and remove the right one } until no pair qualifies. Every pair that passes the threshold but
 * may not merge is logged as refused, once, at the first moment both collections coexist.
 */
import { passesThreshold, type CollectionModel } from './collection-model.js';
import { grainConflict } from './grain.js';
import { mergeCollections, mergedName } from './merge-collections.js';
import type { MergePolicy } from './options.js';
import { DecisionLog, type OptimizationResult } from './trace.js';

/** Runs Algorithm 3 the slow, obvious way. */
export function optimizeSchemaReference(
    collections: readonly CollectionModel[],
    threshold: number,
    policy: MergePolicy,
): OptimizationResult {
    const log = new DecisionLog();
    if (policy === 'none') return { collections: [...collections], decisions: [], warnings: [] };
    const takenNames = new Set(collections.map((collection) => collection.name));
    let list = collections.map((collection, slot) => ({ collection, slot }));
    // Pairs already examined (collections never change once made, and names are unique).
    const examined = new Map<string, { common: number; passes: boolean; conflict?: string }>();
    for (let epoch = 0; ; epoch++) {
        let first: { i: number; j: number; common: number; conflict?: string } | undefined;
        for (let i = 0; i < list.length; i++) {
            for (let j = i + 1; j < list.length; j++) {
                const left = list[i];
                const right = list[j];
                const key = `${left.collection.name}\u0000${right.collection.name}`;
                let verdict = examined.get(key);
                const seenBefore = verdict !== undefined;
                if (!verdict) {
                    const common = intersectLiterally(left.collection, right.collection);
                    const passes = passesThreshold(
                        common,
                        left.collection.fields.length,
                        right.collection.fields.length,
                        threshold,
                    );
                    verdict = {
                        common,
                        passes,
                        conflict: passes ? grainConflict(left.collection, right.collection) : undefined,
                    };
                    examined.set(key, verdict);
                }
                if (!verdict.passes) continue;
                if (policy === 'paper' || !verdict.conflict) {
                    first ??= { i, j, common: verdict.common, conflict: verdict.conflict };
                } else if (!seenBefore) {
                    log.refused(
                        epoch,
                        left.slot,
                        left.collection,
                        right.slot,
                        right.collection,
                        verdict.common,
                        verdict.conflict,
                    );
                }
            }
        }
        if (!first) break;
        const left = list[first.i];
        const right = list[first.j];
        const merged = mergeCollections(
            left.collection,
            right.collection,
            mergedName(left.collection, right.collection, takenNames),
        );
        log.merged(left.collection, right.collection, merged, first.common, first.conflict);
        list = list.flatMap((entry, index) =>
            index === first.i ? [{ collection: merged, slot: entry.slot }] : index === first.j ? [] : [entry],
        );
    }
    return { collections: list.map((entry) => entry.collection), decisions: log.decisions(), warnings: log.warnings };
}

/** The paper's `intersect`: every field of one against every field of the other, by identity (its interned id). */
function intersectLiterally(left: CollectionModel, right: CollectionModel): number {
    let common = 0;
    for (const a of left.fields) {
        for (const b of right.fields) {
            if (a.id === b.id) {
                common++;
                break;
            }
        }
    }
    return common;
}
