/**
 * Reading engine replies back into typed rows, and noticing when LIMIT cuts an answer.
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
import { loadIntoRedis } from '../../src/runtime/redis-loader.js';
import { connectRedis } from '../../src/runtime/redis-link.js';
import { decodeQueryReply, runEngineQuery } from '../../src/runtime/redis-query.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
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
        projections: [
            { field: 'city', label: 'city', type: 'text' },
            { field: 'born', label: 'born', type: 'date' },
        ],
    }) as unknown as RedisQuery;

describe('engine replies', () => {
    test('an FT.SEARCH reply becomes typed rows in projection order', () => {
        const reply = [2, 'C:1', ['born', '19500101', 'city', 'São Paulo'], 'C:2', ['city', '', 'born', '20401231']];
        expect(decodeQueryReply(query('search'), reply)).toEqual({
            total: 2,
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

    test('a query whose LIMIT is smaller than its answer is reported, not silently cut', async () => {
        const workspace = await loadWorkspace([MODEL]);
        const pidm = workspace.pidm.map((entry) => entry.model);
        const model = buildRuntimeModel(pidm);
        const data = generateInstanceData(model, { scale: 30, seed: 1 });
        const kvlm = transformPidmToKvlm(pidm, { merge: 'safe' }).model;
        const view = buildRedisViewModel(kvlm, { dialect: 'redisearch1', limit: 3 });
        const link = await connectRedis(server.url);
        try {
            await loadIntoRedis(link, view, materializeModel(kvlm, data, indexInstanceData(model, data)), {
                fresh: true,
            });
            const q1 = view.collections.find((c) => c.name === 'Q1_aircraftsCapacityWithin')!.queries[0];
            await expect(runEngineQuery(link, q1, { capacity: -100000, capacity_2: 100000 })).rejects.toThrow(
                "the engine matched 30 rows but returned 3: the query's LIMIT (3) cuts the answer",
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
