/**
 * The client runtime's entity operations (`kvmod/kvmod-entities.ts`) against a recording command client: the
 * FCALL each operation sends (the shared layout's argv), the values refused before anything is sent (wrong type,
 * null, a reference or the identifier in a patch, a value the design cannot serve), and a server refusal turned
 * into an `EntityError` with its code and referrers. The real server is exercised in
 * test/runtime/typescript-client-entities.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import {
    createEntity,
    deleteEntity,
    EntityError,
    getEntity,
    installEntityFunctions,
    addReferences,
    removeReferences,
    setReference,
    updateEntity,
    type ClientEntityStore,
} from '../../src/generation/typescript/client-runtime/kvmod-entities.js';
import { KvmodClientError } from '../../src/generation/typescript/client-runtime/kvmod-client.js';
import type { EntityStoreSchema } from '../../src/generation/shared/entity-store.js';

const schema: EntityStoreSchema = {
    database: 'shop',
    functionName: 'kvmod_shop_entity',
    dialect: 'redisearch1',
    entities: {
        Book: {
            name: 'Book',
            idName: 'isbn',
            idType: 'text',
            attributes: [
                { name: 'isbn', type: 'text', forms: [] },
                { name: 'title', type: 'text', forms: ['sort'], compared: true, sorted: true },
                { name: 'rank', type: 'float', forms: [], compared: true },
            ],
            references: [
                { name: 'publisher', target: 'Publisher', kind: 'optional', minItems: 0 },
                { name: 'tags', target: 'Tag', kind: 'many', minItems: 0 },
            ],
            referrers: [],
        },
        Publisher: {
            name: 'Publisher',
            idName: 'code',
            idType: 'int',
            attributes: [{ name: 'code', type: 'int', forms: [] }],
            references: [],
            referrers: [{ entity: 'Book', reference: 'publisher' }],
        },
        Tag: {
            name: 'Tag',
            idName: 'name',
            idType: 'text',
            attributes: [{ name: 'name', type: 'text', forms: [] }],
            references: [],
            referrers: [{ entity: 'Book', reference: 'tags' }],
        },
    },
};
const store: ClientEntityStore = { schema, library: '#!lua name=kvmod_shop_entities\n' };

/** A command client that records what it is sent and answers from a queue (an Error is thrown). */
function recorder(...replies: unknown[]) {
    const sent: string[][] = [];
    return {
        sent,
        sendCommand: async (args: ReadonlyArray<string>) => {
            sent.push([...args]);
            const reply = replies.shift() ?? [1, 0, 0];
            if (reply instanceof Error) throw reply;
            return reply;
        },
    };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
    try {
        await promise;
    } catch (error) {
        expect(error).toBeInstanceOf(EntityError);
        expect(error).toBeInstanceOf(KvmodClientError);
        const e = error as EntityError;
        return { code: e.code, message: e.message };
    }
    throw new Error('the operation was not refused');
}

describe('client entity operations', () => {
    test('each operation is one FCALL of the design Function with stored forms', async () => {
        const client = recorder('OK', [1, 3, 0], [2, 1, 0], [3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 2, 0], [0, 0, 4]);
        await installEntityFunctions(client, store);
        expect(
            await createEntity(client, store, 'Book', {
                isbn: '978:1',
                title: 'Dune',
                rank: 7.5,
                publisher: 12,
                tags: ['sf', 'classic'],
            }),
        ).toEqual({ version: 1, rowsWritten: 3, rowsDeleted: 0 });
        await updateEntity(client, store, 'Book', '978:1', { rank: 8, title: undefined }, { ifVersion: 1 });
        await setReference(client, store, 'Book', '978:1', 'publisher', null);
        await setReference(client, store, 'Book', '978:1', 'publisher', '0012');
        await addReferences(client, store, 'Book', '978:1', 'tags', ['new']);
        await removeReferences(client, store, 'Book', '978:1', 'tags', ['sf', 'new']);
        expect(await deleteEntity(client, store, 'Book', '978:1', { detach: true })).toEqual({
            version: 0,
            rowsWritten: 0,
            rowsDeleted: 4,
        });
        expect(client.sent).toEqual([
            ['FUNCTION', 'LOAD', 'REPLACE', '#!lua name=kvmod_shop_entities\n'],
            [
                'FCALL', 'kvmod_shop_entity', '0', 'create', 'Book', '978:1',
                'isbn', '978:1', 'title', 'Dune', 'title#sort', 'dune', 'rank', '7.5',
                '>publisher', '12', '>tags', '["sf","classic"]',
            ],
            ['FCALL', 'kvmod_shop_entity', '0', 'update', 'Book', '978:1', '1', 'rank', '8'],
            ['FCALL', 'kvmod_shop_entity', '0', 'unset', 'Book', '978:1', 'publisher'],
            ['FCALL', 'kvmod_shop_entity', '0', 'set', 'Book', '978:1', 'publisher', '12'],
            ['FCALL', 'kvmod_shop_entity', '0', 'add', 'Book', '978:1', 'tags', 'new'],
            ['FCALL', 'kvmod_shop_entity', '0', 'remove', 'Book', '978:1', 'tags', 'sf', 'new'],
            ['FCALL', 'kvmod_shop_entity', '0', 'delete', 'Book', '978:1', '1'],
        ]); // prettier-ignore
    });

    test('an undefined property of a patch is left unchanged: the update sends no field', async () => {
        const client = recorder([2, 0, 0]);
        await updateEntity(client, store, 'Book', 'b1', { title: undefined });
        expect(client.sent).toEqual([['FCALL', 'kvmod_shop_entity', '0', 'update', 'Book', 'b1', '']]);
    });

    test('refused before anything is sent: null, a wrong type, a reference or the identifier in a patch, an unservable value', async () => {
        const client = recorder();
        const patch = (p: object) => refusal(updateEntity(client, store, 'Book', 'b1', p));
        expect(await patch({ title: null })).toEqual({
            code: 'entity.bad-value',
            message: 'Book "b1".title must be a string (text); got null',
        });
        expect(await patch({ rank: 'high' })).toEqual({
            code: 'entity.bad-value',
            message: 'Book "b1".rank must be a number (float); got "high"',
        });
        expect(await patch({ tags: ['sf'] })).toEqual({
            code: 'entity.bad-value',
            message: 'Book.tags is a reference: a patch changes attributes only (use set, unset, add or remove)',
        });
        expect(await patch({ pages: 3 })).toEqual({
            code: 'entity.bad-value',
            message: 'Book has no attribute "pages"',
        });
        expect(await patch({ isbn: 'b2' })).toMatchObject({ code: 'entity.identifier-change' });
        expect(await patch({ rank: 0.1 })).toMatchObject({
            code: 'entity.unservable-value',
            message: expect.stringMatching(
                /^Book "b1"\.rank: the design cannot serve 0\.1: RediSearch 1\.2 indexes it as/,
            ),
        });
        expect(await patch({ title: 'a\u001fb' })).toMatchObject({ code: 'entity.unservable-value' });
        expect(
            await refusal(createEntity(client, store, 'Book', { isbn: 'b1', title: 'Dune', rank: 1, tags: 'sf' })),
        ).toEqual({ code: 'entity.bad-value', message: 'Book.tags holds a list of identifiers' });
        expect(await refusal(createEntity(client, store, 'Book', { isbn: 'b1', title: 'Dune' }))).toEqual({
            code: 'entity.bad-value',
            message: 'a new Book needs its attribute rank',
        });
        expect(await refusal(setReference(client, store, 'Book', 'b1', 'tags', 'sf'))).toMatchObject({
            code: 'entity.bad-value',
        });
        expect(await refusal(setReference(client, store, 'Book', 'b1', 'publisher', 'x'))).toMatchObject({
            code: 'entity.bad-value',
        });
        expect(client.sent).toEqual([]);
        // The identifier is not sent, but an unchanged one is accepted (the oracle's rule).
        await updateEntity(client, store, 'Book', 'b1', { isbn: 'b1' });
        expect(client.sent).toEqual([['FCALL', 'kvmod_shop_entity', '0', 'update', 'Book', 'b1', '']]);
    });

    test("a server refusal is an EntityError with the server's code, message and referrers", async () => {
        const referrers = [{ entity: 'Book', reference: 'publisher', count: 2, sample: ['b1', 'b2'] }];
        const client = recorder(
            new Error(
                `KVMOD_STILL_REFERENCED Publisher "12" is still referenced | referrers=${JSON.stringify(referrers)}`,
            ),
            new Error('KVMOD_CONFLICT Book "b1" is at version 3, not 2'),
            new Error('WRONGTYPE Operation against a key holding the wrong kind of value'),
        );
        const error = await deleteEntity(client, store, 'Publisher', 12).catch((e: unknown) => e as EntityError);
        expect([error.name, error.code, error.message, error.referrers]).toEqual([
            'EntityError',
            'entity.still-referenced',
            'Publisher "12" is still referenced',
            referrers,
        ]);
        expect(await refusal(updateEntity(client, store, 'Book', 'b1', {}, { ifVersion: 2 }))).toEqual({
            code: 'entity.conflict',
            message: 'Book "b1" is at version 3, not 2',
        });
        await expect(deleteEntity(client, store, 'Tag', 'sf')).rejects.toThrow(/^WRONGTYPE/);
    });

    test('get reads the entity hash back: logical values, references, version; null when absent', async () => {
        const client = recorder(
            ['isbn', '978:1', 'title', 'Dune', 'title#sort', 'dune', 'rank', '7.5', '>tags', '["sf"]', '_v', '4'],
            [],
        );
        expect(await getEntity(client, store, 'Book', '978:1')).toEqual({
            object: { isbn: '978:1', title: 'Dune', rank: 7.5, publisher: null, tags: ['sf'] },
            version: 4,
        });
        expect(await getEntity(client, store, 'Book', 'nope')).toBeNull();
        expect(client.sent).toEqual([
            ['HGETALL', 'kvmod:shop:{Book:978%3A1}'],
            ['HGETALL', 'kvmod:shop:{Book:nope}'],
        ]);
    });
});
