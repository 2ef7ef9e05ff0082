/**
 * The merge trace of Algorithm 3: which pairs passed the threshold, which merged into what, and which
 * were refused and why. Both implementations of Algorithm 3 log through `DecisionLog`, so that the
 * order of the trace is defined once and does not depend on how a pair was found.
 */
import type { CollectionModel } from './collection-model.js';

/** One pair of collections that passed the threshold: merged (`result`) or refused (`refusedBecause`). */
export interface MergeDecisionInfo {
    left: string;
    right: string;
    result?: string;
    refusedBecause?: string;
    /** Common non-key fields (identity = resolved attribute path). */
    common: number;
    /** Non-key fields of the left collection. */
    leftSize: number;
    /** Non-key fields of the right collection. */
    rightSize: number;
}

/** What Algorithm 3 returns: the collections in declaration order of their first query, and the trace. */
export interface OptimizationResult {
    collections: CollectionModel[];
    decisions: MergeDecisionInfo[];
    warnings: string[];
}

interface Refusal {
    epoch: number;
    leftSlot: number;
    rightSlot: number;
    info: MergeDecisionInfo;
}

/**
 * Collects decisions. Merges are listed in the order they happen. Refusals follow, ordered by when the
 * pair first coexisted (epoch 0 = the collections of Algorithm 1; epoch k = after the k-th merge), then
 * by the positions of the two collections (a collection's position is that of its earliest query).
 */
export class DecisionLog {
    private readonly merges: MergeDecisionInfo[] = [];
    private readonly refusals: Refusal[] = [];
    readonly warnings: string[] = [];

    /** Records a merge; under the paper policy a grain conflict becomes a warning. */
    merged(
        left: CollectionModel,
        right: CollectionModel,
        result: CollectionModel,
        common: number,
        conflict: string | undefined,
    ): void {
        this.merges.push({
            left: left.name,
            right: right.name,
            result: result.name,
            common,
            leftSize: left.fields.length,
            rightSize: right.fields.length,
        });
        if (conflict) {
            this.warnings.push(
                `${left.name} and ${right.name} were merged under the paper policy although ${conflict}; the answers of their queries may change`,
            );
        }
    }

    /** Records a pair that passed the threshold but whose grains differ (safe policy). */
    refused(
        epoch: number,
        leftSlot: number,
        left: CollectionModel,
        rightSlot: number,
        right: CollectionModel,
        common: number,
        reason: string,
    ): void {
        const [first, second, firstSlot, secondSlot] =
            leftSlot <= rightSlot ? [left, right, leftSlot, rightSlot] : [right, left, rightSlot, leftSlot];
        this.refusals.push({
            epoch,
            leftSlot: firstSlot,
            rightSlot: secondSlot,
            info: {
                left: first.name,
                right: second.name,
                refusedBecause: reason,
                common,
                leftSize: first.fields.length,
                rightSize: second.fields.length,
            },
        });
    }

    /** The decisions in their defined order. */
    decisions(): MergeDecisionInfo[] {
        const refusals = [...this.refusals].sort(
            (a, b) => a.epoch - b.epoch || a.leftSlot - b.leftSlot || a.rightSlot - b.rightSlot,
        );
        return [...this.merges, ...refusals.map((refusal) => refusal.info)];
    }
}
