/**
 * Shrinking a failing sequence (of entity operations, or anything replayed from scratch) to a short one that still
 * fails: first the shortest failing prefix, then delta debugging (Zeller and Hildebrandt's ddmin) over what is left,
 * which ends 1-minimal: removing any single item makes the failure go away. The predicate replays a candidate from an
 * empty start and says whether it still fails; it must be deterministic. Each distinct candidate is asked once.
 */

/** A short sublist of `items` (in their order) for which `fails` holds. Throws when `fails(items)` does not. */
export function shrinkFailing<T>(items: readonly T[], fails: (candidate: readonly T[]) => boolean): T[] {
    const asked = new Map<string, boolean>();
    const failsAt = (positions: readonly number[]): boolean => {
        const key = positions.join(',');
        let answer = asked.get(key);
        if (answer === undefined) {
            answer = fails(positions.map((position) => items[position]));
            asked.set(key, answer);
        }
        return answer;
    };
    const all = items.map((_, position) => position);
    if (!failsAt(all)) throw new Error('shrinkFailing: the whole sequence does not fail');
    return ddmin(shortestFailingPrefix(all, failsAt), failsAt).map((position) => items[position]);
}

/**
 * The shortest prefix that fails, by bisection: a failure seen at some length is kept as the best known, so a
 * predicate that is not monotone in the length still yields a failing prefix (maybe not the shortest).
 */
function shortestFailingPrefix(all: readonly number[], failsAt: (positions: readonly number[]) => boolean): number[] {
    let low = 0; // the prefix of this length is not known to fail
    let high = all.length; // the prefix of this length fails
    while (high - low > 1) {
        const middle = (low + high) >>> 1;
        if (failsAt(all.slice(0, middle))) high = middle;
        else low = middle;
    }
    return all.slice(0, high);
}

/** ddmin: split into n chunks; keep a failing chunk, else a failing complement, else split finer. */
function ddmin(start: readonly number[], failsAt: (positions: readonly number[]) => boolean): number[] {
    let current = [...start];
    let granularity = 2;
    while (current.length >= 2) {
        const chunks = split(current, granularity);
        let reduced = false;
        for (const chunk of chunks) {
            if (chunk.length < current.length && failsAt(chunk)) {
                current = chunk;
                granularity = 2;
                reduced = true;
                break;
            }
        }
        if (!reduced && granularity > 2) {
            for (let c = 0; c < chunks.length; c++) {
                const complement = chunks.filter((_, other) => other !== c).flat();
                if (failsAt(complement)) {
                    current = complement;
                    granularity = Math.max(granularity - 1, 2);
                    reduced = true;
                    break;
                }
            }
        }
        if (reduced) continue;
        if (granularity >= current.length) break;
        granularity = Math.min(current.length, granularity * 2);
    }
    return current;
}

/** `items` in `count` chunks of nearly equal length, in order. */
function split(items: readonly number[], count: number): number[][] {
    const chunks: number[][] = [];
    let start = 0;
    for (let c = 0; c < count; c++) {
        const end = start + Math.floor((items.length - start) / (count - c));
        chunks.push(items.slice(start, end));
        start = end;
    }
    return chunks.filter((chunk) => chunk.length > 0);
}
