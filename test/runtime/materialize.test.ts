/**
 * Materialization's compiled parts against their plain forms: a row's values made by the object literal compiled
 * per collection (`valuesMaker`) are the object the field-by-field loop makes, for any field name; rows made batch by
 * batch (`streamModel`) are the rows `materializeModel` makes; two rows with one natural key stop both.
 */
import { describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { isNaturalKey } from '../../src/language/generated/ast.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData, type InstanceObject } from '../../src/runtime/instance-data.js';
import {
    materializeCollection,
    materializeModel,
    plainValues,
    streamModel,
    valuesMaker,
} from '../../src/runtime/materialize.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';

async function airflights() {
    const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale: 30, seed: 7 });
    const kvlm = transformPidmToKvlm(pidm, { merge: 'safe', keyStrategy: 'natural' }).model;
    return { model, data, kvlm, index: indexInstanceData(model, data) };
}

describe('materialization', () => {
    test("a row's compiled values are the plain loop's, whatever the field names", () => {
        const objects: InstanceObject[] = [
            { id: 'a', 'we"ird': 1, 'back\\slash': true, é: 'x', constructor: 'c', 7: 'seven', missing: null },
            { id: 'b', name: 'n', toString: 's', __proto__: 'p' },
        ];
        Object.defineProperty(objects[1], '__proto__', { value: 'own', enumerable: true });
        const fieldSets = [
            [
                { name: 'id', position: 0, attribute: 'id' },
                { name: 'B_name', position: 1, attribute: 'name' },
                { name: 'q"uote', position: 0, attribute: 'we"ird' },
                { name: 'slash\\', position: 0, attribute: 'back\\slash' },
                { name: 'é', position: 0, attribute: 'é' },
                { name: 'constructor', position: 0, attribute: 'constructor' },
                { name: '7', position: 0, attribute: '7' },
                { name: 'absent', position: 1, attribute: 'nothing' },
                { name: 'null', position: 0, attribute: 'missing' },
                { name: 'toString', position: 1, attribute: 'toString' },
                { name: 'id', position: 1, attribute: 'id' }, // a repeated name: the last value, at the first place
                { name: 'line\u2028break', position: 1, attribute: '__proto__' },
            ],
            [
                { name: '__proto__', position: 1, attribute: '__proto__' },
                { name: 'x', position: 0, attribute: 'id' },
            ],
            [],
        ];
        for (const fields of fieldSets) {
            const compiled = valuesMaker(fields)(objects);
            const plain = plainValues(fields, objects);
            expect(compiled).toEqual(plain);
            expect(Object.keys(compiled)).toEqual(Object.keys(plain));
            expect(Object.getOwnPropertyNames(compiled)).toEqual(Object.getOwnPropertyNames(plain));
            expect(Object.getPrototypeOf(compiled)).toBe(Object.getPrototypeOf(plain));
            expect(Object.entries(compiled)).toEqual(Object.entries(plain));
        }
    });

    test.each([['without'], ['with']])(
        'rows made batch by batch (%s identifier names) are the rows made at once, every airflights collection',
        async (withIds) => {
            const { model, data, kvlm, index } = await airflights();
            const whole = materializeModel(kvlm, data, index);
            const ids = withIds === 'with' ? (entity: string) => model.entities.get(entity)?.idName : undefined;
            const streamed = streamModel(kvlm, data, index, ids);
            let rows = 0;
            for (const [position, collection] of streamed.entries()) {
                const made = [];
                for (let start = 0; start < collection.rows.length; start += 7)
                    made.push(...collection.rows.slice(start, start + 7));
                expect(made).toEqual(whole[position].rows);
                for (const [i, row] of made.entries())
                    expect(Object.keys(row.values)).toEqual(Object.keys(whole[position].rows[i].values));
                rows += made.length;
            }
            expect(rows).toBeGreaterThan(200);
        },
    );

    test('rows read until a slice is empty (the bindings found as slices reach them, 1,024 roots at a time) are the rows made at once', async () => {
        const { model, kvlm } = await airflights();
        // More root objects than one chunk binds.
        const data = generateInstanceData(model, { scale: 2500, seed: 3 });
        const index = indexInstanceData(model, data);
        const whole = materializeModel(kvlm, data, index);
        const ids = (entity: string) => model.entities.get(entity)?.idName;
        for (const [position, collection] of streamModel(kvlm, data, index, ids).entries()) {
            const made = [];
            for (let start = 0; ; start += 700) {
                const slice = collection.rows.slice(start, start + 700);
                if (slice.length === 0) break;
                made.push(...slice);
            }
            expect(made.length).toBe(whole[position].rows.length);
            expect(JSON.stringify(made)).toBe(JSON.stringify(whole[position].rows));
        }
    });

    test('the first slice of a collection binds only the first 1,024 root objects; the last slice binds them all', async () => {
        const { model, kvlm } = await airflights();
        const data = generateInstanceData(model, { scale: 2500, seed: 3 });
        const index = indexInstanceData(model, data);
        // Every entity's objects behind a proxy that records the highest position read.
        let highest = -1;
        const watched = Object.fromEntries(
            Object.entries(data).map(([entity, objects]) => [
                entity,
                new Proxy(objects, {
                    get(target, property, receiver) {
                        if (typeof property === 'string' && /^\d+$/.test(property))
                            highest = Math.max(highest, Number(property));
                        return Reflect.get(target, property, receiver);
                    },
                }),
            ]),
        );
        const ids = (entity: string) => model.entities.get(entity)?.idName;
        const first = streamModel(kvlm, watched, index, ids)[0]!;
        expect(Math.max(...Object.values(data).map((objects) => objects.length))).toBeGreaterThan(2048);
        expect(first.rows.slice(0, 10)).toHaveLength(10);
        expect(highest).toBeGreaterThanOrEqual(9);
        expect(highest).toBeLessThan(1024);
        let start = 10;
        while (first.rows.slice(start, start + 500).length > 0) start += 500;
        expect(highest).toBeGreaterThanOrEqual(2048);
    });

    test('two rows with one natural key stop the rows, made at once or batch by batch', async () => {
        const { model, data, kvlm, index } = await airflights();
        // A key that misses its multi-valued step (a passenger's flights): rows of one passenger share it.
        const collection = kvlm.collections.find(
            (c) =>
                isNaturalKey(c.strategy) &&
                c.strategy.parts.length === 2 &&
                c.nodes.some((n) => n.cardinality === 'many'),
        );
        if (!collection || !isNaturalKey(collection.strategy)) throw new Error('no collection with a two-part key');
        collection.strategy.parts.splice(1, 1);
        const message = new RegExp(`^collection ${collection.name}: two rows share the natural key \\["[^"]+"\\]; `);
        expect(() => materializeCollection(collection, data, index)).toThrow(message);
        const rows = streamModel(kvlm, data, index).find((c) => c.name === collection.name)!.rows;
        expect(() => {
            for (let start = 0; start < rows.length; start += 5) rows.slice(start, start + 5);
        }).toThrow(message);
        // A slice that starts past rows not made yet checks their keys first.
        const again = streamModel(kvlm, data, index).find((c) => c.name === collection.name)!.rows;
        expect(() => again.slice(again.length - 1, again.length)).toThrow(message);
        // Identifier names spare the check only of keys that name every step: this one is still checked.
        const ids = (entity: string) => model.entities.get(entity)?.idName;
        const named = streamModel(kvlm, data, index, ids).find((c) => c.name === collection.name)!.rows;
        expect(() => named.slice(named.length - 1, named.length)).toThrow(message);
    });
});
