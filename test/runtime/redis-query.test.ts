/**
 * Reading engine replies back into typed rows, and reading every answer to its end, page by page.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { buildRedisViewModel, type RedisQuery } from '../../src/generation/redis/redis-view-model.js';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadIntoRedis } from '../../src/runtime/redisearch/redis-loader.js';
import { connectRedis, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { decodeQueryReply, runEngineQuery } from '../../src/runtime/redisearch/redis-query.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
import { verifyQueries, type QueryExecutor } from '../../src/runtime/verify.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const MODEL = 'examples/airflights/airflights.pidm';
let server: RedisTestServer;
let dir: string;

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-query-'));
});

afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

const query = (kind: 'search' | 'aggregate'): RedisQuery =>
    ({
        kind,
        limit: 10000,
        load: ['C_id', 'city', 'born'],
        projections: [
            { field: 'city', label: 'city', type: 'text' },
            { field: 'born', label: 'born', type: 'date' },
        ],
    }) as unknown as RedisQuery;

/** The airflights design (merge safe, RediSearch 1.2) loaded fresh with generated data; the caller closes the link. */
async function loadedDesign(scale: number, seed: number) {
    const workspace = await loadWorkspace([MODEL]);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale, seed });
    const kvlm = transformPidmToKvlm(pidm, { merge: 'safe' }).model;
    const view = buildRedisViewModel(kvlm, { dialect: 'redisearch1' });
    const link = await connectRedis(server.url);
    await loadIntoRedis(link, view, materializeModel(kvlm, data, indexInstanceData(model, data)), { fresh: true });
    return { pidm, model, data, kvlm, view, link };
}

describe('engine replies', () => {
    test('an FT.SEARCH reply becomes typed rows in projection order', () => {
        const reply = [2, 'C:1', ['born', '19500101', 'city', 'São Paulo'], 'C:2', ['city', '', 'born', '20401231']];
        expect(decodeQueryReply(query('search'), reply)).toEqual({
            total: 2,
            ids: ['C:1', 'C:2'],
            rows: [
                ['São Paulo', '1950-01-01'],
                ['', '2040-12-31'],
            ],
        });
    });

    test('an FT.AGGREGATE reply becomes typed rows in projection order', () => {
        const reply = [1, ['C_id', '1', 'city', 'Paris', 'born', '20000229']];
        expect(decodeQueryReply(query('aggregate'), reply).rows).toEqual([['Paris', '2000-02-29']]);
    });

    test('answers larger than two pages are read to their end and match the oracle row for row', async () => {
        const { pidm, model, data, kvlm, view, link } = await loadedDesign(120, 5);
        const PAGE = 3;
        // The most rows and requests seen per kind of query: unsorted FT.SEARCH, sorted FT.SEARCH, FT.AGGREGATE.
        const seen = new Map<string, { rows: number; pages: number }>();
        try {
            const engine: QueryExecutor = async (collection, served, parameters) => {
                const query = view.collections
                    .find((c) => c.name === collection.name)!
                    .queries.find((q) => q.name === served.name)!;
                const answer = await runEngineQuery(link, query, parameters, PAGE);
                const kind = query.kind === 'aggregate' ? 'aggregate' : query.sortKeys.length > 0 ? 'sorted' : 'search';
                const most = seen.get(kind) ?? { rows: 0, pages: 0 };
                if (answer.rows.length > most.rows) seen.set(kind, { rows: answer.rows.length, pages: answer.pages });
                return { rows: answer.rows };
            };
            const verdicts = await verifyQueries(pidm, kvlm, model, data, engine, {
                samples: 6,
                seed: 2,
                collation: redisearchCollation,
            });
            expect(verdicts.filter((v) => v.mismatches > 0)).toEqual([]);
            const search = seen.get('search')!;
            const sorted = seen.get('sorted')!;
            const aggregate = seen.get('aggregate')!;
            expect(search.rows).toBeGreaterThan(2 * PAGE);
            expect(search.pages).toBe(Math.ceil(search.rows / PAGE));
            // A sorted FT.SEARCH larger than a page is read again in one request (its pages are not consistent).
            expect(sorted.rows).toBeGreaterThan(2 * PAGE);
            expect(sorted.pages).toBe(2);
            // An FT.AGGREGATE answer ends at the first page shorter than the page size.
            expect(aggregate.rows).toBeGreaterThan(2 * PAGE);
            expect(aggregate.pages).toBe(Math.floor(aggregate.rows / PAGE) + 1);
        } finally {
            await link.close();
        }
    });

    test('an FT.AGGREGATE answer of exactly one page size is complete, not "maybe cut"', async () => {
        const { data, view, link } = await loadedDesign(40, 6);
        try {
            const q6 = view.collections.flatMap((c) => c.queries).find((q) => q.name.startsWith('Q6_'))!;
            expect(q6.kind).toBe('aggregate');
            const code = String((data.Flight![0] as { code: string }).code);
            const whole = await runEngineQuery(link, q6, { code });
            expect(whole.rows.length).toBeGreaterThan(0);
            const exact = await runEngineQuery(link, q6, { code }, whole.rows.length);
            expect(exact.rows).toEqual(whole.rows);
            expect(exact.pages).toBe(2);
        } finally {
            await link.close();
        }
    });

    test('an answer that changes while it is read page by page is an error, never a short answer', async () => {
        const { view, link } = await loadedDesign(30, 1);
        try {
            const c1 = view.collections.find((c) => c.name === 'Q1_aircraftsCapacityWithin')!;
            const q1 = c1.queries[0]!;
            const all = { capacity: -100000, capacity_2: 100000 };
            expect((await runEngineQuery(link, q1, all, 7)).rows).toHaveLength(30);
            // After the first page, another client deletes two rows the answer has not reached yet.
            let requests = 0;
            const deleting: RedisLink = {
                url: link.url,
                close: () => link.close(),
                send: async (argv) => {
                    const reply = await link.send(argv);
                    if (argv.includes('FT.SEARCH') && ++requests === 1) {
                        const keys = (await link.send([
                            'FT.SEARCH',
                            c1.physicalIndex,
                            '*',
                            'NOCONTENT',
                            'LIMIT',
                            '20',
                            '2',
                        ])) as string[];
                        for (const key of keys.slice(1)) await link.send(['FT.DEL', c1.physicalIndex, key, 'DD']);
                    }
                    return reply;
                },
            };
            await expect(runEngineQuery(deleting, q1, all, 7)).rejects.toThrow(
                'the engine matched 30 rows but 28 came back in 5 requests: the answer changed while it was read',
            );
        } finally {
            await link.close();
        }
    });

    test('kvmod load reads a .kvlm design with its PIDM for the data', async () => {
        const workspace = await loadWorkspace([MODEL]);
        const pidm = workspace.pidm.map((entry) => entry.model);
        const kvlmPath = join(dir, 'airflights.kvlm');
        await writeFile(kvlmPath, printKvlm(transformPidmToKvlm(pidm, { merge: 'none' }).model));
        const dataPath = join(dir, 'data.json');
        await writeFile(
            dataPath,
            JSON.stringify(generateInstanceData(buildRuntimeModel(pidm), { scale: 10, seed: 2 })),
        );
        const io = memoryIo();
        expect(await main(['load', kvlmPath, '--pidm', MODEL, '--data', dataPath, '--redis', server.url], io)).toBe(0);
        // No warning or error: only the indexes and the summary (stdout lists the collections).
        expect(io.stderr).not.toContain('kvmod:');
        expect(io.stderr).toMatch(/^loaded \d+ rows into redis:\/\/127\.0\.0\.1:\d+ \(redisearch1, detected\)\n$/m);
    });
});
