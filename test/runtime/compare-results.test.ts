import { describe, expect, test } from '@jest/globals';
import { compareWithOracle } from '../../src/runtime/compare-results.js';
import type { OracleRow } from '../../src/runtime/oracle.js';

const rows = (...list: [string, number][]): OracleRow[] =>
    list.map(([name, key]) => ({ values: [name], sortKey: [key] }));
const sameKey = (a: OracleRow, b: OracleRow) => a.sortKey[0] === b.sortKey[0];

describe('comparing an answer with the oracle', () => {
    test('rows are compared as a bag: order does not matter without ORDER BY, duplicates count', () => {
        const expected = rows(['a', 0], ['b', 0], ['a', 0]);
        expect(compareWithOracle(expected, [['b'], ['a'], ['a']], false, sameKey)).toEqual({ matches: true });
        expect(compareWithOracle(expected, [['b'], ['a'], ['b']], false, sameKey)).toEqual({
            matches: false,
            difference: 'missing ["a"] (expected 2×, got 1×)',
        });
        expect(compareWithOracle(expected, [['b'], ['a']], false, sameKey)).toEqual({
            matches: false,
            difference: '2 rows instead of 3; missing ["a"] (expected 2×, got 1×)',
        });
    });

    test('with ORDER BY, rows with equal sort keys may come in any order', () => {
        const expected = rows(['a', 1], ['b', 1], ['c', 2]);
        expect(compareWithOracle(expected, [['b'], ['a'], ['c']], true, sameKey)).toEqual({ matches: true });
    });

    test('with ORDER BY, a row out of its sort-key run is an order difference naming the row', () => {
        const expected = rows(['a', 1], ['b', 1], ['c', 2]);
        expect(compareWithOracle(expected, [['c'], ['a'], ['b']], true, sameKey)).toEqual({
            matches: false,
            difference: 'order: rows 1–2 should have sort key [1], but row 1 is ["c"]',
        });
    });
});
