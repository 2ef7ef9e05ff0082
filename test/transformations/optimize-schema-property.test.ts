import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import { checkBuiltKvlm, loadTexts } from '../../src/pipeline/load.js';
import { kvlmToJson } from '../../src/language/kvlm/kvlm-json.js';
import { generateRandomPidm } from '../../src/testing/random-pidm.js';
import { transformPidmToKvlm, type MergePolicy } from '../../transformations/pidm-to-kvlm/index.js';

/** One random case: the generator's shape and the transformation's options. */
const cases = fc.record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    queries: fc.integer({ min: 2, max: 40 }),
    fieldsPerQuery: fc.integer({ min: 1, max: 16 }),
    familySize: fc.integer({ min: 1, max: 8 }),
    familiesPerRoot: fc.integer({ min: 1, max: 4 }),
    perturbation: fc.constantFrom(0, 0.1, 0.2, 0.3, 0.5),
    chain: fc.boolean(),
    grainNoise: fc.constantFrom(0, 0.15, 0.4),
    threshold: fc.constantFrom(0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1),
    merge: fc.constantFrom<MergePolicy>('safe', 'paper'),
});

describe('the fast Algorithm 3 against the literal reference', () => {
    test('on hundreds of seeded random models (chains of merges included) both give the same KVLM, decisions and warnings', () => {
        let merges = 0;
        let refusals = 0;
        fc.assert(
            fc.property(cases, (options) => {
                const model = generateRandomPidm(options);
                const transformOptions = { threshold: options.threshold, merge: options.merge, databaseName: 'random' };
                const fast = transformPidmToKvlm([model], transformOptions);
                const reference = transformPidmToKvlm([model], { ...transformOptions, optimizer: 'reference' });
                expect(printKvlm(fast.model)).toBe(printKvlm(reference.model));
                expect(fast.decisions).toEqual(reference.decisions);
                expect(fast.warnings).toEqual(reference.warnings);
                merges += fast.decisions.filter((decision) => decision.result !== undefined).length;
                refusals += fast.decisions.filter((decision) => decision.result === undefined).length;
            }),
            { seed: 20241122, numRuns: 400 },
        );
        // The cases must exercise the interesting paths, not only models where nothing merges.
        expect(merges).toBeGreaterThan(1000);
        expect(refusals).toBeGreaterThan(100);
    });

    test('long chains: every member of a family close to the previous one, at a low threshold', () => {
        for (let seed = 0; seed < 30; seed++) {
            const model = generateRandomPidm({
                queries: 60,
                fieldsPerQuery: 12,
                seed,
                familySize: 15,
                chain: true,
                perturbation: 0.15,
                shuffle: seed % 2 === 0,
            });
            const fast = transformPidmToKvlm([model], { threshold: 0.6, databaseName: 'chains' });
            const reference = transformPidmToKvlm([model], {
                threshold: 0.6,
                databaseName: 'chains',
                optimizer: 'reference',
            });
            expect(printKvlm(fast.model)).toBe(printKvlm(reference.model));
            expect(fast.decisions.some((decision) => decision.left.split('_').length >= 3)).toBe(true);
        }
    });

    test('the KVLM printed for random models (merged collections, refusals, implicit nodes) parses back and validates', async () => {
        for (let seed = 0; seed < 12; seed++) {
            const model = generateRandomPidm({
                queries: 30,
                fieldsPerQuery: 8,
                seed,
                chain: seed % 3 === 0,
                grainNoise: 0.4,
            });
            const built = transformPidmToKvlm([model], {
                threshold: 0.6,
                merge: seed % 2 ? 'paper' : 'safe',
                databaseName: 'random',
            }).model;
            const text = printKvlm(built);
            const loaded = await loadTexts([{ path: `random-${seed}.kvlm`, text }]);
            expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
            expect(printKvlm(loaded.kvlm[0].model)).toBe(text);
            // The pipeline checks the built model in memory instead of this round trip: same model, same verdict.
            expect(kvlmToJson(loaded.kvlm[0].model)).toEqual(kvlmToJson(built));
            const inMemory = await checkBuiltKvlm(built, `random-${seed}.kvlm`);
            const verdict = (list: { severity: string; code: string; message: string }[]) =>
                list.map((d) => `${d.severity} ${d.code} ${d.message}`).sort();
            expect(verdict(inMemory)).toEqual(verdict(loaded.diagnostics));
        }
    });
});
