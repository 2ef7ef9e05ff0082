/**
 * Row effects (src/runtime/entities/row-effects.ts): which rows of which collection an entity operation deletes,
 * writes whole, or changes (and which fields), on the fixed shop with exact answers, on a counter-key design (rows
 * keep their identity when the counters shift), and as properties over random sequences on the examples and random
 * models: the effects turn the rows before into the rows after; a patch of projected-only attributes adds and removes
 * no row; creating every object of a generated data file, one operation at a time, gives the rows loading it gives.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { generateInstanceData } from '../../../src/runtime/data-generator.js';
import { attributeRoles } from '../../../src/runtime/entities/attribute-roles.js';
import { applyEntityOperation, type EntityOperation } from '../../../src/runtime/entities/entity-operations.js';
import { randomEntityOperations } from '../../../src/runtime/entities/random-operations.js';
import { countRowEffects, rowEffects, type CollectionRowEffects } from '../../../src/runtime/entities/row-effects.js';
import {
    identityOf,
    indexInstanceData,
    type InstanceData,
    type InstanceObject,
} from '../../../src/runtime/instance-data.js';
import { materializeModel, type MaterializedRow } from '../../../src/runtime/materialize.js';
import type { RuntimeModel } from '../../../src/runtime/runtime-model.js';
import {
    EXAMPLES,
    exampleCase,
    randomCase,
    RS1_RULES,
    shopCase,
    SHOP_DATA,
    type EntityCase,
} from './entity-fixtures.js';

let shop: EntityCase;
let counterShop: EntityCase;

beforeAll(async () => {
    shop = await shopCase();
    counterShop = await shopCase('counter');
});

/** The effects as keys: per collection with any, the keys deleted, written and changed (with the fields). */
function summary(effects: readonly CollectionRowEffects[]): Record<string, unknown> {
    const shown: Record<string, unknown> = {};
    for (const effect of effects) {
        const entry: Record<string, unknown> = {};
        if (effect.deleted.length > 0) entry.deleted = effect.deleted.map((row) => row.keyParts.join('/'));
        if (effect.written.length > 0) entry.written = effect.written.map((row) => row.keyParts.join('/'));
        if (effect.changed.length > 0)
            entry.changed = effect.changed.map((row) => `${row.after.keyParts.join('/')}: ${row.fields.join(', ')}`);
        if (Object.keys(entry).length > 0) shown[effect.collection] = entry;
    }
    return shown;
}

function effectsOf(entityCase: EntityCase, operation: EntityOperation, data = SHOP_DATA): Record<string, unknown> {
    const outcome = applyEntityOperation(entityCase.model, data, operation);
    if (!outcome.ok) throw new Error(outcome.refusal.message);
    return summary(rowEffects(entityCase.model, entityCase.design, data, outcome.data));
}

describe('row effects on the fixed shop', () => {
    test.each<[string, EntityOperation, Record<string, unknown>]>([
        [
            'a projected-only attribute: one field of one row',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { blurb: 'dunes' } },
            { Q6_booksOfAuthor: { changed: ['b1: blurb'] } },
        ],
        [
            'an attribute copied into every collection, through a reference too',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { title: 'Dune I' } },
            {
                Q3_booksWithTag: { changed: ['b1/t1: title', 'b1/t2: title'] },
                Q6_booksOfAuthor: { changed: ['b1: title'] },
                Q8_sequels: { changed: ['b3: S_title'] },
            },
        ],
        [
            "a tag's label: the rows of every book listing it",
            { kind: 'update', entity: 'Tag', id: 't1', patch: { label: 'Sci-Fi' } },
            { Q3_booksWithTag: { changed: ['b1/t1: T_label', 'b2/t1: T_label'] } },
        ],
        [
            'a sorted and a filtered attribute at once',
            { kind: 'update', entity: 'Book', id: 'b2', patch: { rank: 9, author: 'Dan Simmons' } },
            {
                Q3_booksWithTag: { changed: ['b2/t1: author, rank'] },
                Q6_booksOfAuthor: { changed: ['b2: rank, author'] },
            },
        ],
        ['an unchanged value: nothing', { kind: 'update', entity: 'Book', id: 'b2', patch: { rank: 2 } }, {}],
        [
            'add to a [*] reference: a row appears',
            { kind: 'add', entity: 'Book', id: 'b2', reference: 'tags', targets: ['t3'] },
            { Q3_booksWithTag: { written: ['b2/t3'] } },
        ],
        [
            'remove from a [*] reference: its row goes',
            { kind: 'remove', entity: 'Book', id: 'b1', reference: 'tags', targets: ['t2'] },
            { Q3_booksWithTag: { deleted: ['b1/t2'] } },
        ],
        [
            'unset a [0..1] reference: the row of the inner join goes',
            { kind: 'unset', entity: 'Book', id: 'b3', reference: 'sequelOf' },
            { Q8_sequels: { deleted: ['b3'] } },
        ],
        [
            'set a [1] reference: the row stays, its copied fields change',
            { kind: 'set', entity: 'Book', id: 'b1', reference: 'publisher', target: 'tor' },
            { Q6_booksOfAuthor: { changed: ['b1: P_pname'] } },
        ],
        [
            'create: its rows are written',
            {
                kind: 'create',
                entity: 'Book',
                object: {
                    isbn: 'b4',
                    title: 'T',
                    author: 'A',
                    rank: 4,
                    price: 2,
                    blurb: '',
                    tags: ['t3', 't1'],
                    publisher: 'ace',
                    sequelOf: 'b2',
                },
            },
            {
                Q3_booksWithTag: { written: ['b4/t3', 'b4/t1'] },
                Q6_booksOfAuthor: { written: ['b4'] },
                Q8_sequels: { written: ['b4'] },
            },
        ],
        [
            'delete: its rows are deleted',
            { kind: 'delete', entity: 'Book', id: 'b2' },
            { Q3_booksWithTag: { deleted: ['b2/t1'] }, Q6_booksOfAuthor: { deleted: ['b2'] } },
        ],
        [
            'delete with detach: the referrers lose their rows through it',
            { kind: 'delete', entity: 'Tag', id: 't1', detach: true },
            { Q3_booksWithTag: { deleted: ['b1/t1', 'b2/t1'] } },
        ],
    ])('%s', (_name, operation, expected) => {
        expect(effectsOf(shop, operation)).toEqual(expected);
    });

    test('a counter key: rows keep their identity when the counters shift', () => {
        // Deleting b1 shifts every later binding's counter; only b1's rows are deleted, nothing is rewritten.
        expect(effectsOf(counterShop, { kind: 'delete', entity: 'Book', id: 'b1', detach: true })).toEqual({
            Q3_booksWithTag: { deleted: ['1', '2'] },
            Q6_booksOfAuthor: { deleted: ['1'] },
            Q8_sequels: { deleted: ['1'] },
        });
        expect(effectsOf(counterShop, { kind: 'update', entity: 'Book', id: 'b3', patch: { blurb: 'x' } })).toEqual({
            Q6_booksOfAuthor: { changed: ['3: blurb'] },
        });
    });

    test('countRowEffects adds up the keys', () => {
        const outcome = applyEntityOperation(shop.model, SHOP_DATA, { kind: 'delete', entity: 'Book', id: 'b2' });
        if (!outcome.ok) throw new Error(outcome.refusal.message);
        expect(countRowEffects(rowEffects(shop.model, shop.design, SHOP_DATA, outcome.data))).toEqual({
            deleted: 2,
            written: 0,
            changed: 0,
        });
    });
});

/** Rows by identity key (natural keys), for set comparison. */
function rowsByKey(entityCase: EntityCase, data: InstanceData): Map<string, MaterializedRow> {
    const rows = new Map<string, MaterializedRow>();
    for (const collection of materializeModel(entityCase.design, data, indexInstanceData(entityCase.model, data)))
        for (const row of collection.rows) rows.set(`${collection.name} ${JSON.stringify(row.keyParts)}`, row);
    return rows;
}

/** The rows before, with the effects applied. */
function appliedEffects(
    before: Map<string, MaterializedRow>,
    effects: readonly CollectionRowEffects[],
): Map<string, MaterializedRow> {
    const rows = new Map(before);
    const key = (collection: string, row: MaterializedRow): string => `${collection} ${JSON.stringify(row.keyParts)}`;
    for (const effect of effects) {
        for (const row of effect.deleted)
            if (!rows.delete(key(effect.collection, row)))
                throw new Error(`deleted twice ${key(effect.collection, row)}`);
        for (const row of effect.written) {
            if (rows.has(key(effect.collection, row))) throw new Error(`written over ${key(effect.collection, row)}`);
            rows.set(key(effect.collection, row), row);
        }
        for (const { before: was, after, fields } of effect.changed) {
            const old = rows.get(key(effect.collection, was));
            if (old === undefined) throw new Error(`changed a missing row ${key(effect.collection, was)}`);
            // Only the named fields are written: the others must already be right.
            const values = { ...old.values };
            for (const field of fields) values[field] = after.values[field];
            rows.set(key(effect.collection, after), { keyParts: after.keyParts, values });
        }
    }
    return rows;
}

function sortedRows(rows: Map<string, MaterializedRow>): [string, MaterializedRow][] {
    return [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** True when every attribute a patch gives is copied only as a projected field (or not at all). */
function projectedOnly(entityCase: EntityCase, operation: EntityOperation): boolean {
    if (operation.kind !== 'update') return false;
    const roles = attributeRoles(entityCase.design).get(operation.entity);
    return Object.keys(operation.patch).every((name) => {
        const found = roles?.get(name);
        return found === undefined || [...found].every((role) => role === 'projected');
    });
}

function checkSequence(entityCase: EntityCase, seed: number, count: number): number {
    const operations = randomEntityOperations(entityCase.model, seed, count, {
        design: entityCase.design,
        rules: RS1_RULES,
    });
    let data: InstanceData = {};
    let rows = rowsByKey(entityCase, data);
    let projected = 0;
    for (const [position, { operation, intent }] of operations.entries()) {
        const outcome = applyEntityOperation(entityCase.model, data, operation, { rules: RS1_RULES });
        if (!outcome.ok) continue;
        const effects = rowEffects(entityCase.model, entityCase.design, data, outcome.data);
        const after = rowsByKey(entityCase, outcome.data);
        const where = `${entityCase.name}, seed ${seed}, operation ${position} (${intent}): ${JSON.stringify(operation)}`;
        const rebuilt = sortedRows(appliedEffects(rows, effects));
        const expected = sortedRows(after);
        if (JSON.stringify(rebuilt) !== JSON.stringify(expected))
            expect({ where, rows: rebuilt }).toEqual({ where, rows: expected });
        if (projectedOnly(entityCase, operation)) {
            projected++;
            const { deleted, written } = countRowEffects(effects);
            expect({ where, deleted, written }).toEqual({ where, deleted: 0, written: 0 });
        }
        data = outcome.data;
        rows = after;
    }
    return projected;
}

describe('row effects over random sequences', () => {
    test.each(EXAMPLES)(
        '%s: the effects turn the rows before into the rows after; projected-only patches move no row',
        async (name) => {
            const entityCase = await exampleCase(name);
            let projected = 0;
            for (const seed of [1, 2]) projected += checkSequence(entityCase, seed, 250);
            expect(projected).toBeGreaterThan(5);
        },
    );

    test('random models: the same, over 10 models', () => {
        for (let seed = 0; seed < 10; seed++) checkSequence(randomCase(seed), seed, 120);
    });
});

/**
 * The objects of a data file as operations: every object created (lists empty, `[0..1]` null) in an order where its
 * `[1]` targets come first, then the `[0..1]` references set and the `[*]` lists added in their order. Undefined when
 * `[1]` references make a cycle (no object of it could be created first).
 */
function creationOperations(model: RuntimeModel, data: InstanceData): EntityOperation[] | undefined {
    const operations: EntityOperation[] = [];
    const created = new Set<string>();
    const pending: { entity: string; object: InstanceObject }[] = [];
    for (const [entity, objects] of Object.entries(data))
        for (const object of objects) pending.push({ entity, object });
    const idOf = (entity: string, object: InstanceObject): string =>
        identityOf(object[model.entities.get(entity)!.idName]);
    while (pending.length > 0) {
        const ready = pending.findIndex(({ entity, object }) =>
            model.entities
                .get(entity)!
                .references.every(
                    (reference) =>
                        reference.kind !== 'one' ||
                        created.has(`${reference.target} ${identityOf(object[reference.name])}`),
                ),
        );
        if (ready < 0) return undefined;
        const [{ entity, object }] = pending.splice(ready, 1);
        const bare: InstanceObject = { ...object };
        for (const reference of model.entities.get(entity)!.references) {
            if (reference.kind === 'many') bare[reference.name] = [];
            if (reference.kind === 'optional') bare[reference.name] = null;
        }
        operations.push({ kind: 'create', entity, object: bare });
        created.add(`${entity} ${idOf(entity, object)}`);
    }
    for (const [entity, objects] of Object.entries(data))
        for (const object of objects)
            for (const reference of model.entities.get(entity)!.references) {
                const value = object[reference.name];
                const id = object[model.entities.get(entity)!.idName] as string | number;
                if (reference.kind === 'optional' && value !== null && value !== undefined)
                    operations.push({ kind: 'set', entity, id, reference: reference.name, target: value as string });
                if (reference.kind === 'many' && Array.isArray(value) && value.length > 0)
                    operations.push({ kind: 'add', entity, id, reference: reference.name, targets: value });
            }
    return operations;
}

describe('creating every object ≡ loading the data file', () => {
    const cases: [string, () => Promise<EntityCase>][] = [
        ...EXAMPLES.map((name): [string, () => Promise<EntityCase>] => [name, () => exampleCase(name)]),
        ...[0, 1, 2, 3, 4].map((seed): [string, () => Promise<EntityCase>] => [
            `random model ${seed}`,
            () => Promise.resolve(randomCase(seed)),
        ]),
    ];
    test.each(cases)(
        '%s: the rows are those of the file, and the effects from nothing write exactly them',
        async (_name, make) => {
            const entityCase = await make();
            const { model } = entityCase;
            // The generator's data minus the lower bounds of lists (added one list at a time, a [1..*] list could not
            // start empty): such models are not among these.
            const file = generateInstanceData(model, { scale: 6, seed: 3 });
            const operations = creationOperations(model, file);
            if (operations === undefined) throw new Error('the [1] references make a cycle');
            let data: InstanceData = {};
            let written = 0;
            for (const operation of operations) {
                const outcome = applyEntityOperation(model, data, operation);
                if (!outcome.ok) throw new Error(`${JSON.stringify(operation)}: ${outcome.refusal.message}`);
                written += countRowEffects(rowEffects(model, entityCase.design, data, outcome.data)).written;
                data = outcome.data;
            }
            const loaded = sortedRows(rowsByKey(entityCase, file));
            expect(sortedRows(rowsByKey(entityCase, data))).toEqual(loaded);
            expect(loaded.length).toBeGreaterThan(0);
            const fromNothing = rowEffects(model, entityCase.design, {}, file);
            expect(countRowEffects(fromNothing)).toEqual({ deleted: 0, written: loaded.length, changed: 0 });
            expect(written).toBeGreaterThan(0);
        },
    );
});
