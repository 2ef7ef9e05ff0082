/**
 * The shrinker (src/runtime/entities/shrink.ts): a planted failure that needs two given items is shrunk to exactly
 * those two, in order, from plain lists and from random entity operation sequences; a failure replayed through the
 * entity operations (a delete refused while referenced) is shrunk to a 1-minimal sequence that still fails.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { applyEntityOperation, type EntityOperation } from '../../../src/runtime/entities/entity-operations.js';
import { randomEntityOperations } from '../../../src/runtime/entities/random-operations.js';
import { shrinkFailing } from '../../../src/runtime/entities/shrink.js';
import type { InstanceData } from '../../../src/runtime/instance-data.js';
import { RS1_RULES, shopCase, type EntityCase } from './entity-fixtures.js';

let shop: EntityCase;

beforeAll(async () => {
    shop = await shopCase();
});

const range = (length: number): number[] => Array.from({ length }, (_, i) => i);

describe('shrinkFailing', () => {
    test('a failure needing two items is shrunk to exactly those two, in their order', () => {
        for (const [length, first, second] of [
            [200, 37, 142],
            [1000, 3, 150],
            [2, 0, 1],
            [57, 55, 56],
        ]) {
            let asked = 0;
            const shrunk = shrinkFailing(range(length), (candidate) => {
                asked++;
                return candidate.includes(first) && candidate.includes(second);
            });
            expect(shrunk).toEqual([first, second]);
            // Prefix bisection and ddmin: far fewer replays than the items.
            expect(asked).toBeLessThan(4 * Math.log2(length) * 4 + 10);
        }
    });

    test('one culprit is shrunk to it alone', () => {
        expect(shrinkFailing(range(300), (candidate) => candidate.includes(271))).toEqual([271]);
    });

    test('a sequence that does not fail is an error, not a shrink', () => {
        expect(() => shrinkFailing(range(10), () => false)).toThrow('shrinkFailing: the whole sequence does not fail');
    });

    test('planted in random entity operations: "fails when operations X and Y both occur" gives [X, Y]', () => {
        for (const seed of [1, 2, 3]) {
            const operations = randomEntityOperations(shop.model, seed, 400, {
                design: shop.design,
                rules: RS1_RULES,
            }).map((drawn) => drawn.operation);
            const x = operations[40 + seed * 7];
            const y = operations[300 - seed * 11];
            expect(shrinkFailing(operations, (candidate) => candidate.includes(x) && candidate.includes(y))).toEqual([
                x,
                y,
            ]);
        }
    });

    test('a replayed failure (a delete refused while referenced) shrinks to a 1-minimal sequence that still fails', () => {
        const refusesReferencedDelete = (candidate: readonly EntityOperation[]): boolean => {
            let data: InstanceData = {};
            for (const operation of candidate) {
                const outcome = applyEntityOperation(shop.model, data, operation);
                if (!outcome.ok && outcome.refusal.code === 'entity.still-referenced') return true;
                data = outcome.data;
            }
            return false;
        };
        const operations = randomEntityOperations(shop.model, 8, 500, { design: shop.design }).map(
            (drawn) => drawn.operation,
        );
        expect(refusesReferencedDelete(operations)).toBe(true);
        const shrunk = shrinkFailing(operations, refusesReferencedDelete);
        expect(refusesReferencedDelete(shrunk)).toBe(true);
        // Creating a target, a referrer (a book needs its publisher: at most a tag more), then deleting the target.
        expect(shrunk.length).toBeGreaterThanOrEqual(2);
        expect(shrunk.length).toBeLessThanOrEqual(4);
        expect(shrunk.at(-1)!.kind).toBe('delete');
        for (let i = 0; i < shrunk.length; i++)
            expect(refusesReferencedDelete(shrunk.filter((_, other) => other !== i))).toBe(false);
    });
});
