/**
 * What the entity store (../redis-entities/redis-entity-store.ts) needs of the core-Redis engine: a row exactly as
 * the library's `row_put` writes it (the key field, then every field's encoded value), how a row is deleted (the
 * library's `del`, index entries with it), and the index keys the live rows imply (core-consistency.ts). The
 * redis-core design stores no companion: its functions compute their own index forms.
 */
import type { Collection } from '../../language/generated/ast.js';
import type { CoreCollection, CoreViewModel } from '../../generation/redis-core/redis-core-design.js';
import type { MaterializedRow } from '../materialize.js';
import { buildEntityStoreSchema } from '../redis-entities/entity-store-schema.js';
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
            const counters = design.collections.filter((collection) => collection.key.kind === 'counter');
            return counters.length === 0
                ? null
                : `the design has counter-key collections (${counters.map((c) => c.name).join(', ')}): it keeps no entity store`;
        },
        schemaOf: (design, model) => buildEntityStoreSchema(model, design.database, null, []),
        rowHashes(design, collection: Collection, rows: readonly MaterializedRow[]): CollectionHashes {
            const core = collectionOf(design, collection.name);
            const hashes: CollectionHashes = new Map();
            for (const row of rows) {
                const key = coreRowKey(core, row);
                const values = coreRowValues(core, row);
                const hash: Record<string, string> = { [core.keyField]: key.slice(core.rowPrefix.length) };
                core.fields.forEach((field, position) => (hash[field.name] = values[position]));
                hashes.set(key, hash);
            }
            return hashes;
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
