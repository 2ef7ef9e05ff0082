/**
 * The near misses of Algorithm 3: the pairs of the final collections that share fields but stay below the
 * threshold, closest first, with the highest threshold each would pass. `transform --explain` shows them, so
 * that "no pair passed" comes with the pair at 1.00 / 0.71 that `--threshold 0.7` would merge.
 */
import { passesThreshold, type CollectionModel } from './collection-model.js';
import { grainConflict } from './grain.js';
import type { MergePolicy } from './options.js';

/** A pair of collections below the threshold, by its figures. */
export interface NearMiss {
    left: string;
    right: string;
    /** Common non-key fields (identity = resolved attribute path). */
    common: number;
    /** Non-key fields of the left collection. */
    leftSize: number;
    /** Non-key fields of the right collection. */
    rightSize: number;
    /** The highest threshold, in hundredths, at which the pair passes. */
    passesAt: number;
}

/** The closest pairs, and whether every pair sharing a field was compared (see `NEAR_MISS_BUDGET`). */
export interface NearMisses {
    pairs: NearMiss[];
    complete: boolean;
}

/**
 * How many shared-field co-occurrences the search counts at most: one field in every one of m collections makes
 * m²/2 of them. Past it the answer is the closest among the pairs counted so far (`complete` false).
 */
export const NEAR_MISS_BUDGET = 20_000_000;

/**
 * The `limit` pairs of `collections` (Algorithm 3's result, in list order) that share at least one field and do not
 * pass `threshold`, closest first: by the smaller of common/n1 and common/n2, then in list order. Under the safe
 * policy a pair whose grains differ is left out: no threshold would merge it.
 */
export function closestPairs(
    collections: readonly CollectionModel[],
    threshold: number,
    policy: MergePolicy,
    limit: number,
    budget = NEAR_MISS_BUDGET,
): NearMisses {
    const best: { score: number; left: number; right: number; common: number }[] = [];
    if (limit <= 0 || policy === 'none') return { pairs: [], complete: true };
    const lists = new Map<number, number[]>();
    const counts = new Int32Array(collections.length);
    let visits = 0;
    let complete = true;
    // Each collection counts its shared fields with the ones before it (count accumulation over inverted lists).
    outer: for (let right = 0; right < collections.length; right++) {
        const ids = collections[right].fieldIds;
        const touched: number[] = [];
        for (const id of ids) {
            const list = lists.get(id);
            if (!list) continue;
            visits += list.length;
            if (visits > budget) {
                complete = false;
                for (const left of touched) counts[left] = 0;
                break outer;
            }
            for (const left of list) if (counts[left]++ === 0) touched.push(left);
        }
        const rightSize = collections[right].fields.length;
        for (const left of touched) {
            const common = counts[left];
            counts[left] = 0;
            const leftSize = collections[left].fields.length;
            if (passesThreshold(common, leftSize, rightSize, threshold)) continue;
            const score = common / Math.max(leftSize, rightSize);
            const candidate = { score, left, right, common };
            const at = best.findIndex((entry) => closer(candidate, entry));
            if (at < 0 && best.length >= limit) continue;
            if (policy === 'safe' && grainConflict(collections[left], collections[right])) continue;
            best.splice(at < 0 ? best.length : at, 0, candidate);
            if (best.length > limit) best.pop();
        }
        for (const id of ids) {
            const list = lists.get(id);
            if (list) list.push(right);
            else lists.set(id, [right]);
        }
    }
    const pairs = best.map(({ left, right, common }) => {
        const leftSize = collections[left].fields.length;
        const rightSize = collections[right].fields.length;
        return {
            left: collections[left].name,
            right: collections[right].name,
            common,
            leftSize,
            rightSize,
            passesAt: highestPassingThreshold(common, leftSize, rightSize),
        };
    });
    return { pairs, complete };
}

/** Whether pair `a` comes before pair `b`: closer, else earlier in the list. */
function closer(
    a: { score: number; left: number; right: number },
    b: { score: number; left: number; right: number },
): boolean {
    return a.score > b.score || (a.score === b.score && (a.left < b.left || (a.left === b.left && a.right < b.right)));
}

/** The highest threshold in hundredths the pair passes (by the merge's own test), or 0 below 0.01. */
function highestPassingThreshold(common: number, leftSize: number, rightSize: number): number {
    const ratio = common / Math.max(leftSize, rightSize);
    for (let hundredths = Math.floor(ratio * 100) + 1; hundredths >= 1; hundredths--) {
        if (passesThreshold(common, leftSize, rightSize, hundredths / 100)) return hundredths / 100;
    }
    return 0;
}
