/**
 * Entity operations in memory (src/runtime/entities/entity-operations.ts): each operation on a fixed shop, with the
 * exact data it leaves or the exact refusal (code and sentence) and the data left as it was; then properties over
 * random sequences on the examples and random models: after every operation the data loads (`kvmod load`'s checks),
 * a refused operation leaves the data unchanged, and every operation built to be refused is, with its code.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import {
    applyEntityOperation,
    ENTITY_ERROR_CODES,
    type EntityOperation,
    type EntityOutcome,
    valueProblem,
} from '../../../src/runtime/entities/entity-operations.js';
import { randomEntityOperations } from '../../../src/runtime/entities/random-operations.js';
import type { InstanceData } from '../../../src/runtime/instance-data.js';
import {
    EXAMPLES,
    exampleCase,
    loadProblems,
    randomCase,
    RS1_RULES,
    shopCase,
    SHOP_DATA,
    type EntityCase,
} from './entity-fixtures.js';

let shop: EntityCase;

beforeAll(async () => {
    shop = await shopCase();
    expect(await loadProblems(shop.model, SHOP_DATA, RS1_RULES)).toEqual([]);
});

function run(operation: EntityOperation): EntityOutcome {
    const before = structuredClone(SHOP_DATA);
    const outcome = applyEntityOperation(shop.model, SHOP_DATA, operation, { rules: RS1_RULES });
    // The input is never modified, refused or not.
    expect(SHOP_DATA).toEqual(before);
    return outcome;
}

function refusal(operation: EntityOperation): { code: string; message: string } {
    const outcome = run(operation);
    if (outcome.ok) throw new Error(`not refused: ${JSON.stringify(operation)}`);
    expect(outcome.data).toBe(SHOP_DATA);
    return { code: outcome.refusal.code, message: outcome.refusal.message };
}

function applied(operation: EntityOperation): InstanceData {
    const outcome = run(operation);
    if (!outcome.ok) throw new Error(`refused: ${outcome.refusal.message}`);
    return outcome.data;
}

describe('valueProblem: the data file rule for a value of each type, and calendar dates', () => {
    test.each([
        ['int', 7, null],
        ['int', 1.5, 'must be an integer (at most 2^53 - 1 in size)'],
        ['int', 2 ** 53, 'must be an integer (at most 2^53 - 1 in size)'],
        ['float', -0.25, null],
        ['float', Number.NaN, 'must be a finite number'],
        ['boolean', 'true', 'must be true or false'],
        ['date', '2024-02-29', null],
        ['date', '2023-02-29', 'is not a calendar date'],
        ['date', '2024-2-1', 'must be a date YYYY-MM-DD'],
        ['time', '23:59:59', null],
        ['time', '24:00', 'must be a time HH:MM:SS'],
        ['datetime', '2023-04-31T10:00:00', 'is not a calendar date'],
        ['datetime', 20240101, 'must be a datetime YYYY-MM-DDTHH:MM:SS'],
        ['text', 3, 'must be a text'],
        ['text', '', null],
    ] as const)('%s %p → %p', (type, value, problem) => {
        expect(valueProblem(type, value)).toBe(problem);
    });
});

describe('entity operations on a fixed shop', () => {
    test('create adds the object in declaration order; a left-out [0..1] is null and a left-out [*] is empty', async () => {
        const data = applied({
            kind: 'create',
            entity: 'Book',
            object: {
                publisher: 'tor',
                blurb: '',
                price: 1,
                rank: 4,
                author: 'Le Guin',
                title: 'Left Hand',
                isbn: 'b4',
            },
        });
        expect(data.Book[3]).toEqual({
            isbn: 'b4',
            title: 'Left Hand',
            author: 'Le Guin',
            rank: 4,
            price: 1,
            blurb: '',
            tags: [],
            publisher: 'tor',
            sequelOf: null,
        });
        expect(Object.keys(data.Book[3])).toEqual([
            'isbn',
            'title',
            'author',
            'rank',
            'price',
            'blurb',
            'tags',
            'publisher',
            'sequelOf',
        ]);
        expect(data.Tag).toBe(SHOP_DATA.Tag);
        expect(await loadProblems(shop.model, data, RS1_RULES)).toEqual([]);
    });

    test('update changes only the given attributes; undefined means unchanged; the identifier may be given as it is', () => {
        const data = applied({
            kind: 'update',
            entity: 'Book',
            id: 'b2',
            patch: { title: 'Fall', author: undefined, isbn: 'b2' },
        });
        expect(data.Book[1]).toEqual({ ...SHOP_DATA.Book[1], title: 'Fall' });
        expect(data.Book[0]).toBe(SHOP_DATA.Book[0]);
    });

    test('set, unset, add and remove change one reference', () => {
        expect(
            applied({ kind: 'set', entity: 'Book', id: 'b2', reference: 'publisher', target: 'ace' }).Book[1].publisher,
        ).toBe('ace');
        expect(
            applied({ kind: 'set', entity: 'Book', id: 'b2', reference: 'sequelOf', target: 'b3' }).Book[1].sequelOf,
        ).toBe('b3');
        expect(applied({ kind: 'unset', entity: 'Book', id: 'b3', reference: 'sequelOf' }).Book[2].sequelOf).toBeNull();
        expect(
            applied({ kind: 'add', entity: 'Book', id: 'b1', reference: 'tags', targets: ['t3'] }).Book[0].tags,
        ).toEqual(['t1', 't2', 't3']);
        expect(
            applied({ kind: 'remove', entity: 'Book', id: 'b1', reference: 'tags', targets: ['t1'] }).Book[0].tags,
        ).toEqual(['t2']);
    });

    test('delete of an unreferenced entity removes it; detach takes the id out of [*] and [0..1] referrers', () => {
        expect(applied({ kind: 'delete', entity: 'Tag', id: 't3' }).Tag.map((tag) => tag.name)).toEqual(['t1', 't2']);
        const detached = applied({ kind: 'delete', entity: 'Tag', id: 't1', detach: true });
        expect(detached.Tag.map((tag) => tag.name)).toEqual(['t2', 't3']);
        expect(detached.Book.map((book) => book.tags)).toEqual([['t2'], [], []]);
        const book = applied({ kind: 'delete', entity: 'Book', id: 'b1', detach: true });
        expect(book.Book.map((each) => [each.isbn, each.sequelOf])).toEqual([
            ['b2', null],
            ['b3', null],
        ]);
    });

    test('a delete refused while referenced names the referrers: entity, reference, count and ids', () => {
        const outcome = run({ kind: 'delete', entity: 'Tag', id: 't1' });
        expect(outcome.ok).toBe(false);
        if (outcome.ok) return;
        expect(outcome.data).toBe(SHOP_DATA);
        expect(outcome.refusal).toEqual({
            code: 'entity.still-referenced',
            message: 'Tag "t1" is still referenced by Book.tags (2: "b1", "b2"): delete or change the referrers first',
            referrers: [{ entity: 'Book', reference: 'tags', count: 2, sample: ['b1', 'b2'] }],
        });
        // A [1] referrer refuses even a detaching delete.
        expect(refusal({ kind: 'delete', entity: 'Publisher', id: 'ace', detach: true })).toEqual({
            code: 'entity.still-referenced',
            message:
                'Publisher "ace" is still referenced by Book.publisher (2: "b1", "b3"): delete or change the referrers first',
        });
        expect(refusal({ kind: 'delete', entity: 'Book', id: 'b1' })).toEqual({
            code: 'entity.still-referenced',
            message: 'Book "b1" is still referenced by Book.sequelOf (1: "b3"): delete or change the referrers first',
        });
    });

    test('the sample names at most 5 referrers, the count all of them', () => {
        let data = SHOP_DATA;
        for (let i = 4; i <= 10; i++) {
            const outcome = applyEntityOperation(shop.model, data, {
                kind: 'create',
                entity: 'Book',
                object: {
                    isbn: `b${i}`,
                    title: 't',
                    author: 'a',
                    rank: i,
                    price: 1,
                    blurb: '',
                    tags: ['t3'],
                    publisher: 'tor',
                },
            });
            if (!outcome.ok) throw new Error(outcome.refusal.message);
            data = outcome.data;
        }
        const outcome = applyEntityOperation(shop.model, data, { kind: 'delete', entity: 'Tag', id: 't3' });
        expect(outcome.ok ? undefined : outcome.refusal).toEqual({
            code: 'entity.still-referenced',
            message:
                'Tag "t3" is still referenced by Book.tags (7: "b4", "b5", "b6", "b7", "b8", …): delete or change the referrers first',
            referrers: [{ entity: 'Book', reference: 'tags', count: 7, sample: ['b4', 'b5', 'b6', 'b7', 'b8'] }],
        });
    });

    test.each<[string, EntityOperation, string, string]>([
        [
            'an unknown id',
            { kind: 'update', entity: 'Book', id: 'zz', patch: { rank: 1 } },
            'entity.not-found',
            'Book "zz" does not exist',
        ],
        [
            'a delete of an unknown id',
            { kind: 'delete', entity: 'Tag', id: 'zz' },
            'entity.not-found',
            'Tag "zz" does not exist',
        ],
        [
            'a create of an id that exists',
            { kind: 'create', entity: 'Tag', object: { name: 't1', label: 'x' } },
            'entity.exists',
            'Tag "t1" exists already',
        ],
        [
            'a reference to a missing target',
            { kind: 'add', entity: 'Book', id: 'b2', reference: 'tags', targets: ['nope'] },
            'entity.missing-target',
            'Book.tags: Tag "nope" does not exist',
        ],
        [
            'a create naming a missing [1] target',
            {
                kind: 'create',
                entity: 'Book',
                object: { isbn: 'b9', title: 't', author: 'a', rank: 1, price: 1, blurb: '', publisher: 'gone' },
            },
            'entity.missing-target',
            'Book.publisher: Publisher "gone" does not exist',
        ],
        [
            'a create without its [1] reference',
            {
                kind: 'create',
                entity: 'Book',
                object: { isbn: 'b9', title: 't', author: 'a', rank: 1, price: 1, blurb: '' },
            },
            'entity.required-reference',
            'Book "b9".publisher is required ([1]): name a Publisher',
        ],
        [
            'an unset of a [1] reference',
            { kind: 'unset', entity: 'Book', id: 'b1', reference: 'publisher' },
            'entity.required-reference',
            'Book.publisher is required ([1]): it cannot be unset, only set to another Publisher',
        ],
        [
            'an identifier change',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { isbn: 'b7' } },
            'entity.identifier-change',
            'Book.isbn is the identifier of Book "b1": it cannot change (create a new Book instead)',
        ],
        [
            'a fractional int',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { rank: 1.5 } },
            'entity.bad-value',
            'Book "b1".rank must be an integer (at most 2^53 - 1 in size) (int); got 1.5',
        ],
        [
            'an infinite float',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { price: Infinity } },
            'entity.bad-value',
            'Book "b1".price must be a finite number (float); got Infinity',
        ],
        [
            'a number for a text',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { title: 7 } },
            'entity.bad-value',
            'Book "b1".title must be a text (text); got 7',
        ],
        [
            'null for an attribute (a patch never drops a field)',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { blurb: null } },
            'entity.bad-value',
            'Book "b1".blurb must be a text (text); got null',
        ],
        [
            'a reference in a patch',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { tags: ['t3'] } },
            'entity.bad-value',
            'Book.tags is a reference: a patch changes attributes only (use set, unset, add or remove)',
        ],
        [
            'an unknown attribute',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { colour: 'red' } },
            'entity.bad-value',
            'Book has no attribute "colour"',
        ],
        [
            'a target listed twice',
            { kind: 'add', entity: 'Book', id: 'b1', reference: 'tags', targets: ['t1'] },
            'entity.bad-value',
            'Book "b1".tags lists Tag "t1" already (a reference lists a target once)',
        ],
        [
            'a remove of a target not listed',
            { kind: 'remove', entity: 'Book', id: 'b2', reference: 'tags', targets: ['t2'] },
            'entity.bad-value',
            'Book "b2".tags does not list Tag "t2"',
        ],
        [
            'set on a [*] reference',
            { kind: 'set', entity: 'Book', id: 'b2', reference: 'tags', target: 't2' },
            'entity.bad-value',
            'Book.tags is a [*] reference: set does not apply (use add or remove)',
        ],
        [
            'a compared text the design cannot serve (TAG separator)',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { author: 'a\u001fb' } },
            'entity.unservable-value',
            'Book "b1".author: redisearch1 cannot serve this text to Q6_booksOfAuthor: it holds the character U+001F, the TAG separator: the engine would index it as several tags',
        ],
        [
            'a compared float RediSearch 1.2 indexes as another number',
            { kind: 'update', entity: 'Book', id: 'b1', patch: { price: 0.1 } },
            'entity.unservable-value',
            'Book "b1".price: redisearch1 cannot serve this number (0.1) to Q6_booksOfAuthor: RediSearch 1.2 indexes it as the 32-bit float 0.10000000149011612, so comparisons with it answer wrongly; use a value a 32-bit float holds exactly (a whole number, 0.25, 19.75) or the redisearch2 dialect',
        ],
    ])('%s is refused with its code, the data unchanged', (_name, operation, code, message) => {
        expect(refusal(operation)).toEqual({ code, message });
    });

    test('a projected-only text holding the TAG separator is stored: only compared and sorted values are screened', () => {
        expect(applied({ kind: 'update', entity: 'Book', id: 'b1', patch: { blurb: 'a\u001fb' } }).Book[0].blurb).toBe(
            'a\u001fb',
        );
    });
});

/** Applies a random sequence, checking after each operation what the module promises. */
async function checkSequence(entityCase: EntityCase, seed: number, count: number): Promise<Map<string, number>> {
    const { model, design } = entityCase;
    const operations = randomEntityOperations(model, seed, count, { design, rules: RS1_RULES });
    const outcomes = new Map<string, number>();
    let data: InstanceData = {};
    // Plain comparisons, `expect` only on a failure: jest's matchers cost more than the operations.
    const fail = (position: number, what: string, detail: unknown): never => {
        const { operation, intent } = operations[position];
        throw new Error(
            `${entityCase.name}, seed ${seed}, operation ${position} (${intent}): ${JSON.stringify(operation)}: ${what}: ${JSON.stringify(detail)}`,
        );
    };
    for (const [position, { operation, intent, mustRefuse }] of operations.entries()) {
        const before = JSON.stringify(data);
        const outcome = applyEntityOperation(model, data, operation, { rules: RS1_RULES });
        if (JSON.stringify(data) !== before) fail(position, 'the input data changed', data);
        if (outcome.ok) {
            if (mustRefuse !== undefined) fail(position, 'applied, but built to be refused with', mustRefuse);
            const problems = await loadProblems(model, outcome.data, RS1_RULES);
            if (problems.length > 0) fail(position, 'the data no longer loads', problems);
            data = outcome.data;
        } else {
            if (outcome.data !== data) fail(position, 'refused, but the data returned is other data', outcome.refusal);
            if (mustRefuse !== undefined && outcome.refusal.code !== mustRefuse)
                fail(position, `refused with another code than ${mustRefuse}`, outcome.refusal);
        }
        const key = `${intent} ${outcome.ok ? 'ok' : outcome.refusal.code}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    return outcomes;
}

describe('random sequences', () => {
    test.each(EXAMPLES)(
        '%s: after every operation the data loads, a refused one changes nothing, invalid ones get their code',
        async (name) => {
            const entityCase = await exampleCase(name);
            const outcomes = new Map<string, number>();
            for (const seed of [1, 2, 3])
                for (const [key, n] of await checkSequence(entityCase, seed, 300))
                    outcomes.set(key, (outcomes.get(key) ?? 0) + n);
            const seen = [...outcomes.keys()];
            // The sequences exercise what they are for: successful creates, patches, reference changes and deletes,
            // refused deletes of referenced entities, and invalid operations.
            for (const wanted of [
                'create ok',
                'delete ok',
                'delete:referenced entity.still-referenced',
                'invalid:unknown-id entity.not-found',
                'invalid:bad-type entity.bad-value',
            ])
                expect(seen).toContain(wanted);
            expect(seen.some((key) => key.startsWith('patch:') && key.endsWith(' ok'))).toBe(true);
            expect(seen.some((key) => /^(set|add|remove|unset) ok$/.test(key))).toBe(true);
        },
    );

    test('the shop: every role of attribute is patched, every kind of invalid operation drawn and refused', async () => {
        const outcomes = await checkSequence(shop, 11, 600);
        const seen = [...outcomes.keys()];
        // The shop's keys are made of identifiers only (as every key the transformation makes): a patch of a key
        // part is an identifier change, refused; the other roles are patched.
        for (const role of ['filtered', 'ranged', 'sorted', 'projected']) expect(seen).toContain(`patch:${role} ok`);
        for (const [kind, code] of [
            ['bad-number', 'entity.bad-value'],
            ['bad-type', 'entity.bad-value'],
            ['unservable', 'entity.unservable-value'],
            ['missing-target', 'entity.missing-target'],
            ['unknown-id', 'entity.not-found'],
            ['identifier-change', 'entity.identifier-change'],
            ['required-unset', 'entity.required-reference'],
            ['exists', 'entity.exists'],
        ])
            expect(seen).toContain(`invalid:${kind} ${code}`);
        for (const kind of ['set', 'unset', 'add', 'remove', 'delete:detach']) expect(seen).toContain(`${kind} ok`);
        // Every code is met, and no other (but `entity.conflict`: a version check of the client, not of the data).
        const codes = new Set(seen.map((key) => key.split(' ')[1]).filter((code) => code !== 'ok'));
        expect([...codes].sort()).toEqual(ENTITY_ERROR_CODES.filter((code) => code !== 'entity.conflict').sort());
    });

    test('random models: the same properties over 20 models', async () => {
        for (let seed = 0; seed < 20; seed++) await checkSequence(randomCase(seed), seed, 200);
    });

    test('the same seed gives the same operations; another seed others', async () => {
        const { model, design } = await exampleCase('book-ratings');
        const once = randomEntityOperations(model, 5, 200, { design, rules: RS1_RULES });
        expect(randomEntityOperations(model, 5, 200, { design, rules: RS1_RULES })).toEqual(once);
        expect(randomEntityOperations(model, 6, 200, { design, rules: RS1_RULES })).not.toEqual(once);
    });
});
