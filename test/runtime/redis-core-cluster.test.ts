/**
 * The redis-core design on a 3-master Redis Cluster the test creates: every example verified against the oracle,
 * writes leaving no stale index entry, the slot layout (a collection's index keys in one slot, rows spread), and a
 * node killed during a load: a clear error (exit 1), then, with the node back, a re-run leaving exactly the rows.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { readInstanceData } from '../../src/runtime/instance-data.js';
import { connectCore, keySlot, type CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { respOf } from '../../src/runtime/redis-connection/redis-resp.js';
import { checkCoreIndexes } from '../../src/runtime/redis-core/core-consistency.js';
import { buildCoreDesign, prepareCore, writeCoreRows } from '../../src/runtime/redis-core/core-engine.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { runKvmodAsync, STACK_TRACE } from '../cli/run-kvmod.js';
import { startRedisCluster, type RedisTestCluster } from '../support/redis-cluster.js';
import { redisCli, sleep } from '../support/redis-server.js';
import { EXAMPLES, liveRows, MATRIX, updatesAndDeletesCase, verifyCase } from './redis-core-cases.js';

let cluster: RedisTestCluster;
let connection: CoreConnection;
let dir: string;

beforeAll(async () => {
    cluster = await startRedisCluster(3);
    connection = await connectCore(cluster.urls[0], { cluster: cluster.urls });
    dir = await mkdtemp(join(tmpdir(), 'kvmod-core-cluster-'));
});

afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every key of the cluster matching a pattern, with the port of the master holding it. */
async function keysByNode(pattern: string): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const node of cluster.nodes) {
        const reply = await redisCli(node.port, ['--scan', '--pattern', pattern]);
        for (const key of reply.stdout.split('\n').filter((line) => line !== '')) found.set(key, node.port);
    }
    return found;
}

describe('redis-core on a 3-master Redis Cluster', () => {
    test.each(MATRIX)(
        '%s, merge %s, %s keys: every query answers like the oracle (2 seeds)',
        (model, merge, keyStrategy) => verifyCase(connection, model, merge, keyStrategy),
    );

    test.each(EXAMPLES)('%s: after random updates and deletes, every index holds exactly the live rows', (model) =>
        updatesAndDeletesCase(connection, model),
    );

    test('a partitioned collection’s index spreads over the masters, one slot per partition; a global one keeps one slot; rows spread', async () => {
        // The last case left book-ratings loaded? Load airflights afresh through the CLI, with one node's URL.
        const model = 'examples/airflights/airflights.pidm';
        const data = join(dir, 'layout.json');
        await runDataGenerate({ model, scale: 30, seed: 2, output: data }, memoryIo());
        const io = memoryIo();
        expect(
            await main(['verify', model, '--data', data, '--redis', cluster.urls[1], '--target', 'redis-core'], io),
        ).toBe(0);
        expect(io.stdout).toContain('all 9 queries match the oracle');
        expect(io.stderr).toContain(`rows into ${cluster.urls[1]} (redis-core)`);
        const slotOf = async (key: string) =>
            (await redisCli(cluster.nodes[0].port, ['CLUSTER', 'KEYSLOT', key])).stdout.trim();
        // Q3 is served by `FL_code = ?code`: one partition per flight code, `{Q3_…:<code>}`.
        const collection = 'Q3_passengersOfGivenFlight';
        const partitioned = await keysByNode(`{${collection}:*`);
        const slotsByTag = new Map<string, Set<string>>();
        for (const key of partitioned.keys()) {
            const tag = key.slice(0, key.indexOf('}') + 1);
            slotsByTag.set(tag, (slotsByTag.get(tag) ?? new Set()).add(await slotOf(key)));
        }
        expect(slotsByTag.size).toBeGreaterThan(5); // a partition (a record hash and a set) per flight code
        for (const slots of slotsByTag.values()) expect(slots.size).toBe(1);
        expect(new Set(partitioned.values()).size).toBe(3);
        expect((await keysByNode(`{${collection}}:*`)).size).toBe(0);
        // Q1 (a capacity range, no equality parameter) keeps one global partition: one slot.
        const global = await keysByNode('{Q1_aircraftsCapacityWithin}:*');
        expect(global.size).toBe(2); // the record hash and the capacity sorted set
        expect(new Set(await Promise.all([...global.keys()].map(slotOf))).size).toBe(1);
        const rows = await keysByNode(`${collection}:*`);
        expect(rows.size).toBeGreaterThan(20);
        expect(new Set(rows.values()).size).toBe(3);
    });

    test('a node killed during a load: exit 1 with a clear message; with the node back, a re-run leaves exactly the rows', async () => {
        const model = 'examples/airflights/airflights.pidm';
        const data = join(dir, 'fault.json');
        await runDataGenerate({ model, scale: 400, seed: 9, output: data }, memoryIo());
        const args = [
            'load',
            model,
            '--data',
            data,
            '--redis',
            cluster.urls[0],
            '--target',
            'redis-core',
            '--batch',
            '20',
        ];
        for (const node of cluster.nodes) await redisCli(node.port, ['FLUSHALL']);
        const running = runKvmodAsync(args);
        // Kill a node once rows are arriving.
        for (let i = 0; i < 1000; i++) {
            const sizes = await Promise.all(cluster.nodes.map((node) => redisCli(node.port, ['DBSIZE'])));
            if (sizes.reduce((sum, reply) => sum + Number(reply.stdout.trim() || 0), 0) > 300) break;
            await sleep(20);
        }
        await cluster.kill(2);
        const failed = await running;
        expect(failed.status).toBe(1);
        expect(failed.stderr).toMatch(
            /kvmod: (lost a node of the cluster|the cluster) .*rows were written; run the same command again to finish/,
        );
        expect(failed.stderr).not.toMatch(STACK_TRACE);

        await cluster.restart(2);
        await connection.close();
        connection = await connectCore(cluster.urls[0], { cluster: cluster.urls });
        const again = memoryIo();
        expect(await main(args, again)).toBe(0);

        const runtime = await loadRuntimeDesign(model, {});
        const { design } = await buildCoreDesign(runtime.kvlm);
        const live = liveRows(runtime, design, await readInstanceData(data, runtime.model));
        for (const collection of design.collections) {
            const rows = await keysByNode(`${collection.rowPrefix}*`);
            expect([collection.name, rows.size]).toEqual([collection.name, live.get(collection.name)!.size]);
            expect([...rows.keys()].sort()).toEqual([...live.get(collection.name)!.keys()].sort());
        }
        expect(await checkCoreIndexes(connection, design, live)).toEqual([]);
    }, 180_000);
});

describe('batched writes on the cluster (one RESP buffer per node)', () => {
    test('the key slot kvmod computes is the one the cluster computes', async () => {
        const keys = [
            'a',
            'C:5',
            '{C}:5',
            'x{}y',
            'x{tag}y{z}',
            '{}',
            'é:ü',
            'Q3_passengersOfGivenFlight:AF%7B1%7D',
            '{Q3}:record',
        ];
        for (const key of keys)
            expect([key, keySlot(key)]).toEqual([
                key,
                Number((await redisCli(cluster.nodes[0].port, ['CLUSTER', 'KEYSLOT', key])).stdout.trim()),
            ]);
    });

    test('every reply comes back in the order given, an error reply in its place', async () => {
        const keys = ['k1', 'k2', 'k3', 'k4', 'k5', 'k6'];
        for (const key of keys) await connection.call(key, ['DEL', key]);
        await connection.call('k3', ['HSET', 'k3', 'f', 'v']);
        const replies = await connection.callMany({
            keys,
            commands: keys.map((key) => respOf(['INCRBY', key, key.slice(1)])),
            first: 'INCRBY',
        });
        expect(replies.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
            1,
            2,
            expect.stringMatching(/^WRONGTYPE/),
            4,
            5,
            6,
        ]);
    });

    test('a refused write stops the load with the row and the reason', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[0], {});
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 5, seed: 1 });
        await prepareCore(connection, design, library, true);
        for (const node of cluster.nodes) await redisCli(node.port, ['FUNCTION', 'FLUSH']);
        await expect(
            writeCoreRows(
                connection,
                design,
                materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data)),
            ),
        ).rejects.toThrow(/^the server refused row 1 of collection \S+: .*Function not found/);
    });
});
