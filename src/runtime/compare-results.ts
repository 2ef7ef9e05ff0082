/**
 * Compares what a design returned with what the oracle says, as PIDM.md defines a query's answer: a bag
 * of rows, in ORDER BY order where rows with equal sort keys may come in any order.
 */
import type { TypedValue } from './collation.js';
import type { OracleRow } from './oracle.js';

/** The outcome of one comparison; `difference` describes the first difference found. */
export interface ComparisonResult {
    matches: boolean;
    difference?: string;
}

function rowKey(values: readonly TypedValue[]): string {
    return JSON.stringify(values);
}

function countKeys(keys: readonly string[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    return counts;
}

/**
 * Bag difference of two row lists, given as their rows' keys (`rowKey`, made once per row: a key is as long as
 * the row's values): the first row missing from `actual`, or the first extra one.
 */
function bagDifference(expected: readonly string[], actual: readonly string[]): string | undefined {
    const want = countKeys(expected);
    const got = countKeys(actual);
    for (const key of expected) {
        if ((got.get(key) ?? 0) < want.get(key)!)
            return `missing ${key} (expected ${want.get(key)}×, got ${got.get(key) ?? 0}×)`;
    }
    for (const key of actual) {
        if ((want.get(key) ?? 0) < got.get(key)!)
            return `unexpected ${key} (expected ${want.get(key) ?? 0}×, got ${got.get(key)}×)`;
    }
    return undefined;
}

/**
 * Compares actual rows (in the order returned) with the oracle's rows (sorted). With sort keys, the
 * oracle's rows fall into runs of equal keys; the actual rows must give each run, as a bag, in order.
 * `equalKeys(a, b)` says whether two oracle rows have equal sort keys.
 */
export function compareWithOracle(
    expected: readonly OracleRow[],
    actual: readonly (readonly TypedValue[])[],
    ordered: boolean,
    equalKeys: (a: OracleRow, b: OracleRow) => boolean,
): ComparisonResult {
    const expectedKeys = expected.map((row) => rowKey(row.values));
    const actualKeys = actual.map(rowKey);
    if (expected.length !== actual.length) {
        const detail = bagDifference(expectedKeys, actualKeys);
        return {
            matches: false,
            difference: `${actual.length} rows instead of ${expected.length}${detail ? `; ${detail}` : ''}`,
        };
    }
    const detail = bagDifference(expectedKeys, actualKeys);
    if (detail) return { matches: false, difference: detail };
    if (!ordered) return { matches: true };
    let start = 0;
    while (start < expected.length) {
        let end = start + 1;
        while (end < expected.length && equalKeys(expected[start], expected[end])) end++;
        const block = expectedKeys.slice(start, end);
        const returned = actualKeys.slice(start, end);
        if (bagDifference(block, returned)) {
            const keys = new Set(block);
            const offset = returned.findIndex((key) => !keys.has(key));
            const position = start + Math.max(offset, 0);
            const rows = end - start === 1 ? `row ${start + 1}` : `rows ${start + 1}–${end}`;
            return {
                matches: false,
                difference: `order: ${rows} should have sort key ${JSON.stringify(expected[start].sortKey)}, but row ${position + 1} is ${actualKeys[position]}`,
            };
        }
        start = end;
    }
    return { matches: true };
}
