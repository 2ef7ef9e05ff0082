import { describe, expect, test } from '@jest/globals';
import { schemaOfCreate, schemaOfInfo } from '../../src/runtime/redisearch/redis-loader.js';

const CREATE = [
    'FT.CREATE',
    'Q2',
    'STOPWORDS',
    '0',
    'SCHEMA',
    'country',
    'TAG',
    'SEPARATOR',
    '\u001f',
    'city',
    'TAG',
    'SEPARATOR',
    '\u001f',
    'SORTABLE',
    'level',
    'NUMERIC',
    'SORTABLE',
];
const WANT = ['country TAG SEPARATOR=\u001f', 'city TAG SEPARATOR=\u001f SORTABLE', 'level NUMERIC SORTABLE'];

describe('comparing an existing index with the design', () => {
    test('FT.CREATE arguments and RediSearch 1.2 FT.INFO fields read to the same canonical schema', () => {
        expect(schemaOfCreate(CREATE)).toEqual(WANT);
        const info = [
            'index_name',
            'Q2',
            'index_options',
            [],
            'fields',
            [
                ['country', 'type', 'TAG', 'SEPARATOR', '\u001f'],
                ['city', 'type', 'TAG', 'SEPARATOR', '\u001f', 'SORTABLE'],
                ['level', 'type', 'NUMERIC', 'SORTABLE'],
            ],
            'num_docs',
            '0',
        ];
        expect(schemaOfInfo(info)).toEqual(WANT);
    });

    test('RediSearch 2.x FT.INFO attributes read the same way', () => {
        const info = [
            'index_name',
            'Q2',
            'attributes',
            [
                ['identifier', 'country', 'attribute', 'country', 'type', 'TAG', 'SEPARATOR', '\u001f'],
                ['identifier', 'city', 'attribute', 'city', 'type', 'TAG', 'SEPARATOR', '\u001f', 'SORTABLE'],
                ['identifier', 'level', 'attribute', 'level', 'type', 'NUMERIC', 'SORTABLE'],
            ],
        ];
        expect(schemaOfInfo(info)).toEqual(WANT);
    });

    test('a TEXT field has weight 1 unless said otherwise, a TAG field separator "," unless said otherwise', () => {
        expect(
            schemaOfCreate([
                'FT.CREATE',
                'x',
                'SCHEMA',
                'a',
                'TEXT',
                'WEIGHT',
                '1',
                'b',
                'TAG',
                'c',
                'TEXT',
                'WEIGHT',
                '2',
            ]),
        ).toEqual(['a TEXT', 'b TAG SEPARATOR=,', 'c TEXT WEIGHT=2']);
        expect(
            schemaOfInfo([
                'fields',
                [
                    ['a', 'type', 'TEXT', 'WEIGHT', '1'],
                    ['b', 'type', 'TAG', 'SEPARATOR', ','],
                    ['c', 'type', 'TEXT', 'WEIGHT', '2'],
                ],
            ]),
        ).toEqual(['a TEXT', 'b TAG SEPARATOR=,', 'c TEXT WEIGHT=2']);
    });
});
