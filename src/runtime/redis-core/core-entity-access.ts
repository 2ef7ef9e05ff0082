/**
 * What the entity store (../redis-entities/redis-entity-store.ts) needs of the core-Redis engine: a row exactly as
 * the library's `row_put` writes it (the key field, every field's encoded value, and in a partitioned collection the
 * partition its index entries are in), how a row is deleted (the
 * library's `del`, index entries with it), and the index keys the live rows imply (core-consistency.ts).
 */
import type { Collection } from '../../language/generated/ast.js';
import {
    CORE_PARTITION_FIELD,
    coreRowRecordKey,
    type CoreCollection,
    type CoreViewModel,
} from '../../generation/redis-core/redis-core-design.js';
import { rowMapKey } from '../../generation/shared/entity-store.js';
import type { MaterializedRow } from '../materialize.js';
import type { CollectionHashes, RedisStoreAccess } from '../redis-entities/redis-entity-store.js';
import type { CoreConnection } from './core-connection.js';
import { checkCoreIndexes } from './core-consistency.js';
import { coreRowKey, coreRowValues, deleteCoreRow } from './core-engine.js';

function collectionOf(design: CoreViewModel, name: string): CoreCollection {
    const found = design.collections.find((collection) => collection.name === name);
    if (!found) throw new Error(`the redis-core design has no collection ${name}`);
    return found;
}

/** The core-Redis engine's part of the entity store, over its connection (one server). */
export function coreStoreAccess(connection: CoreConnection): RedisStoreAccess<CoreViewModel> {
    return {
        node: {
            send: (argv) => connection.call(undefined, argv),
            sendBatch: connection.sendBatch ? (batch) => connection.sendBatch!(batch) : undefined,
        },
        unsupported(design) {
            if (connection.cluster)
                return `${connection.url} is a cluster: the entity store runs on a single server (issue 29)`;
            return design.entityStore === null ? (design.noEntityStore ?? 'the design keeps no entity store') : null;
        },
        // Its entity functions are in the design's library, which `prepareSchema` loads.
        schemaOf: (design) => design.entityStore!.schema,
        rowHashes(design, collection: Collection, rows: readonly MaterializedRow[]): CollectionHashes {
            const core = collectionOf(design, collection.name);
            const hashes: CollectionHashes = new Map();
            for (const row of rows) {
                // A counter-key row: keyParts is its number.
                const key = core.key.kind === 'counter' ? core.rowPrefix + row.keyParts[0] : coreRowKey(core, row);
                const values = coreRowValues(core, row);
                const hash: Record<string, string> = { [core.keyField]: key.slice(core.rowPrefix.length) };
                core.fields.forEach((field, position) => (hash[field.name] = values[position]));
                // A partitioned collection's row names the partition of its index entries (`index_put` writes it).
                if (core.partition)
                    hash[CORE_PARTITION_FIELD] = coreRowRecordKey(core, values).slice(0, -':rec'.length);
                hashes.set(key, hash);
            }
            return hashes;
        },
        counterKeys(design, name) {
            const counter = collectionOf(design, name).key.counterKey;
            return counter === null ? null : { counter, map: rowMapKey(counter) };
        },
        rowPattern: (design, name) => `${collectionOf(design, name).rowPrefix.replace(/[*?[\]\\]/g, '\\$&')}*`,
        async deleteRows(design, name, keys) {
            const collection = collectionOf(design, name);
            for (const key of keys) await deleteCoreRow(connection, design, collection, key);
        },
        checkIndexes(design, expected) {
            const live = new Map<string, Map<string, string[]>>();
            for (const collection of design.collections) {
                const rows = new Map<string, string[]>();
                for (const [key, hash] of expected.get(collection.name) ?? [])
                    rows.set(
                        key,
                        collection.fields.map((field) => hash[field.name]),
                    );
                live.set(collection.name, rows);
            }
            return checkCoreIndexes(connection, design, live);
        },
    };
}
