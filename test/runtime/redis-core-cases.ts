/**
 * Shared scenarios of the redis-core engine tests, run on a plain server (redis-core-verify.test.ts) and on a
 * 3-master cluster (redis-core-cluster.test.ts): every example verified against the oracle, and random updates and
 * deletes leaving every index with exactly the live rows.
 */
import { expect } from '@jest/globals';
import type { CoreViewModel } from '../../src/generation/redis-core/redis-core-design.js';
import { generateInstanceData, SeededRandom } from '../../src/runtime/data-generator.js';
import { identityOf, indexInstanceData, type InstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import type { CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { checkCoreIndexes } from '../../src/runtime/redis-core/core-consistency.js';
import {
    buildCoreDesign,
    coreRowKey,
    coreRowValues,
    deleteCoreRow,
    prepareCore,
    putCoreRow,
    runCoreQuery,
    writeCoreRows,
} from '../../src/runtime/redis-core/core-engine.js';
import { redisCoreCollation } from '../../src/runtime/redis-core/core-runtime.js';
import { loadRuntimeDesign, type RuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verifyQueries, verdictStatus, type QueryExecutor } from '../../src/runtime/verify.js';

/** The examples, and a fixture of query shapes: `!=` alone, `not` over a range, `or`, text ranges, mixed sort keys. */
export const EXAMPLES = [
    'examples/airflights/airflights.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'examples/tournament/tournament.pidm',
    // `!=` alone, `not` over a range, `or`, text ranges, mixed-direction sort keys, literals, no filter at all.
    'test/fixtures/pidm/core-shapes.pidm',
];

/** Runs served queries through the library. */
export function executor(connection: CoreConnection, design: CoreViewModel): QueryExecutor {
    return async (collection, query, parameters) => {
        const c = design.collections.find((x) => x.name === collection.name)!;
        const q = c.queries.find((x) => x.name === query.name)!;
        const answer = await runCoreQuery(connection, design, c, q, parameters);
        return { rows: answer.rows, command: answer.command };
    };
}

/** Every collection's rows by row key, as the write functions take their values. */
export function liveRows(
    runtime: RuntimeDesign,
    design: CoreViewModel,
    data: InstanceData,
): Map<string, Map<string, string[]>> {
    const rows = materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
    return new Map(
        design.collections.map((collection) => {
            const materialized = rows.find((r) => r.name === collection.name)!.rows;
            return [
                collection.name,
                new Map(materialized.map((row) => [coreRowKey(collection, row), coreRowValues(collection, row)])),
            ];
        }),
    );
}

/**
 * The data with some objects deleted and some attributes of others changed (to values other objects hold). The data
 * stays consistent: an object whose `[1]` reference lost its target is deleted too, an optional one is cleared, and
 * lists drop deleted elements.
 */
export function mutate(runtime: RuntimeDesign, data: InstanceData, seed: number): InstanceData {
    const random = new SeededRandom(seed);
    const out: InstanceData = {};
    const gone = new Map<string, Set<string>>();
    for (const [name, objects] of Object.entries(data)) {
        const entity = runtime.model.entities.get(name)!;
        const deleted = new Set<string>();
        const kept = objects
            .filter((object) => random.next() >= 0.15 || !deleted.add(identityOf(object[entity.idName])))
            .map((object) => ({ ...object }));
        gone.set(name, deleted);
        for (const object of kept) {
            if (random.next() >= 0.35) continue;
            for (const attribute of entity.attributes) {
                if (attribute.isId || random.next() < 0.5) continue;
                object[attribute.name] = random.pick(objects)[attribute.name];
            }
        }
        out[name] = kept;
    }
    for (let changed = true; changed;) {
        changed = false;
        for (const [name, objects] of Object.entries(out)) {
            const entity = runtime.model.entities.get(name)!;
            out[name] = objects.filter((object) => {
                for (const reference of entity.references) {
                    const dead = gone.get(reference.target)!;
                    const value = object[reference.name];
                    if (Array.isArray(value)) object[reference.name] = value.filter((id) => !dead.has(identityOf(id)));
                    else if (value !== null && value !== undefined && dead.has(identityOf(value))) {
                        if (reference.kind === 'optional') object[reference.name] = null;
                        else {
                            gone.get(name)!.add(identityOf(object[entity.idName]));
                            changed = true;
                            return false;
                        }
                    }
                }
                return true;
            });
        }
    }
    return out;
}

/** Every example × merge × key strategy. */
export const MATRIX = EXAMPLES.flatMap((model) =>
    (['safe', 'none'] as const).flatMap((merge) =>
        (['natural', 'counter'] as const).map((keyStrategy) => [model, merge, keyStrategy] as const),
    ),
);

/** Loads fresh data for two seeds and checks every query against the oracle (with the engine's collation). */
export async function verifyCase(
    connection: CoreConnection,
    model: string,
    merge: 'safe' | 'none',
    keyStrategy: 'natural' | 'counter',
): Promise<void> {
    const runtime = await loadRuntimeDesign(model, { merge, keyStrategy });
    const { design, library } = await buildCoreDesign(runtime.kvlm);
    for (const seed of [1, 2]) {
        const data = generateInstanceData(runtime.model, { scale: 30, seed });
        await prepareCore(connection, design, library, true);
        const rows = materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
        await writeCoreRows(connection, design, rows);
        const verdicts = await verifyQueries(
            runtime.pidm,
            runtime.kvlm,
            runtime.model,
            data,
            executor(connection, design),
            { samples: 6, seed, collation: redisCoreCollation },
        );
        const failures = verdicts.filter((v) => verdictStatus(v) === 'differ');
        expect(failures.map((v) => `${v.query}: ${v.firstDifference} ${v.firstCommand ?? ''}`)).toEqual([]);
        expect(verdicts.some((v) => v.rowsCompared > 0)).toBe(true);
    }
}

/** Loads data, applies random updates and deletes through the library, checks the indexes and the answers. */
export async function updatesAndDeletesCase(connection: CoreConnection, model: string): Promise<void> {
    const runtime = await loadRuntimeDesign(model, { merge: 'safe', keyStrategy: 'natural' });
    const { design, library } = await buildCoreDesign(runtime.kvlm);
    const before = generateInstanceData(runtime.model, { scale: 30, seed: 5 });
    await prepareCore(connection, design, library, true);
    await writeCoreRows(
        connection,
        design,
        materializeModel(runtime.kvlm, before, indexInstanceData(runtime.model, before)),
    );
    const after = mutate(runtime, before, 7);
    const old = liveRows(runtime, design, before);
    const now = liveRows(runtime, design, after);
    let updates = 0;
    let deletes = 0;
    for (const collection of design.collections) {
        const was = old.get(collection.name)!;
        const is = now.get(collection.name)!;
        for (const row of was.keys()) {
            if (is.has(row)) continue;
            await deleteCoreRow(connection, design, collection, row);
            deletes++;
        }
        for (const [row, values] of is) {
            if (JSON.stringify(was.get(row)) === JSON.stringify(values)) continue;
            await putCoreRow(connection, design, collection, row, values);
            updates++;
        }
    }
    expect(updates).toBeGreaterThan(5);
    expect(deletes).toBeGreaterThan(5);
    expect(await checkCoreIndexes(connection, design, now)).toEqual([]);
    const verdicts = await verifyQueries(
        runtime.pidm,
        runtime.kvlm,
        runtime.model,
        after,
        executor(connection, design),
        {
            samples: 6,
            seed: 3,
            collation: redisCoreCollation,
        },
    );
    expect(verdicts.filter((v) => verdictStatus(v) === 'differ').map((v) => v.firstDifference)).toEqual([]);
}
