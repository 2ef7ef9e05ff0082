/**
 * `kvmod verify` and `kvmod load` against the real engine (a private redis-server with RediSearch 1.2).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { runLoad } from '../../src/cli/load-actions.js';
import { runVerify } from '../../src/cli/verify-actions.js';
import { main } from '../../src/cli/main.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const EXAMPLES = [
    'examples/airflights/airflights.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'examples/tournament/tournament.pidm',
];
const GRAIN = 'test/fixtures/pidm/grain-mismatch.pidm';

let server: RedisTestServer;
let dir: string;

async function dataFor(model: string, scale = 40, seed = 3): Promise<string> {
    const path = join(dir, `${model.replace(/\W/g, '_')}-${scale}-${seed}.json`);
    await runDataGenerate({ model, scale, seed, output: path }, memoryIo());
    return path;
}

/** Every hash of the server, as sorted `key field=value…` lines: what "the same data" means. */
async function dump(url: string): Promise<string[]> {
    const link = await connectRedis(url);
    try {
        const lines: string[] = [];
        let cursor = '0';
        do {
            const [next, keys] = (await link.send(['SCAN', cursor, 'COUNT', '1000'])) as [string, string[]];
            cursor = next;
            for (const key of keys) {
                if ((await link.send(['TYPE', key])) !== 'hash') continue;
                const fields = (await link.send(['HGETALL', key])) as string[];
                const pairs: string[] = [];
                for (let i = 0; i < fields.length; i += 2) pairs.push(`${fields[i]}=${fields[i + 1]}`);
                lines.push(`${key} ${pairs.sort().join(' ')}`);
            }
        } while (cursor !== '0');
        return lines.sort();
    } finally {
        await link.close();
    }
}

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-runtime-'));
});

afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('kvmod verify on RediSearch 1.2', () => {
    for (const merge of ['safe', 'none'] as const) {
        test.each(EXAMPLES)(
            `%s: every query's generated command answers like the oracle (merge ${merge})`,
            async (model) => {
                const io = memoryIo();
                const code = await runVerify(
                    { model, data: await dataFor(model), redis: server.url, merge, samples: 8 },
                    io,
                );
                expect(io.stdout).toContain('queries match the oracle');
                expect(io.stdout).not.toMatch(/queries differ/);
                expect(code).toBe(0);
            },
        );
    }

    test.each(EXAMPLES)('%s: verify passes with tens of thousands of rows (scale 2500)', async (model) => {
        const io = memoryIo();
        const code = await runVerify(
            { model, data: await dataFor(model, 2500, 11), redis: server.url, merge: 'safe', samples: 12 },
            io,
        );
        const loaded = Number(/loaded (\d+) rows/.exec(io.stdout + io.stderr)?.[1]);
        expect(loaded).toBeGreaterThanOrEqual(20_000);
        expect(io.stdout).toMatch(/all \d+ queries match the oracle/);
        expect(code).toBe(0);
    });

    test('the grain-mismatch model: the paper merge gives QA extra and missing rows, verify reports it and exits 1', async () => {
        const io = memoryIo();
        const code = await runVerify(
            { model: GRAIN, data: await dataFor(GRAIN), redis: server.url, merge: 'paper', samples: 8 },
            io,
        );
        expect(code).toBe(1);
        const qa = io.stdout.split('\n').find((line) => line.startsWith('QA_authorsOfCountry'))!;
        expect(qa).toMatch(
            /^QA_authorsOfCountry\s+QA_authorsOfCountry_QB_authorBooksOfCountry\s+9\s+\d+\s+[1-9]\d*\s+country=/,
        );
        expect(qa).toContain('[the KVLM design already differs from the oracle: a transformation (merge/grain) fault]');
        expect(io.stdout).toMatch(/^QB_authorBooksOfCountry\s+\S+\s+9\s+\d+\s+0$/m);
        expect(io.stdout).toContain('1 of 2 queries differ from the oracle');
        expect(io.stderr).toContain(
            'kvmod: warning: QA_authorsOfCountry and QB_authorBooksOfCountry were merged under the paper policy',
        );
    });

    test('on the command line, verify exits 1 on mismatches and 0 when everything matches', async () => {
        const data = await dataFor(GRAIN);
        const args = ['verify', GRAIN, '--data', data, '--redis', server.url, '--samples', '3'];
        expect(await main([...args, '--merge', 'paper'], memoryIo())).toBe(1);
        expect(await main([...args, '--merge', 'safe'], memoryIo())).toBe(0);
    });

    test('the grain-mismatch model: the safe policy refuses the merge and verify passes', async () => {
        const io = memoryIo();
        const code = await runVerify(
            { model: GRAIN, data: await dataFor(GRAIN), redis: server.url, merge: 'safe', samples: 8 },
            io,
        );
        expect(io.stdout).toContain('all 2 queries match the oracle');
        expect(code).toBe(0);
    });
});

describe('kvmod load', () => {
    test('loading twice leaves exactly the same data and keeps the indexes', async () => {
        const model = EXAMPLES[0];
        const data = await dataFor(model, 30, 9);
        // Start from an empty server: the scale-2500 runs above leave tens of thousands of rows to dump otherwise.
        const link = await connectRedis(server.url);
        await link.send(['FLUSHALL']);
        await link.close();
        const first = memoryIo();
        expect(await runLoad({ model, data, redis: server.url, recreate: true }, first)).toBe(0);
        const before = await dump(server.url);
        const second = memoryIo();
        expect(await runLoad({ model, data, redis: server.url }, second)).toBe(0);
        expect(second.stderr).toContain('index Q3_passengersOfGivenFlight_92960a: kept');
        expect(second.stderr).toMatch(/loaded [\d,]+ rows into redis:\/\/127\.0\.0\.1:\d+ \(redisearch1, detected\)/);
        expect(await dump(server.url)).toEqual(before);
        expect(before.length).toBeGreaterThan(100);
    });

    test('an index with another schema stops the load with a clear error unless --recreate', async () => {
        const link = await connectRedis(server.url);
        // From an empty server: the entities of an earlier test's data would stop the load first.
        await link.send(['FLUSHALL']);
        // The design's physical index (stable name + storage signature) exists with another schema.
        const physical = 'Q2_airportsGivenCountrySortedByCities_9cea6f';
        await link.send(['FT.DROP', physical]).catch(() => undefined);
        await link.send(['FT.CREATE', physical, 'SCHEMA', 'city', 'TEXT']);
        await link.close();
        const io = memoryIo();
        const code = await main(
            ['load', EXAMPLES[0], '--data', await dataFor(EXAMPLES[0], 10, 1), '--redis', server.url],
            io,
        );
        expect(code).toBe(1);
        expect(io.stderr).toMatch(
            /^kvmod: index Q2_airportsGivenCountrySortedByCities_9cea6f on redis:\/\/127\.0\.0\.1:\d+ exists with another schema \(it has: city TEXT; the design needs: .*\); run again with --recreate to drop it and its rows\n$/,
        );
        expect(
            await runLoad(
                { model: EXAMPLES[0], data: await dataFor(EXAMPLES[0], 10, 1), redis: server.url, recreate: true },
                memoryIo(),
            ),
        ).toBe(0);
    });

    test('bad data stops the load before anything is written, naming the object and field', async () => {
        const path = join(dir, 'bad.json');
        await writeFile(
            path,
            JSON.stringify({
                Aircraft: [{ registrationNumber: 'A1', model: 'x', capacity: 'many', flights: ['F999'] }],
            }),
        );
        const io = memoryIo();
        expect(await main(['load', EXAMPLES[0], '--data', path, '--redis', server.url], io)).toBe(1);
        expect(io.stderr).toBe(
            `kvmod: ${path} does not fit the model:\n${path}: Aircraft[0] (id "A1").capacity: must be integer\n`,
        );
    });

    test('a 2.x design on a 1.2 server stops at the first command 1.2 lacks (FT.ALIASUPDATE), with a clear error', async () => {
        const io = memoryIo();
        const data = await dataFor(EXAMPLES[2], 5, 1);
        expect(
            await main(
                ['load', EXAMPLES[2], '--data', data, '--redis', server.url, '--dialect', 'redisearch2', '--recreate'],
                io,
            ),
        ).toBe(1);
        expect(io.stderr).toMatch(
            /^kvmod: redis:\/\/127\.0\.0\.1:\d+ refused FT\.ALIASUPDATE Q1_playerOverview Q1_playerOverview_\w{6}: ERR unknown command 'FT\.ALIASUPDATE', .*\(kvmod doctor tells which dialect the server speaks\)\n$/,
        );
    });

    test('a stable name serving another design of a collection stops the load, naming kvmod migrate', async () => {
        const model = EXAMPLES[0];
        const data = await dataFor(model, 10, 1);
        // From an empty server: the entities of an earlier test's data would stop the load first.
        const flush = await connectRedis(server.url);
        await flush.send(['FLUSHALL']);
        await flush.close();
        expect(await runLoad({ model, data, redis: server.url }, memoryIo())).toBe(0);
        const link = await connectRedis(server.url);
        await link.send(['FT.CREATE', 'Q1_aircraftsCapacityWithin_000000', 'SCHEMA', 'x', 'TAG']);
        await link.send(['SET', 'kvmod:index:Q1_aircraftsCapacityWithin', 'Q1_aircraftsCapacityWithin_000000']);
        await link.close();
        const io = memoryIo();
        expect(await main(['load', model, '--data', data, '--redis', server.url], io)).toBe(1);
        expect(io.stderr).toMatch(
            /^kvmod: collection Q1_aircraftsCapacityWithin on redis:\/\/127\.0\.0\.1:\d+ is served by index Q1_aircraftsCapacityWithin_000000, another design of it \(this design's index is Q1_aircraftsCapacityWithin_117106\); run kvmod migrate <old design> <this design> to change it online, or run again with --recreate to drop it and its rows\n$/,
        );
        const again = memoryIo();
        expect(await runLoad({ model, data, redis: server.url, recreate: true }, again)).toBe(0);
        expect(again.stderr).toContain('index Q1_aircraftsCapacityWithin_117106: recreated');
        const check = await connectRedis(server.url);
        try {
            expect(await check.send(['GET', 'kvmod:index:Q1_aircraftsCapacityWithin'])).toBe(
                'Q1_aircraftsCapacityWithin_117106',
            );
            await expect(check.send(['FT.INFO', 'Q1_aircraftsCapacityWithin_000000'])).rejects.toThrow(
                /Unknown Index name/i,
            );
        } finally {
            await check.close();
        }
    });

    test('a server without RediSearch is a one-line error naming what is missing', async () => {
        const plain = await startRedis({ search: false });
        try {
            const io = memoryIo();
            const args = ['load', EXAMPLES[0], '--data', await dataFor(EXAMPLES[0], 10, 1), '--redis', plain.url];
            expect(await main(args, io)).toBe(1);
            expect(io.stderr).toBe(
                `kvmod: ${plain.url} has no RediSearch module (MODULE LIST shows none); load redisearch.so or use Redis Stack / Redis 8, or use the design for Redis without a module: --target redis-core (Redis 7 or later)\n`,
            );
        } finally {
            await plain.stop();
        }
    });

    test('a server that cannot be reached is a one-line error', async () => {
        const io = memoryIo();
        expect(
            await main(
                ['load', EXAMPLES[0], '--data', await dataFor(EXAMPLES[0], 10, 1), '--redis', 'redis://127.0.0.1:1'],
                io,
            ),
        ).toBe(1);
        expect(io.stderr).toBe('kvmod: cannot connect to redis://127.0.0.1:1: connection refused\n');
    });
});
