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

function countRows(rows: readonly (readonly TypedValue[])[]): Map<string, number> {
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(rowKey(row), (counts.get(rowKey(row)) ?? 0) + 1);
    return counts;
}

/** Bag difference of two row lists: the first row missing from `actual`, or the first extra one. */
function bagDifference(
    expected: readonly (readonly TypedValue[])[],
    actual: readonly (readonly TypedValue[])[],
): string | undefined {
    const want = countRows(expected);
    const got = countRows(actual);
    for (const row of expected) {
        const key = rowKey(row);
        if ((got.get(key) ?? 0) < want.get(key)!)
            return `missing ${key} (expected ${want.get(key)}×, got ${got.get(key) ?? 0}×)`;
    }
    for (const row of actual) {
        const key = rowKey(row);
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
    const expectedValues = expected.map((row) => row.values);
    if (expected.length !== actual.length) {
        const detail = bagDifference(expectedValues, actual);
        return {
            matches: false,
            difference: `${actual.length} rows instead of ${expected.length}${detail ? `; ${detail}` : ''}`,
        };
    }
    const detail = bagDifference(expectedValues, actual);
    if (detail) return { matches: false, difference: detail };
    if (!ordered) return { matches: true };
    let start = 0;
    while (start < expected.length) {
        let end = start + 1;
        while (end < expected.length && equalKeys(expected[start], expected[end])) end++;
        const block = expectedValues.slice(start, end);
        if (bagDifference(block, actual.slice(start, end))) {
            const keys = new Set(block.map(rowKey));
            const offset = actual.slice(start, end).findIndex((row) => !keys.has(rowKey(row)));
            const position = start + Math.max(offset, 0);
            const rows = end - start === 1 ? `row ${start + 1}` : `rows ${start + 1}–${end}`;
            return {
                matches: false,
                difference: `order: ${rows} should have sort key ${JSON.stringify(expected[start].sortKey)}, but row ${position + 1} is ${rowKey(actual[position])}`,
            };
        }
        start = end;
    }
    return { matches: true };
}
