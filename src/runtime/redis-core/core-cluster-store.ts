/**
 * The entity store of a redis-core design read on a Redis Cluster (issue 29): the same live check as on one server
 * (`redisEntityStore`: entities read back, every row and index entry against what they imply), over a node that
 * scans every master and routes each key to its slot. The steps' bookkeeping is not the store: entity logs
 * (`…:@log`), row tombstones and the versions rows and partitions keep (`@v`) are left out; a row's `@stale` (a
 * partition still holding old entries) is kept, so a change not yet carried shows as a difference.
 */
import type { CoreViewModel } from '../../generation/redis-core/redis-core-design.js';
import type { EngineEntityStore } from '../engine.js';
import { redisEntityStore, type RedisStoreAccess, type StoreNode } from '../redis-entities/redis-entity-store.js';
import { clusterCounterReason } from './core-cluster-entities.js';
import { coreStoreAccess } from './core-entity-access.js';
import type { CoreConnection } from './core-connection.js';

/** The field of a row tombstone. */
const DELETED_FIELD = '@deleted';
/** The versions a row keeps. */
const VERSIONS_FIELD = '@v';

/** A node over the whole cluster: SCAN walks every master (one reply, cursor 0), any other command goes to its key. */
export function clusterStoreNode(connection: CoreConnection): StoreNode {
    return {
        async send(argv) {
            if (argv[0].toUpperCase() === 'SCAN') {
                const pattern = argv[argv.indexOf('MATCH') + 1] ?? '*';
                const keys: string[] = [];
                for (const node of await connection.masters()) {
                    let cursor = '0';
                    do {
                        const [next, batch] = (await node.send([
                            'SCAN',
                            cursor,
                            'MATCH',
                            pattern,
                            'COUNT',
                            '1000',
                        ])) as [unknown, unknown[]];
                        cursor = String(next);
                        keys.push(...batch.map(String));
                    } while (cursor !== '0');
                }
                const kept: string[] = [];
                for (const key of keys) {
                    if (key.includes('}:@')) continue;
                    if (
                        !key.startsWith('kvmod:') &&
                        (await connection.call(key, ['HEXISTS', key, DELETED_FIELD])) === 1
                    )
                        continue;
                    kept.push(key);
                }
                return ['0', kept];
            }
            const reply = await connection.call(argv[1], argv, true);
            if (argv[0].toUpperCase() === 'HGETALL' && Array.isArray(reply)) {
                const out: unknown[] = [];
                for (let i = 0; i + 1 < reply.length; i += 2)
                    if (String(reply[i]) !== VERSIONS_FIELD) out.push(reply[i], reply[i + 1]);
                return out;
            }
            if (argv[0].toUpperCase() === 'HGETALL' && reply !== null && typeof reply === 'object') {
                const copy = { ...(reply as Record<string, unknown>) };
                delete copy[VERSIONS_FIELD];
                return copy;
            }
            return reply;
        },
    };
}

/** The entity store of a redis-core design on a cluster: its live check (`check`), nothing it loads. */
export function clusterEntityStore(connection: CoreConnection): EngineEntityStore<CoreViewModel> {
    const access: RedisStoreAccess<CoreViewModel> = {
        ...coreStoreAccess(connection),
        node: clusterStoreNode(connection),
        unsupported: (design) =>
            design.entityStore === null
                ? (design.noEntityStore ?? 'the design keeps no entity store')
                : clusterCounterReason(design),
    };
    return redisEntityStore(access);
}
