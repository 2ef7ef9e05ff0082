import { describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm, type MergePolicy } from '../../transformations/pidm-to-kvlm/index.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
import { inMemoryExecutor, verifyQueries } from '../../src/runtime/verify.js';

const EXAMPLES = [
    'examples/airflights/airflights.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'examples/tournament/tournament.pidm',
];

async function check(path: string, merge: MergePolicy) {
    const workspace = await loadWorkspace([path]);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale: 40, seed: 11 });
    const { model: kvlm } = transformPidmToKvlm(pidm, { merge });
    return {
        kvlm,
        verdicts: await verifyQueries(pidm, kvlm, model, data, inMemoryExecutor(model, data, redisearchCollation), {
            samples: 8,
            seed: 1,
            collation: redisearchCollation,
        }),
    };
}

describe('the KVLM design in memory (materialized rows + served queries) against the oracle', () => {
    for (const merge of ['safe', 'none'] as const) {
        test.each(EXAMPLES)(`%s answers every query like the oracle under merge ${merge}`, async (path) => {
            const { verdicts } = await check(path, merge);
            expect(verdicts.filter((v) => v.mismatches > 0)).toEqual([]);
            expect(verdicts.every((v) => v.parameterSets > 0)).toBe(true);
            expect(verdicts.reduce((sum, v) => sum + v.rowsCompared, 0)).toBeGreaterThan(0);
        });
    }

    test("the grain-mismatch model: the paper merge changes QA's answers, the safe policy does not", async () => {
        const paper = await check('test/fixtures/pidm/grain-mismatch.pidm', 'paper');
        expect(paper.kvlm.collections.map((c) => c.name)).toEqual(['QA_authorsOfCountry_QB_authorBooksOfCountry']);
        expect(paper.verdicts.find((v) => v.query === 'QA_authorsOfCountry')!.mismatches).toBeGreaterThan(0);
        const safe = await check('test/fixtures/pidm/grain-mismatch.pidm', 'safe');
        expect(safe.kvlm.collections).toHaveLength(2);
        expect(safe.verdicts.filter((v) => v.mismatches > 0)).toEqual([]);
    });
});

describe('materialization', () => {
    test('natural keys hold the identifiers along the path, one row per binding', async () => {
        const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
        const pidm = workspace.pidm.map((entry) => entry.model);
        const model = buildRuntimeModel(pidm);
        const data = generateInstanceData(model, { scale: 20, seed: 2 });
        const { model: kvlm } = transformPidmToKvlm(pidm, { merge: 'none' });
        const collections = materializeModel(kvlm, data, indexInstanceData(model, data));
        const q3 = collections.find((c) => c.name === 'Q3_passengersOfGivenFlight')!;
        const expectedRows = data.Passenger.flatMap((p) => (p.flights as string[]).map((code) => [p.idPassport, code]));
        expect(q3.rows.map((row) => row.keyParts)).toEqual(expectedRows);
        expect(q3.rows[0].values.FL_code).toBe(expectedRows[0][1]);
        const q1 = collections.find((c) => c.name === 'Q1_aircraftsCapacityWithin')!;
        expect(q1.rows).toHaveLength(20);
    });

    test('counter keys number the rows 1, 2, 3 …', async () => {
        const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
        const pidm = workspace.pidm.map((entry) => entry.model);
        const model = buildRuntimeModel(pidm);
        const data = generateInstanceData(model, { scale: 5, seed: 2 });
        const { model: kvlm } = transformPidmToKvlm(pidm, { merge: 'none', keyStrategy: 'counter' });
        const [first] = materializeModel(kvlm, data, indexInstanceData(model, data));
        expect(first.strategy).toBe('counter');
        expect(first.rows.map((row) => row.keyParts)).toEqual([['1'], ['2'], ['3'], ['4'], ['5']]);
    });
});
