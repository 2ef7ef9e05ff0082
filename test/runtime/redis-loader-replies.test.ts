/**
 * The loader's pipelined write path on a real server: a refused row is reported by its position, collection
 * and key, with the server's own error, whether the link pipelines a batch in one call (`sendBatch`) or
 * only sends command by command.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { bindRedisCommand } from '../../src/generation/redis/redis-commands.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadIntoRedis, rowParameters } from '../../src/runtime/redisearch/redis-loader.js';
import { connectRedis, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

let server: RedisTestServer;

beforeAll(async () => {
    server = await startRedis();
});

afterAll(async () => {
    await server?.stop();
});

/** The airflights design as HSET rows (the redisearch2 form: a plain hash write the server can refuse). */
async function design() {
    const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale: 12, seed: 3 });
    const kvlm = transformPidmToKvlm(pidm, { merge: 'safe' }).model;
    const view = buildRedisViewModel(kvlm, { dialect: 'redisearch2' });
    return { view, collections: materializeModel(kvlm, data, indexInstanceData(model, data)) };
}

describe('a row the server refuses', () => {
    test.each([
        ['pipelined in one call per batch', (link: RedisLink) => link],
        [
            'sent command by command',
            (link: RedisLink): RedisLink => ({
                url: link.url,
                send: (argv) => link.send(argv),
                close: () => link.close(),
            }),
        ],
    ])('stops the load naming the row, its collection and key, and the reply (%s)', async (_, wrap) => {
        const { view, collections } = await design();
        const collection = view.collections[0]!;
        const row = collections.find((c) => c.name === collection.name)!.rows[4]!;
        const key = bindRedisCommand(collection.insert, rowParameters(collection, row))[1]!;
        const link = await connectRedis(server.url);
        try {
            await link.send(['FLUSHALL']);
            // A string where the fifth row's hash goes: HSET answers WRONGTYPE for that row only.
            await link.send(['SET', key, 'not a hash']);
            const progress: number[] = [];
            // Rows only: a 2.x design's indexes (FT.CREATE … PREFIX, FT.ALIASUPDATE) are not for this 1.2 server.
            const error = await loadIntoRedis(wrap(link), view, collections, {
                skipIndexes: true,
                batchSize: 2,
                onProgress: (done) => {
                    progress.push(done);
                },
            }).then(
                () => undefined,
                (failure: unknown) => failure as Error & { code?: string },
            );
            expect(error?.code).toBe('redis.refused');
            expect(error?.message).toBe(
                `${link.url} refused row 5 of collection ${collection.name} (key ${JSON.stringify(row.keyParts)}): WRONGTYPE Operation against a key holding the wrong kind of value`,
            );
            // Batches of two: the first two were acknowledged before the refused row's batch was read.
            expect(progress).toEqual([2, 4]);
            expect(await link.send(['TYPE', key])).toBe('string');
        } finally {
            await link.close();
        }
    });
});
