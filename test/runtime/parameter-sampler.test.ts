import { describe, expect, test } from '@jest/globals';
import { loadTexts } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { evaluatePrepared, prepareQuery, type PreparedQuery } from '../../src/runtime/oracle.js';
import { sampleParameters } from '../../src/runtime/parameter-sampler.js';
import { planQuery } from '../../src/runtime/query-plan.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';

/** A new user's clinic: a status with a few literal values, a clinic name that is nearly unique per row. */
const MODEL = `
entity Appointment { id number  status text  clinic text  day date }

query Cancelled: SELECT number FROM Appointment WHERE status = "cancelled" and clinic = "?c"
query NotCancelled: SELECT number FROM Appointment WHERE not (status = "cancelled") and clinic = "?c"
query EitherOr: SELECT number FROM Appointment WHERE (status = "cancelled" or status = "booked") and clinic = "?c"
query Open: SELECT number FROM Appointment WHERE status = "cancelled" or clinic = "?c"
query Nowhere: SELECT number FROM Appointment WHERE status = "no such status" and clinic = "?c"
query CancelledSince: SELECT number FROM Appointment WHERE status = "cancelled" and day >= "?from" and day <= "?to"
`;

async function prepared(): Promise<(name: string) => PreparedQuery> {
    const workspace = await loadTexts([{ path: 'clinic.pidm', text: MODEL }]);
    expect(workspace.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const pidm = workspace.pidm[0].model;
    const model = buildRuntimeModel([pidm]);
    // The default data: the literals join the generated values (about one row in ten holds each).
    const data = generateInstanceData(model, { scale: 100, seed: 1 });
    // Except one: no row holds it.
    for (const row of data.Appointment) if (row.status === 'no such status') row.status = 'booked';
    const index = indexInstanceData(model, data);
    return (name) =>
        prepareQuery(planQuery(pidm.queries.find((query) => query.name === name)!), data, index, redisearchCollation);
}

/** The rows each parameter set drawn from the data gets from the oracle. */
function rowsPerSet(query: PreparedQuery, count = 5): number[] {
    return sampleParameters(query, count, 0, 7).map((set) => evaluatePrepared(query, set.values).length);
}

describe('parameter sets drawn from the rows the query’s literals let through', () => {
    test('status = "cancelled" and clinic = ?c: every set is a clinic with a cancelled appointment', async () => {
        const query = (await prepared())('Cancelled');
        const rows = rowsPerSet(query, 3);
        expect(rows).toHaveLength(3);
        for (const count of rows) expect(count).toBeGreaterThan(0);
    });

    test('a literal under not, and literals joined by or, are read the same way', async () => {
        const of = await prepared();
        for (const name of ['NotCancelled', 'EitherOr', 'CancelledSince']) {
            const rows = rowsPerSet(of(name), 3);
            expect([name, rows.length]).toEqual([name, 3]);
            for (const count of rows) expect([name, count > 0]).toEqual([name, true]);
        }
    });

    test('a literal the parameter can override (or) keeps every row a candidate', async () => {
        const query = (await prepared())('Open');
        // Either half returns rows: a clinic from any row is found.
        for (const count of rowsPerSet(query)) expect(count).toBeGreaterThan(0);
    });

    test('literals no row satisfies: sets are still drawn (the query answers nothing, as the engine must)', async () => {
        const query = (await prepared())('Nowhere');
        const sets = sampleParameters(query, 5, 1, 7);
        expect(sets.map((set) => set.kind)).toEqual([
            'from data',
            'from data',
            'from data',
            'from data',
            'from data',
            'made up',
        ]);
        for (const set of sets) expect(evaluatePrepared(query, set.values)).toEqual([]);
    });
});
