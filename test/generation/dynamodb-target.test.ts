/**
 * The dynamodb target: its keys keep the collation's order byte for byte, the goldens of an example match, what no
 * key serves is a warning at the query (the query, why, what the design does instead, its cost), and DynamoDB's
 * limits are generation errors naming the collection.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { buildDynamoViewModel } from '../../src/generation/dynamodb/dynamodb-design.js';
import {
    encodeKeyComponent,
    KEY_SEPARATOR,
    orderedNumber,
    sortKey,
    sortKeyBound,
} from '../../src/generation/dynamodb/dynamodb-keys.js';
import { compareCodePoints } from '../../src/runtime/collation.js';
import { parseKvlm, repoRoot } from './generation-fixtures.js';

/** DynamoDB's order of string keys: their UTF-8 bytes. */
const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

describe('DynamoDB key encodings', () => {
    test('numbers: byte order of the encoding is numeric order (negative, zero, fractions, large)', () => {
        fc.assert(
            fc.property(
                fc.double({ noNaN: true, noDefaultInfinity: true }),
                fc.double({ noNaN: true, noDefaultInfinity: true }),
                (a, b) => {
                    expect(Math.sign(bytes(orderedNumber(a), orderedNumber(b)))).toBe(a === b ? 0 : a < b ? -1 : 1);
                },
            ),
        );
        expect(orderedNumber(-0)).toBe(orderedNumber(0));
    });

    test('texts: a key made of text components sorts as the texts do by code points, component by component', () => {
        const text = fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\u0002', 'a', 'b', 'é', '😀') });
        fc.assert(
            fc.property(text, text, text, text, (a1, a2, b1, b2) => {
                const a = sortKey(
                    [
                        { type: 'text', value: a1 },
                        { type: 'text', value: a2 },
                    ],
                    'r',
                );
                const b = sortKey(
                    [
                        { type: 'text', value: b1 },
                        { type: 'text', value: b2 },
                    ],
                    'r',
                );
                const expected = compareCodePoints(a1, b1) || compareCodePoints(a2, b2);
                expect(Math.sign(bytes(a, b))).toBe(Math.sign(expected));
            }),
        );
    });

    test('a range on the leading component reads exactly the keys whose component is in it', () => {
        const text = fc.string({ unit: fc.constantFrom('\u0000', '\u0001', 'a', 'b') });
        fc.assert(
            fc.property(text, text, text, fc.boolean(), fc.boolean(), (value, bound, rest, inclusive, lower) => {
                const key = encodeKeyComponent('text', value) + KEY_SEPARATOR + encodeKeyComponent('text', rest);
                const edge = sortKeyBound('text', bound, inclusive, lower);
                const order = compareCodePoints(value, bound);
                const within = lower ? (inclusive ? order >= 0 : order > 0) : inclusive ? order <= 0 : order < 0;
                const read = lower ? bytes(key, edge) >= 0 : bytes(key, edge) <= 0;
                expect(read).toBe(within);
            }),
        );
    });
});

async function generate(model: string, dir: string, extra: string[] = []) {
    const io = memoryIo();
    const code = await main(['generate', model, '--target', 'dynamodb', '-o', dir, ...extra], io);
    return { code, stdout: io.stdout, stderr: io.stderr };
}

describe('kvmod generate --target dynamodb', () => {
    test('writes the goldens of airflights: create-tables.json, cloudformation.json, workbench.json, README.md', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-dynamodb-'));
        try {
            const result = await generate('examples/airflights/airflights.kvlm', dir);
            expect(result.code).toBe(0);
            for (const file of ['create-tables.json', 'cloudformation.json', 'workbench.json', 'README.md'])
                expect(await readFile(join(dir, 'airflights', 'dynamodb', file), 'utf8')).toBe(
                    await readFile(join(repoRoot, 'examples/airflights/dynamodb', file), 'utf8'),
                );
            const readme = await readFile(join(dir, 'airflights', 'dynamodb', 'README.md'), 'utf8');
            expect(readme).toContain(
                '| Q5_passengersDepartingGivenPeriod | airflights_Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod | Q5_passengersDepartingGivenPeriod | _pk1 = "Q5_passengersDepartingGivenPeriod" · ?departureDate | — |',
            );
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('the NoSQL Workbench export has the shape of the published samples: a table per collection, a facet per query, its GSIs', async () => {
        const model = JSON.parse(
            await readFile(join(repoRoot, 'examples/airflights/dynamodb/workbench.json'), 'utf8'),
        ) as { DataModel: Record<string, unknown>[] } & Record<string, unknown>;
        // The keys and their order of aws-samples/amazon-dynamodb-design-patterns' models (AnOnlineShop_facets.json).
        expect(Object.keys(model)).toEqual(['ModelName', 'ModelMetadata', 'DataModel']);
        expect(model.DataModel).toHaveLength(8);
        const table = model.DataModel.find(
            (t) => t.TableName === 'airflights_Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod',
        )!;
        expect(Object.keys(table)).toEqual([
            'TableName',
            'KeyAttributes',
            'NonKeyAttributes',
            'TableFacets',
            'GlobalSecondaryIndexes',
            'DataAccess',
        ]);
        expect(table.KeyAttributes).toEqual({
            PartitionKey: { AttributeName: '_pk', AttributeType: 'S' },
            SortKey: { AttributeName: '_sk', AttributeType: 'S' },
        });
        const facets = table.TableFacets as Record<string, unknown>[];
        expect(facets.map((facet) => facet.FacetName)).toEqual([
            'Q4_passengersDepartingGivenCountry',
            'Q5_passengersDepartingGivenPeriod',
        ]);
        expect(Object.keys(facets[0])).toEqual([
            'FacetName',
            'KeyAttributeAlias',
            'TableData',
            'NonKeyAttributes',
            'DataAccess',
        ]);
        expect(table.GlobalSecondaryIndexes).toEqual([
            {
                IndexName: 'Q5_passengersDepartingGivenPeriod',
                KeyAttributes: {
                    PartitionKey: { AttributeName: '_pk1', AttributeType: 'S' },
                    SortKey: { AttributeName: '_sk1', AttributeType: 'S' },
                },
                Projection: {
                    ProjectionType: 'INCLUDE',
                    NonKeyAttributes: [
                        'Origin_country',
                        'Origin_city',
                        'FL_departureTime',
                        'FL_code',
                        'idPassport',
                        'firstName',
                        'lastName',
                        'birthdate',
                        'sex',
                        'nationality',
                    ],
                },
            },
        ]);
        expect(model.DataModel.flatMap((t) => t.TableFacets as unknown[])).toHaveLength(9);
    });

    test('--single-table: one table, the collections sharing its indexes gsi1…, every query a facet of it', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-dynamodb-'));
        try {
            const result = await generate('examples/airflights/airflights.kvlm', dir, ['--single-table']);
            expect(result.code).toBe(0);
            const out = join(dir, 'airflights', 'dynamodb');
            const inputs = JSON.parse(await readFile(join(out, 'create-tables.json'), 'utf8')) as {
                TableName: string;
                GlobalSecondaryIndexes: { IndexName: string; Projection: unknown }[];
            }[];
            // The collections' one table, then the entity store's (string key pair, no index).
            expect(inputs.map((input) => input.TableName)).toEqual(['airflights', 'airflights_kvmod_entities']);
            expect(inputs[1]).toEqual({
                TableName: 'airflights_kvmod_entities',
                AttributeDefinitions: [
                    { AttributeName: '_pk', AttributeType: 'S' },
                    { AttributeName: '_sk', AttributeType: 'S' },
                ],
                KeySchema: [
                    { AttributeName: '_pk', KeyType: 'HASH' },
                    { AttributeName: '_sk', KeyType: 'RANGE' },
                ],
                BillingMode: 'PAY_PER_REQUEST',
            });
            expect(inputs[0].GlobalSecondaryIndexes).toEqual([
                expect.objectContaining({ IndexName: 'gsi1', Projection: { ProjectionType: 'ALL' } }),
            ]);
            const workbench = JSON.parse(await readFile(join(out, 'workbench.json'), 'utf8')) as {
                DataModel: { TableName: string; TableFacets: unknown[] }[];
            };
            expect(workbench.DataModel.map((table) => [table.TableName, table.TableFacets.length])).toEqual([
                ['airflights', 9],
            ]);
            const readme = await readFile(join(out, 'README.md'), 'utf8');
            expect(readme).toContain(
                '| Q5_passengersDepartingGivenPeriod | airflights | gsi1 | _pk1 = "Q5_passengersDepartingGivenPeriod" · ?departureDate | — |',
            );
            expect(readme).toContain('The entities live in `airflights_kvmod_entities`');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('what no key serves is a warning at the query: why, what the design does instead, and its cost', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-dynamodb-'));
        try {
            const result = await generate('test/fixtures/pidm/core-shapes.pidm', dir);
            expect(result.code).toBe(0);
            const warnings = result.stdout.split('\n').filter((line) => line.includes('[dynamodb.'));
            expect(warnings).toEqual(EXPECTED_WARNINGS);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('more global secondary indexes than DynamoDB allows is an error naming the collection', async () => {
        const queries = Array.from(
            { length: 22 },
            (_, i) => `    query Q${i} {\n        param n: int\n        where n = ?n\n        select n as "n"\n    }`,
        ).join('\n');
        const kvlm = await parseKvlm(
            `database big\n\ncollection Many {\n    key Many_id natural(E.n)\n    from E as E\n    field n: int = E.n label "n" projected(${Array.from({ length: 22 }, (_, i) => `Q${i}`).join(', ')}) filtered(${Array.from({ length: 22 }, (_, i) => `Q${i}`).join(', ')})\n${queries}\n}\n`,
        );
        expect(() => buildDynamoViewModel(kvlm, { pageSize: 100 })).toThrow(
            expect.objectContaining({
                code: 'dynamodb.limit',
                message:
                    'collection Many: its 22 queries need 21 global secondary indexes, more than the 20 DynamoDB allows a table: split the collection (merge none) or serve fewer queries from it',
            }),
        );
    });
});

const EXPECTED_WARNINGS: string[] = [
    'test/fixtures/pidm/core-shapes.pidm:14:1: warning: query Q1_notInCity has no equality condition for a partition key: every item of its key lives in one partition (partition key "Q1_notInCity"), which one partition\'s throughput bounds (3,000 reads and 1,000 writes a second); shard the key by a value the application knows when that is too little [dynamodb.single-partition]',
    'test/fixtures/pidm/core-shapes.pidm:14:1: warning: query Q1_notInCity cannot be served by key alone: `city != …` is not a key condition (a key reads what is equal or in a range, never what differs); instead, a FilterExpression (city <> ?city) drops items after they are read, so it reads every item of the collection and returns those passing the filter, and a page (`Limit`) counts the items read, not those returned: the design reads pages until the answer is complete [dynamodb.filter]',
    'test/fixtures/pidm/core-shapes.pidm:19:1: warning: query Q2_notBelowLevel cannot be ordered by key: its ORDER BY mixes ascending and descending keys: a sort key is read in one direction; instead, the client reads every page of the answer and sorts it by level desc, name asc, so the first row costs as much as the whole answer [dynamodb.client-sort]',
    'test/fixtures/pidm/core-shapes.pidm:25:1: warning: query Q3_twoCities has no equality condition for a partition key: every item of its key lives in one partition (partition key "Q3_twoCities"), which one partition\'s throughput bounds (3,000 reads and 1,000 writes a second); shard the key by a value the application knows when that is too little [dynamodb.single-partition]',
    'test/fixtures/pidm/core-shapes.pidm:25:1: warning: query Q3_twoCities cannot be served by key alone: `or` (city = ?first OR city = ?second) is not a key condition; instead, a FilterExpression (city = ?first OR city = ?second) drops items after they are read, so it reads every item of the collection and returns those passing the filter, and a page (`Limit`) counts the items read, not those returned: the design reads pages until the answer is complete [dynamodb.filter]',
    'test/fixtures/pidm/core-shapes.pidm:25:1: warning: query Q3_twoCities cannot be ordered by key: its ORDER BY mixes ascending and descending keys: a sort key is read in one direction; instead, the client reads every page of the answer and sorts it by score asc, handle desc, so the first row costs as much as the whole answer [dynamodb.client-sort]',
    'test/fixtures/pidm/core-shapes.pidm:31:1: warning: query Q4_namesBetween has no equality condition for a partition key: every item of its key lives in one partition (partition key "Q4_namesBetween"), which one partition\'s throughput bounds (3,000 reads and 1,000 writes a second); shard the key by a value the application knows when that is too little [dynamodb.single-partition]',
    'test/fixtures/pidm/core-shapes.pidm:37:1: warning: query Q5_everyone has no equality condition for a partition key: every item of its key lives in one partition (partition key "Q5_everyone"), which one partition\'s throughput bounds (3,000 reads and 1,000 writes a second); shard the key by a value the application knows when that is too little [dynamodb.single-partition]',
];
