/**
 * Entity operations on a 3-master Redis Cluster that always converge (issue 29, items 2 and 4): the random entity
 * workload of issue 28 on every example, with the writer killed between two steps of its operations at random
 * (an injected fault, fixed seed), then `complete` and the live check (the entities read back equal the oracle's;
 * every row and index entry exactly what they imply): 0 differences. A master paused (SIGSTOP) past the writer's
 * timeout mid-workload, then resumed, and the writer as a child process SIGKILLed mid-run: after `complete`, 0
 * differences. Two writers on the same entities at once (a reference to a target the other deletes must not dangle):
 * 0 differences. A master SIGKILLed twice mid-run and restarted from its append-only file (`appendfsync always`; with
 * no persistence it comes back empty, without even the function library): 0 differences, and the entities equal
 * the oracle of the acknowledged operations. The cluster loader run again after a crash
 * between a row's call and its index calls leaves exactly the rows. And the check can fail: a change left
 * half-carried is a difference until `kvmod complete` carries it.
 *
 * A longer campaign: `KVMOD_CLUSTER_OPS=5000 KVMOD_CLUSTER_SEED=7 npm test -- test/runtime/redis-core-cluster-entities.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawn } from 'node:child_process';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { generateTarget } from '../../src/generation/generation-engine.js';
import type { CoreViewModel } from '../../src/generation/redis-core/redis-core-design.js';
import { redisCoreTarget } from '../../src/generation/redis-core/redis-core-target.js';
import { entityDifferences, runWorkload, type WorkloadStore } from '../../src/runtime/entities/workload.js';
import {
    ClusterEntities,
    clusterExecutor,
    completeCluster,
} from '../../src/runtime/redis-core/core-cluster-entities.js';
import { clusterEntityStore } from '../../src/runtime/redis-core/core-cluster-store.js';
import { connectCore, type CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { checkCoreIndexes } from '../../src/runtime/redis-core/core-consistency.js';
import {
    buildCoreDesign,
    coreRowKey,
    coreRowValues,
    prepareCore,
    writeCoreRows,
} from '../../src/runtime/redis-core/core-engine.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData, type InstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { coreClusterFunctions } from '../../src/generation/redis-core/redis-core-cluster-lua.js';
import { loadRuntimeDesign, type RuntimeDesign } from '../../src/runtime/runtime-design.js';
import { startRedisCluster, type RedisTestCluster } from '../support/redis-cluster.js';
import { redisCli } from '../support/redis-server.js';

const OPS = Number(process.env.KVMOD_CLUSTER_OPS ?? 200);
const SEED = Number(process.env.KVMOD_CLUSTER_SEED ?? 29);
/** The chance that the writer dies before any one step of its operation. */
const FAULT_RATE = 0.05;
const EXAMPLES = ['airflights', 'book-ratings', 'tournament'];

let cluster: RedisTestCluster;
let connection: CoreConnection;

beforeAll(async () => {
    cluster = await startRedisCluster(3);
    connection = await connectCore(cluster.urls[0], { cluster: cluster.urls });
});

afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
});

/** A small seeded generator (mulberry32): the faults fall where the seed puts them. */
function random(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

async function designOf(name: string): Promise<{ runtime: RuntimeDesign; design: CoreViewModel; library: string }> {
    const runtime = await loadRuntimeDesign(`examples/${name}/${name}.pidm`);
    const { viewModel, files } = await generateTarget(redisCoreTarget, { kvlm: runtime.kvlm, pidm: runtime.pidm });
    return { runtime, design: viewModel, library: files.find((file) => file.path === 'library.lua')!.content };
}

/**
 * Every key of the cluster with its content, sorted: a refused operation must leave it as it was. Content, not
 * `DUMP`: a hash too big for a listpack dumps in its table's order, which reads change (incremental rehashing).
 */
async function digest(): Promise<string> {
    const parts: string[] = [];
    for (const node of await connection.masters()) {
        let cursor = '0';
        do {
            const [next, keys] = (await node.send(['SCAN', cursor, 'COUNT', '1000'])) as [unknown, unknown[]];
            cursor = String(next);
            for (const key of keys.map(String)) {
                const type = String(await node.send(['TYPE', key]));
                const content =
                    type === 'hash'
                        ? ((await node.send(['HGETALL', key])) as unknown[]).map(String)
                        : type === 'set'
                          ? ((await node.send(['SMEMBERS', key])) as unknown[]).map(String).sort()
                          : type === 'zset'
                            ? ((await node.send(['ZRANGE', key, '0', '-1', 'WITHSCORES'])) as unknown[]).map(String)
                            : [String(await node.send(['DUMP', key]))];
                if (type === 'hash') {
                    const pairs: string[] = [];
                    for (let i = 0; i < content.length; i += 2) pairs.push(`${content[i]}=${content[i + 1]}`);
                    content.splice(0, content.length, ...pairs.sort());
                }
                parts.push(`${key} ${type} ${JSON.stringify(content)}`);
            }
        } while (cursor !== '0');
    }
    return parts.sort().join('\n');
}

async function reset(design: CoreViewModel, library: string): Promise<void> {
    for (const node of cluster.nodes) await redisCli(node.port, ['FLUSHALL']);
    await prepareCore(connection, design, library, true);
}

describe('entity operations on a 3-master Redis Cluster', () => {
    test.each(EXAMPLES)(
        '%s: the writer killed between steps at random, then complete: every live check finds 0 differences',
        async (name) => {
            const { runtime, design, library } = await designOf(name);
            const entities = new ClusterEntities({ connection, design, kvlm: runtime.kvlm, model: runtime.model });
            const roll = random(SEED);
            let faults = 0;
            entities.fault = () => {
                const dies = roll() < FAULT_RATE;
                if (dies) faults++;
                return dies;
            };
            let completed = 0;
            const store: WorkloadStore = {
                reset: () => reset(design, library),
                writer: async () => clusterExecutor(entities),
                check: async () => {
                    completed += (await completeCluster(entities, connection)).records;
                    const { data, differences } = await clusterEntityStore(connection).check(design, runtime);
                    return { data, differences };
                },
                digest,
            };
            const report = await runWorkload(store, {
                model: runtime.model,
                design: runtime.kvlm,
                operations: OPS,
                seed: SEED,
                writers: 1,
                checkEvery: 25,
                shrink: false,
            });
            expect(report.failure).toBeUndefined();
            expect(report.operations).toBe(OPS);
            expect(faults).toBeGreaterThan(0);
            // Some records were left by a dead writer and carried by `complete` (the rest by the next operation).
            expect(completed).toBeGreaterThan(0);
            expect(report.intents.delete?.done ?? 0).toBeGreaterThan(0);
        },
        600_000,
    );

    test.each(EXAMPLES)(
        '%s: two writers on the same entities at once, then complete: every live check finds 0 differences',
        async (name) => {
            const { runtime, design, library } = await designOf(name);
            const opened: CoreConnection[] = [];
            const store: WorkloadStore = {
                reset: () => reset(design, library),
                writer: async () => {
                    const own = await connectCore(cluster.urls[0], { cluster: cluster.urls });
                    opened.push(own);
                    return clusterExecutor(
                        new ClusterEntities({ connection: own, design, kvlm: runtime.kvlm, model: runtime.model }),
                    );
                },
                check: async () => {
                    const checker = new ClusterEntities({
                        connection,
                        design,
                        kvlm: runtime.kvlm,
                        model: runtime.model,
                    });
                    await completeCluster(checker, connection);
                    return clusterEntityStore(connection).check(design, runtime);
                },
                digest,
            };
            try {
                const report = await runWorkload(store, {
                    model: runtime.model,
                    design: runtime.kvlm,
                    operations: OPS,
                    seed: SEED,
                    writers: 2,
                    checkEvery: 10,
                    idsPerEntity: 3,
                    shrink: false,
                });
                expect(report.failure).toBeUndefined();
                expect(report.operations).toBe(OPS);
                expect(report.intents.delete?.done ?? 0).toBeGreaterThan(0);
            } finally {
                for (const own of opened) await own.close();
            }
        },
        600_000,
    );

    test('a change left half-carried is a difference until complete carries it', async () => {
        const { runtime, design, library } = await designOf('book-ratings');
        await reset(design, library);
        const entities = new ClusterEntities({ connection, design, kvlm: runtime.kvlm, model: runtime.model });
        const writer = clusterExecutor(entities);
        const operations = (await import('../../src/runtime/entities/random-operations.js'))
            .randomEntityOperations(runtime.model, 3, 60, { design: runtime.kvlm })
            .map((drawn) => drawn.operation);
        // The writer dies at the first step of each operation: only the entity's own call is done.
        entities.fault = () => true;
        for (const operation of operations) await writer.execute(operation);
        const store = clusterEntityStore(connection);
        const before = await store.check(design, runtime);
        /** The records pending, counted from the logs (read-only). */
        const completeCounts = async () => {
            let records = 0;
            for (const node of await connection.masters()) {
                const reply = (await node.send([
                    'SCAN',
                    '0',
                    'MATCH',
                    'kvmod:book_ratings*:@log',
                    'COUNT',
                    '100000',
                ])) as [unknown, unknown[]];
                for (const log of reply[1].map(String))
                    records += ((await node.send(['HKEYS', log])) as unknown[]).filter((f) =>
                        /^r\d+$/.test(String(f)),
                    ).length;
            }
            return { records };
        };
        expect(before.differences.length).toBeGreaterThan(0);
        // `kvmod complete`, given one node of the cluster, carries every pending change.
        const pending = (await completeCounts()).records;
        expect(pending).toBeGreaterThan(0);
        const io = memoryIo();
        expect(
            await main(
                [
                    'complete',
                    'examples/book-ratings/book-ratings.pidm',
                    '--target',
                    'redis-core',
                    '--redis',
                    cluster.urls[1],
                ],
                io,
            ),
        ).toBe(0);
        expect(io.stdout).toMatch(
            new RegExp(`^${pending} pending changes of \\d+ entities completed on 3 masters \\(`),
        );
        const after = await store.check(design, runtime);
        expect(after.differences).toEqual([]);
        expect((await completeCluster(entities, connection)).records).toBe(0);
    }, 300_000);

    test('a load run again after a crash between a row’s call and its index calls leaves exactly the rows', async () => {
        const runtime = await loadRuntimeDesign('examples/airflights/airflights.pidm');
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        await reset(design, library);
        const data = generateInstanceData(runtime.model, { scale: 5, seed: 1 });
        const first = materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
        await writeCoreRows(connection, design, first);
        // The second load moves one row of a partitioned collection to another partition.
        const collection = design.collections.find((c) => c.partition !== null)!;
        const field = collection.partition!.fields[0];
        const second = first.map((c) => ({ ...c, rows: c.rows.map((row) => ({ ...row, values: { ...row.values } })) }));
        const moved = second.find((c) => c.name === collection.name)!.rows[0];
        moved.values[field.field] = field.type === 'text' ? 'moved elsewhere' : 987654;
        const key = coreRowKey(collection, moved);
        // It dies after the row's call: the row names its new partition, the old one still holds its entries.
        const steps = coreClusterFunctions(design.database);
        await connection.call(key, [
            'FCALL',
            steps.row,
            '1',
            key,
            collection.name,
            '{}',
            'put',
            ...coreRowValues(collection, moved),
        ]);
        const live = new Map(
            design.collections.map((c) => [
                c.name,
                new Map(
                    second
                        .find((m) => m.name === c.name)!
                        .rows.map((row) => [coreRowKey(c, row), coreRowValues(c, row)] as const),
                ),
            ]),
        );
        expect((await checkCoreIndexes(connection, design, live)).length).toBeGreaterThan(0);
        // Run again, the load removes them there.
        await writeCoreRows(connection, design, second);
        expect(await checkCoreIndexes(connection, design, live)).toEqual([]);
        expect(await connection.call(key, ['HGET', key, '@stale'])).toBeNull();
    }, 120_000);

    test('a master paused past the writer’s timeout mid-workload, then resumed: complete leaves 0 differences', async () => {
        const { runtime, design, library } = await designOf('tournament');
        await reset(design, library);
        // The writer waits 1 s for a reply; the master is stopped 3 s (the cluster marks it failing after 1 s).
        const writer = await connectCore(cluster.urls[0], { cluster: cluster.urls, timeoutSeconds: 1 });
        try {
            const entities = new ClusterEntities({
                connection: writer,
                design,
                kvlm: runtime.kvlm,
                model: runtime.model,
            });
            const { randomEntityOperations } = await import('../../src/runtime/entities/random-operations.js');
            const operations = randomEntityOperations(runtime.model, 17, 150, { design: runtime.kvlm });
            const paused = cluster.nodes[1].pid;
            let failed = 0;
            for (const [i, drawn] of operations.entries()) {
                if (i === 60) {
                    process.kill(paused, 'SIGSTOP');
                    setTimeout(() => process.kill(paused, 'SIGCONT'), 3000);
                }
                try {
                    await entities.execute(drawn.operation);
                } catch {
                    // A timeout or a slot that is down: the operation may or may not have happened.
                    failed++;
                }
            }
            expect(failed).toBeGreaterThan(0);
            await waitUntilOk();
            const checker = new ClusterEntities({ connection, design, kvlm: runtime.kvlm, model: runtime.model });
            await completeCluster(checker, connection);
            const { differences } = await clusterEntityStore(connection).check(design, runtime);
            expect(differences).toEqual([]);
        } finally {
            process.kill(cluster.nodes[1].pid, 'SIGCONT');
            await writer.close();
        }
    }, 300_000);

    test('a master SIGKILLed mid-run and restarted from its append-only file: every acknowledged operation is there', async () => {
        // Its own cluster: every node persists each write before it replies (appendfsync always).
        const durable = await startRedisCluster(3, { appendfsync: 'always' });
        const { runtime, design, library } = await designOf('book-ratings');
        const open = () => connectCore(durable.urls[0], { cluster: durable.urls, timeoutSeconds: 5 });
        let writer = await open();
        try {
            await prepareCore(writer, design, library, true);
            const { randomEntityOperations } = await import('../../src/runtime/entities/random-operations.js');
            const { applyEntityOperation } = await import('../../src/runtime/entities/entity-operations.js');
            const operations = randomEntityOperations(runtime.model, SEED, 160, { design: runtime.kvlm });
            const empty: InstanceData = {};
            for (const name of runtime.model.entities.keys()) empty[name] = [];
            // The states the acknowledged operations allow: an operation without a reply may or may not have
            // happened (two candidates), and a later reply drops the candidates whose oracle answers otherwise.
            let candidates: InstanceData[] = [empty];
            const kills = new Map([
                [40, 1],
                [100, 2],
            ]);
            let killed: number | undefined;
            let uncertain = 0;
            let entities = new ClusterEntities({
                connection: writer,
                design,
                kvlm: runtime.kvlm,
                model: runtime.model,
            });
            for (const [i, drawn] of operations.entries()) {
                const master = kills.get(i);
                if (master !== undefined) {
                    await durable.kill(master);
                    killed = master;
                }
                const operation = drawn.operation;
                let outcome: Awaited<ReturnType<ClusterEntities['execute']>> | 'lost';
                try {
                    outcome = await entities.execute(operation);
                } catch (error) {
                    // Only a master down loses a reply (a restarted master lost nothing it acknowledged).
                    if (killed === undefined) throw error;
                    outcome = 'lost';
                }
                const next: InstanceData[] = [];
                for (const data of candidates) {
                    const expected = applyEntityOperation(runtime.model, data, operation);
                    if (outcome === 'lost') {
                        next.push(data);
                        if (expected.ok) next.push(expected.data);
                    } else if (outcome.ok ? expected.ok : !expected.ok && expected.refusal.code === outcome.code)
                        next.push(expected.ok ? expected.data : data);
                }
                expect(next.length).toBeGreaterThan(0);
                candidates = next;
                if (outcome === 'lost') {
                    uncertain++;
                    // The master comes back from its file; the writer connects again (its link to it is gone).
                    if (killed !== undefined) await durable.restart(killed);
                    killed = undefined;
                    await writer.close().catch(() => undefined);
                    writer = await open();
                    entities = new ClusterEntities({
                        connection: writer,
                        design,
                        kvlm: runtime.kvlm,
                        model: runtime.model,
                    });
                }
            }
            expect(uncertain).toBeGreaterThanOrEqual(2);
            expect(killed).toBeUndefined();
            const io = memoryIo();
            expect(
                await main(
                    [
                        'complete',
                        'examples/book-ratings/book-ratings.pidm',
                        '--target',
                        'redis-core',
                        '--redis',
                        durable.urls[0],
                    ],
                    io,
                ),
            ).toBe(0);
            const { data, differences } = await clusterEntityStore(writer).check(design, runtime);
            expect(differences).toEqual([]);
            const matching = candidates.filter(
                (candidate) => entityDifferences(runtime.model, candidate, data).length === 0,
            );
            expect(matching.length).toBeGreaterThan(0);
            expect(Object.values(data).reduce((sum, objects) => sum + objects.length, 0)).toBeGreaterThan(0);
        } finally {
            await writer.close().catch(() => undefined);
            await durable.stop();
        }
    }, 300_000);

    test('the writer, a child process, SIGKILLed three times mid-run: complete leaves 0 differences', async () => {
        const model = 'examples/airflights/airflights.pidm';
        const { runtime, design, library } = await designOf('airflights');
        await reset(design, library);
        for (const [round, after] of [25, 40, 60].entries()) {
            const child = spawn(
                process.execPath,
                ['test/support/cluster-writer.mjs', model, String(SEED + round), '1000', ...cluster.urls],
                { stdio: ['ignore', 'pipe', 'pipe'] },
            );
            let stderr = '';
            child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
            const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
            // Killed once `after` operations are done: whatever step the next one is at.
            await new Promise<void>((resolve, reject) => {
                let out = '';
                child.stdout.on('data', (chunk: Buffer) => {
                    out += chunk.toString();
                    if (out.includes(`done ${after}\n`)) resolve();
                });
                child.on('exit', () => reject(new Error(`the writer exited before ${after} operations: ${stderr}`)));
            });
            child.kill('SIGKILL');
            expect(await exited).toBeNull();
        }
        const io = memoryIo();
        expect(await main(['complete', model, '--target', 'redis-core', '--redis', cluster.urls[2]], io)).toBe(0);
        expect(io.stdout).toMatch(/pending changes? of \d+ entit(y|ies) completed on 3 masters/);
        const { differences, data } = await clusterEntityStore(connection).check(design, runtime);
        expect(differences).toEqual([]);
        expect(Object.values(data).reduce((sum, objects) => sum + objects.length, 0)).toBeGreaterThan(0);
    }, 300_000);
});

/** Waits until every node says the cluster is ok (a resumed master rejoins). */
async function waitUntilOk(): Promise<void> {
    for (let i = 0; i < 300; i++) {
        const replies = await Promise.all(cluster.nodes.map((node) => redisCli(node.port, ['CLUSTER', 'INFO'])));
        if (replies.every((reply) => /cluster_state:ok/.test(reply.stdout))) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the cluster did not come back to cluster_state:ok');
}
