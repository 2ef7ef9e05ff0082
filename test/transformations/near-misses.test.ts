/**
 * The near misses `transform --explain` shows: the pairs below the threshold, closest first, with the highest
 * threshold each passes (by the merge's own test), none whose grains the safe policy would refuse, and an honest
 * note when too many pairs share fields to count them all.
 */
import { describe, expect, test } from '@jest/globals';
import { collectionsOfQueries } from '../../transformations/pidm-to-kvlm/index.js';
import { closestPairs } from '../../transformations/pidm-to-kvlm/near-misses.js';
import { loadPidm } from './transformation-test-helpers.js';

const MODEL = `
entity Visit { id num  a text  b text  c text  d text  e text  f text  g text  ref Note[*] notes }
entity Note { id n  body text }
query Q1: SELECT a, b, c, d, e FROM Visit
query Q2: SELECT a, b, c, d, e, f, g FROM Visit
query Q3: SELECT a, b FROM Visit
query Q4: SELECT a, b, c, d, e, N.body FROM Visit INCLUDE Visit.notes AS N
`;

async function collections() {
    const warnings: string[] = [];
    return collectionsOfQueries(await loadPidm(MODEL), warnings);
}

describe('the closest pairs below the threshold', () => {
    test('closest first, with both ratios and the highest threshold each passes; none the safe policy would refuse', async () => {
        const found = closestPairs(await collections(), 0.8, 'safe', 5);
        expect(found.complete).toBe(true);
        expect(found.pairs).toEqual([
            { left: 'Q1', right: 'Q2', common: 5, leftSize: 5, rightSize: 7, passesAt: 0.71 },
            { left: 'Q1', right: 'Q3', common: 2, leftSize: 5, rightSize: 2, passesAt: 0.4 },
            { left: 'Q2', right: 'Q3', common: 2, leftSize: 7, rightSize: 2, passesAt: 0.28 },
        ]);
    });

    test('the paper policy lists the pairs whose grains differ too; a limit keeps the closest', async () => {
        const found = closestPairs(await collections(), 0.9, 'paper', 2);
        expect(found.pairs.map((pair) => [pair.left, pair.right, pair.passesAt])).toEqual([
            ['Q1', 'Q4', 0.83],
            ['Q1', 'Q2', 0.71],
        ]);
    });

    test('past the counting budget the answer says it is the closest among those compared', async () => {
        const found = closestPairs(await collections(), 0.8, 'safe', 5, 6);
        expect(found.complete).toBe(false);
        expect(found.pairs.map((pair) => [pair.left, pair.right])).toEqual([['Q1', 'Q2']]);
    });

    test('the merge policy none looks for nothing', async () => {
        expect(closestPairs(await collections(), 0.8, 'none', 5)).toEqual({ pairs: [], complete: true });
    });
});
