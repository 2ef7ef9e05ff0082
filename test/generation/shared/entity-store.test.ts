import { describe, expect, test } from '@jest/globals';
import {
    decodeEntityHash,
    entityCallArgv,
    entityHashFields,
    entityKey,
    entityKeyPattern,
    parseEntityError,
    reverseKey,
    serverErrorPrefix,
    type EntityStoreSchema,
} from '../../../src/generation/shared/entity-store.js';

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
                { name: 'title', type: 'text', forms: ['sort'] },
                { name: 'rank', type: 'int', forms: [] },
                { name: 'published', type: 'date', forms: [] },
            ],
            references: [
                { name: 'tags', target: 'Tag', kind: 'many', minItems: 0 },
                { name: 'shelf', target: 'Shelf', kind: 'optional', minItems: 0 },
            ],
            referrers: [],
        },
        Tag: {
            name: 'Tag',
            idName: 'name',
            idType: 'text',
            attributes: [{ name: 'name', type: 'text', forms: ['eq'] }],
            references: [],
            referrers: [{ entity: 'Book', reference: 'tags' }],
        },
        Shelf: {
            name: 'Shelf',
            idName: 'no',
            idType: 'int',
            attributes: [{ name: 'no', type: 'int', forms: [] }],
            references: [],
            referrers: [{ entity: 'Book', reference: 'shelf' }],
        },
    },
};

describe('entity store layout', () => {
    test('keys escape the identifier so the hash tag and separators stay whole', () => {
        expect(entityKey('shop', 'Tag', 'a:b{c}%')).toBe('kvmod:shop:{Tag:a%3Ab%7Bc%7D%25}');
        expect(reverseKey('shop', 'Tag', 'sf', 'Book', 'tags')).toBe('kvmod:shop:{Tag:sf}:<Book.tags');
        expect(entityKeyPattern('shop')).toBe('kvmod:shop:{*}');
        expect(entityKeyPattern('shop', 'Book')).toBe('kvmod:shop:{Book:*}');
    });

    test('a new entity is its stored forms, companions and references; decoding gives the object back', () => {
        const book = { isbn: '978-1', title: 'Straße', rank: 7, published: '2001-02-03', tags: ['sf', 'x'], shelf: 4 };
        const fields = entityHashFields(schema, 'Book', book);
        expect(fields).toEqual([
            'isbn',
            '978-1',
            'title',
            'Straße',
            'title#sort',
            'strasse',
            'rank',
            '7',
            'published',
            '20010203',
            '>tags',
            '["sf","x"]',
            '>shelf',
            '4',
        ]);
        const hash: Record<string, string> = { _v: '3' };
        for (let i = 0; i < fields.length; i += 2) hash[fields[i]] = fields[i + 1];
        expect(decodeEntityHash(schema, 'Book', hash)).toEqual({ object: book, version: 3 });
        const bare = entityHashFields(schema, 'Book', { ...book, tags: undefined, shelf: null });
        expect(bare.slice(-2)).toEqual(['>tags', '[]']);
        expect(
            decodeEntityHash(schema, 'Book', { isbn: '1', title: 't', rank: '1', published: '20010203', '>tags': '[]' })
                .object,
        ).toMatchObject({ tags: [], shelf: null });
    });

    test('calls and refusals', () => {
        expect(entityCallArgv(schema, { op: 'update', entity: 'Book', id: '978-1', fields: ['rank', '8'] })).toEqual([
            'FCALL',
            'kvmod_shop_entity',
            '0',
            'update',
            'Book',
            '978-1',
            '',
            'rank',
            '8',
        ]);
        expect(entityCallArgv(schema, { op: 'delete', entity: 'Tag', id: 'sf', detach: true }).slice(3)).toEqual([
            'delete',
            'Tag',
            'sf',
            '1',
        ]);
        expect(serverErrorPrefix('entity.still-referenced')).toBe('KVMOD_STILL_REFERENCED');
        const referrers = [{ entity: 'Book', reference: 'tags', count: 1, sample: ['978-1'] }];
        expect(
            parseEntityError(`KVMOD_STILL_REFERENCED Tag "sf" is referenced | referrers=${JSON.stringify(referrers)}`),
        ).toEqual({
            code: 'entity.still-referenced',
            message: 'Tag "sf" is referenced',
            referrers,
        });
        expect(parseEntityError('KVMOD_NOT_FOUND Book "x" does not exist')).toEqual({
            code: 'entity.not-found',
            message: 'Book "x" does not exist',
        });
        expect(parseEntityError('WRONGTYPE Operation against a key')).toBeNull();
        // A prefix of no known code (a newer server's) is not passed off as a code this client knows.
        expect(parseEntityError('KVMOD_QUOTA_EXCEEDED too many entities')).toBeNull();
    });
});
