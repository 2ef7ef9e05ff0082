/**
 * The generated TypeScript client of the redis-core design on a 3-master Redis Cluster (issue 29, item 3): the same
 * generated functions an application calls on one server, given node-redis's cluster client (`connectCluster`). The
 * client loads its library on every master; the random entity workload of issue 28 runs through the GENERATED entity
 * functions (the cluster steps: outbox call in the entity's slot, versioned one-slot steps), every outcome and
 * refusal code equal to the oracle's, a refused operation changing no key; every 25 operations `complete` and the
 * live check find 0 differences, and every query, read through the GENERATED query functions (each naming its
 * partition's record key), answers like the oracle over the entities.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildTsCoreClientDesign } from '../../src/generation/typescript/typescript-core-design.js';
import type { TsEntity } from '../../src/generation/typescript/typescript-entities.js';
import type { EntityOperation } from '../../src/runtime/entities/entity-operations.js';
import { runWorkload, type EntityExecutor, type WorkloadStore } from '../../src/runtime/entities/workload.js';
import { ClusterEntities, completeCluster } from '../../src/runtime/redis-core/core-cluster-entities.js';
import { clusterEntityStore } from '../../src/runtime/redis-core/core-cluster-store.js';
import { connectCore, type CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { buildCoreDesign } from '../../src/runtime/redis-core/core-engine.js';
import { redisCoreCollation } from '../../src/runtime/redis-core/core-runtime.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verdictStatus, verifyQueries } from '../../src/runtime/verify.js';
import { repoRoot } from '../generation/generation-fixtures.js';
import { startRedisCluster, type RedisTestCluster } from '../support/redis-cluster.js';
import { redisCli } from '../support/redis-server.js';
import { call, importClient, type ClientModule } from './generated-client.js';

const OPS = Number(process.env.KVMOD_CLUSTER_OPS ?? 150);
const SEED = Number(process.env.KVMOD_CLUSTER_SEED ?? 29);

interface ClusterClient {
    masters: unknown[];
    close(): Promise<void>;
}

interface Page {
    rows: Record<string, unknown>[];
}

let cluster: RedisTestCluster;
let connection: CoreConnection;
let dir: string;
const clients: ClusterClient[] = [];

beforeAll(async () => {
    cluster = await startRedisCluster(3);
    connection = await connectCore(cluster.urls[0], { cluster: cluster.urls });
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-core-client-cluster-'));
});

afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await connection?.close();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every key of the cluster with its content, sorted: a refused operation must leave it as it was. */
async function digest(): Promise<string> {
    const parts: string[] = [];
    for (const node of await connection.masters()) {
        let cursor = '0';
        do {
            const [next, keys] = (await node.send(['SCAN', cursor, 'COUNT', '1000'])) as [unknown, unknown[]];
            cursor = String(next);
            for (const key of keys.map(String)) {
                const type = String(await node.send(['TYPE', key]));
                let content: string[];
                if (type === 'hash') {
                    const flat = ((await node.send(['HGETALL', key])) as unknown[]).map(String);
                    content = [];
                    for (let i = 0; i < flat.length; i += 2) content.push(`${flat[i]}=${flat[i + 1]}`);
                    content.sort();
                } else if (type === 'set')
                    content = ((await node.send(['SMEMBERS', key])) as unknown[]).map(String).sort();
                else if (type === 'zset')
                    content = ((await node.send(['ZRANGE', key, '0', '-1', 'WITHSCORES'])) as unknown[]).map(String);
                else content = [String(await node.send(['DUMP', key]))];
                parts.push(`${key} ${type} ${JSON.stringify(content)}`);
            }
        } while (cursor !== '0');
    }
    return parts.sort().join('\n');
}

/** Each operation through the generated function for it; an EntityError is an outcome with its code. */
function generatedExecutor(module: ClientModule, client: unknown, entities: readonly TsEntity[]): EntityExecutor {
    const byName = new Map(entities.map((entity) => [entity.schema.name, entity]));
    const reference = (entity: TsEntity, name: string) => entity.references.find((r) => r.schema.name === name)!.names;
    const run = (operation: EntityOperation): Promise<unknown> => {
        const entity = byName.get(operation.entity)!;
        switch (operation.kind) {
            case 'create':
                return call(module, entity.names.create, client, operation.object);
            case 'update':
                return call(module, entity.names.update, client, operation.id, operation.patch);
            case 'delete':
                return call(module, entity.names.delete, client, operation.id, { detach: operation.detach === true });
            case 'set':
            case 'unset': {
                const names = reference(entity, operation.reference) as { set: string };
                return call(
                    module,
                    names.set,
                    client,
                    operation.id,
                    operation.kind === 'set' ? operation.target : null,
                );
            }
            case 'add':
            case 'remove': {
                const names = reference(entity, operation.reference) as { add: string; remove: string };
                return call(module, names[operation.kind], client, operation.id, operation.targets);
            }
        }
    };
    return {
        async execute(operation) {
            try {
                await run(operation);
                return { ok: true };
            } catch (error) {
                const e = error as { name?: string; code?: string; message?: string };
                if (e.name === 'EntityError') return { ok: false, code: e.code as never, message: e.message ?? '' };
                return { ok: false, code: null, message: e.message ?? String(error) };
            }
        },
    };
}

describe('the generated redis-core client on a 3-master Redis Cluster', () => {
    test.each(['airflights', 'book-ratings'])(
        '%s: random entity operations through the generated functions equal the oracle; queries through the generated functions equal the oracle; live check 0 differences',
        async (name) => {
            const runtime = await loadRuntimeDesign(`examples/${name}/${name}.pidm`);
            const module = await importClient(
                { kvlm: runtime.kvlm, pidm: runtime.pidm },
                { design: 'redis-core' },
                join(dir, name),
            );
            const tsDesign = buildTsCoreClientDesign(runtime.kvlm, {}, { pidm: runtime.pidm });
            const { design } = await buildCoreDesign({ kvlm: runtime.kvlm, pidm: runtime.pidm });
            const client = await call<ClusterClient>(module, 'connectCluster', cluster.urls);
            clients.push(client);
            expect(client.masters.length).toBe(3);
            // The checker `kvmod complete` uses: kvmod's own writer, for the records a dead writer would leave.
            const checker = new ClusterEntities({ connection, design, kvlm: runtime.kvlm, model: runtime.model });
            const mismatches: string[] = [];
            let queried = 0;
            let partitioned = 0;
            const store: WorkloadStore = {
                reset: async () => {
                    for (const node of cluster.nodes) await redisCli(node.port, ['FLUSHALL']);
                    // The client's setup: its library (entity Function and cluster steps) on every master.
                    expect(await call(module, 'loadLibrary', client)).toBe(design.library);
                    await expect(call(module, 'checkServer', client)).resolves.toBeUndefined();
                },
                writer: async () => generatedExecutor(module, client, tsDesign.entities!.entities),
                check: async () => {
                    // Nothing is left pending: the generated functions carry every step of their operations.
                    expect((await completeCluster(checker, connection)).records).toBe(0);
                    const outcome = await clusterEntityStore(connection).check(design, runtime);
                    const verdicts = await verifyQueries(
                        runtime.pidm,
                        runtime.kvlm,
                        runtime.model,
                        outcome.data,
                        async (_collection, query, parameters) => {
                            const served = tsDesign.queries.find((q) => q.core.name === query.name)!;
                            if (served.core.partition !== null && served.collection.partition !== null) partitioned++;
                            const params = Object.fromEntries(served.params.map((p) => [p.prop, parameters[p.param]]));
                            const page = await call<Page>(module, served.names.run, client, params);
                            queried++;
                            return {
                                rows: page.rows.map((row) => served.columns.map((column) => row[column.prop] as never)),
                            };
                        },
                        { samples: 3, seed: 1, collation: redisCoreCollation },
                    );
                    for (const v of verdicts)
                        if (verdictStatus(v) === 'differ') mismatches.push(`${v.query}: ${v.firstDifference ?? ''}`);
                    return outcome;
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
            expect(report.intents.delete?.done ?? 0).toBeGreaterThan(0);
            expect(mismatches).toEqual([]);
            expect(queried).toBeGreaterThan(20);
            if (name === 'airflights') expect(partitioned).toBeGreaterThan(0);
        },
        600_000,
    );
});
