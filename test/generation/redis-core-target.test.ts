/**
 * The redis-core target: its Lua literals survive any text (checked by the real Lua of a plain redis-server), a query
 * no index narrows is a generation warning at the query (path:line:col, code), goldens match, bad names are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import {
    coreFunctions,
    coreQueryRecordKey,
    coreRowRecordKey,
} from '../../src/generation/redis-core/redis-core-design.js';
import { buildCoreDesign } from '../../src/runtime/redis-core/core-engine.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { luaString, luaValue } from '../../src/generation/redis-core/redis-core-helpers.js';
import { connectRedis, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { repoRoot } from './generation-fixtures.js';

let server: RedisTestServer;
let link: RedisLink;

beforeAll(async () => {
    server = await startRedis({ search: false });
    link = await connectRedis(server.url);
});

afterAll(async () => {
    await link?.close();
    await server?.stop();
});

describe('redis-core Lua literals', () => {
    const texts = [
        '',
        'plain',
        'say "hello"',
        'back\\slash',
        'new\nline\ttab\r',
        'nul\0byte',
        '\x01\x7f',
        'escape then digit: \n1\n12\n123',
        ']]',
        'naïve café 東京 🎲',
        '{tag}:eq:x:',
    ];
    test('Redis Lua reads every luaString back byte for byte', async () => {
        for (const text of texts) {
            const reply = await link.send(['EVAL', `return ${luaString(text)}`, '0']);
            expect(reply).toBe(text);
        }
    });

    test('luaValue writes tables Lua reads (arrays, records, nested), and refuses what Lua cannot hold', async () => {
        const lua = luaValue({ a: [1, 'x"y', true], 'not-an-id': { b: 2.5 } });
        expect(lua).toBe('{a = {1, "x\\034y", true}, ["not-an-id"] = {b = 2.5}}');
        const reply = await link.send(['EVAL', `local t = ${lua} return {t.a[2], tostring(t["not-an-id"].b)}`, '0']);
        expect(reply).toEqual(['x"y', '2.5']);
        expect(() => luaValue(Number.NaN)).toThrow(/not a finite number/);
        expect(() => luaValue([null])).toThrow(/cannot write null/);
    });
});

describe('redis-core partitions', () => {
    test('a collection is partitioned by the fields all its queries fix to a parameter; else one global partition', async () => {
        const { kvlm } = await loadRuntimeDesign(join(repoRoot, 'examples/airflights/airflights.pidm'));
        const { design } = await buildCoreDesign(kvlm);
        const by = new Map(design.collections.map((c) => [c.name, c.partition?.fields.map((f) => f.field) ?? null]));
        // A capacity range: no equality parameter.
        expect(by.get('Q1_aircraftsCapacityWithin')).toBeNull();
        expect(by.get('Q2_airportsGivenCountrySortedByCities')).toEqual(['country']);
        // Q4 fixes the date and the country, Q5 the date alone: the field they share.
        expect(by.get('Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod')).toEqual([
            'FL_departureDate',
        ]);
        const q2 = design.collections.find((c) => c.name === 'Q2_airportsGivenCountrySortedByCities')!;
        expect(q2.tag).toBe('{Q2_airportsGivenCountrySortedByCities:<country>}');
        // `country = ?country` is met by every row of the partition: no index of its own, the partition's records.
        expect(q2.indexes).toEqual([]);
        expect(q2.queries[0].plan.access).toEqual({ kind: 'all' });
        expect(q2.queries[0].cost.access).toBe(
            'HKEYS {Q2_airportsGivenCountrySortedByCities:<country>}:rec (every row of the partition)',
        );
        // Q4 fixes the country too: its own equality index, inside the date's partition.
        const q4 = design.collections.find((c) => c.name.startsWith('Q4_'))!;
        expect(q4.indexes.map((index) => index.pattern)).toEqual([
            '{Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod:<FL_departureDate>}:eq:Origin_country:<value>',
        ]);
    });

    test('the library and the engine name the same partition for a value (equality form, escapes, ISO dates)', async () => {
        const { kvlm } = await loadRuntimeDesign(join(repoRoot, 'examples/airflights/airflights.pidm'));
        const { design, library } = await buildCoreDesign(kvlm);
        await link.send(['FLUSHALL']);
        await link.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
        const f = design.functions;
        const q2 = design.collections.find((c) => c.name === 'Q2_airportsGivenCountrySortedByCities')!;
        const values = q2.fields.map((field) => (field.name === 'country' ? ' Fr:{a}%B ' : `${field.name} 1`));
        const records = coreRowRecordKey(q2, values);
        expect(records).toBe('{Q2_airportsGivenCountrySortedByCities:fr%3A%7Ba%7D%25b}:rec');
        await link.send(['FCALL', f.put, '2', 'Q2_airportsGivenCountrySortedByCities:A1', records, q2.name, ...values]);
        const query = q2.queries[0];
        const asked = coreQueryRecordKey(q2, query, ['fr:{A}%b']);
        expect(asked).toBe(records);
        const rows = (await link.send(['FCALL_RO', f.query, '1', asked, query.name, 'fr:{A}%b'])) as unknown[][];
        expect(rows.map((row) => row[0])).toEqual(['Q2_airportsGivenCountrySortedByCities:A1']);
        // Another partition's record key is refused, naming the right one.
        await expect(
            link.send([
                'FCALL_RO',
                f.query,
                '1',
                '{Q2_airportsGivenCountrySortedByCities:de}:rec',
                query.name,
                'fr:{a}%b',
            ]),
        ).rejects.toThrow(
            'KEYS must name the record hash "{Q2_airportsGivenCountrySortedByCities:fr%3A%7Ba%7D%25b}:rec", got "{Q2_airportsGivenCountrySortedByCities:de}:rec"',
        );
        // A date partition: the query may give the ISO form; the key holds the stored digits.
        const q9 = design.collections.find((c) => c.name === 'Q9_flightsOnGivenDateByLevel')!;
        const q9Values = q9.fields.map((field) =>
            field.type === 'date' ? '20240105' : field.type === 'text' ? 'x' : '1',
        );
        const q9Records = coreRowRecordKey(q9, q9Values);
        expect(q9Records).toBe('{Q9_flightsOnGivenDateByLevel:20240105}:rec');
        await link.send(['FCALL', f.put, '2', 'Q9_flightsOnGivenDateByLevel:F1', q9Records, q9.name, ...q9Values]);
        const q9Rows = (await link.send([
            'FCALL_RO',
            f.query,
            '1',
            coreQueryRecordKey(q9, q9.queries[0], ['20240105']),
            q9.queries[0].name,
            '2024-01-05',
        ])) as unknown[][];
        expect(q9Rows.map((row) => row[0])).toEqual(['Q9_flightsOnGivenDateByLevel:F1']);
    });
});

describe('kvmod generate --target redis-core', () => {
    test('writes the goldens of an example: library.lua, calls.redis, README.md', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-core-'));
        try {
            const io = memoryIo();
            expect(
                await main(
                    ['generate', 'examples/book-ratings/book-ratings.kvlm', '--target', 'redis-core', '-o', dir],
                    io,
                ),
            ).toBe(0);
            for (const file of ['library.lua', 'calls.redis', 'README.md']) {
                expect(await readFile(join(dir, 'book_ratings', 'redis-core', file), 'utf8')).toBe(
                    await readFile(join(repoRoot, 'examples/book-ratings/redis-core', file), 'utf8'),
                );
            }
            // The source PIDM is read too (the entity store): its own warning shows, and no design warning.
            expect(io.stdout.split('\n').filter((line) => line.includes('warning'))).toEqual([
                expect.stringContaining('[pidm.missing-id]'),
            ]);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('a query no index narrows is a warning at the query: the query, the reason, what the plan does instead', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-core-'));
        try {
            const io = memoryIo();
            const code = await main(
                ['generate', 'test/fixtures/pidm/core-shapes.pidm', '--target', 'redis-core', '-o', dir],
                io,
            );
            expect(code).toBe(0);
            const warnings = io.stdout.split('\n').filter((line) => line.includes('[redis-core.full-scan]'));
            expect(warnings).toEqual([
                'test/fixtures/pidm/core-shapes.pidm:14:1: warning: query Q1_notInCity cannot be served without a full scan on core Redis: ' +
                    'no index can narrow the filter `city != ?city`: a set or sorted set cannot list the rows that differ from a value (`!=`, `not =`), ' +
                    'and an `or` is narrowed only when each of its sides is; instead, the plan reads every record of Q1_notInCity ' +
                    '(HKEYS {Q1_notInCity}:rec, then HMGET) and filters them in the function: its cost grows with the collection, not with the answer [redis-core.full-scan]',
            ]);
            const readme = await readFile(join(dir, 'core_shapes', 'redis-core', 'README.md'), 'utf8');
            expect(readme).toContain('- **Warning**: no index can narrow the filter');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('a database name that makes a function name Redis refuses is a generation error', () => {
        expect(() => coreFunctions('d'.repeat(60))).toThrow(/at most 64 characters/);
        expect(coreFunctions('shop').indexDel).toBe('shop_index_del');
    });
});
