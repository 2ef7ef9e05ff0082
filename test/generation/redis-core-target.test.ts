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
import { coreFunctions } from '../../src/generation/redis-core/redis-core-design.js';
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
