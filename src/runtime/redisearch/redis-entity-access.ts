/**
 * What the entity store (../redis-entities/redis-entity-store.ts) needs of the RediSearch engine: the companions
 * the design's fields copy, a row exactly as the loader writes it (the collection's insert command), how a row is
 * deleted, and its index entries, read back with FT.SEARCH: the documents of each index (`*`) and, per indexed
 * field, those of each value the rows hold.
 */
import type { Collection } from '../../language/generated/ast.js';
import { entityLibrary } from '../../generation/entities/entity-library.js';
import { bindRedisCommand } from '../../generation/redis/redis-commands.js';
import type { RedisCollection, RedisViewModel } from '../../generation/redis/redis-view-model.js';
import { rowMapKey } from '../../generation/shared/entity-store.js';
import { escapeTagValue } from '../../generation/shared/redis-escaping.js';
import { REDIS_TEXT_RULES } from '../../generation/shared/redis-text-rules.js';
import type { MaterializedRow } from '../materialize.js';
import type { RedisLink } from '../redis-connection/redis-link.js';
import type { CollectionHashes, RedisStoreAccess, RowHash } from '../redis-entities/redis-entity-store.js';
import { rowParameters } from './redis-loader.js';
import { MAX_REPLY_ROWS } from './redis-query.js';

/** A key prefix as a SCAN glob (its glob characters escaped). */
export function globPrefix(prefix: string): string {
    return prefix.replace(/[*?[\]\\]/g, '\\$&');
}

function collectionOf(view: RedisViewModel, name: string): RedisCollection {
    const found = view.collections.find((collection) => collection.name === name);
    if (!found) throw new Error(`the Redis design has no collection ${name}`);
    return found;
}

/** A row's key and hash, from the command that writes it (`FT.ADD idx key score REPLACE FIELDS …` or `HSET key …`). */
export function writtenRow(argv: readonly string[]): { key: string; hash: RowHash } {
    const hash: RowHash = {};
    const fieldsAt = argv[0] === 'FT.ADD' ? argv.indexOf('FIELDS') + 1 : 2;
    for (let i = fieldsAt; i + 1 < argv.length; i += 2) hash[argv[i]] = argv[i + 1];
    return { key: argv[0] === 'FT.ADD' ? argv[2] : argv[1], hash };
}

async function documents(link: RedisLink, index: string, query: string): Promise<string[]> {
    const reply = (await link.send([
        'FT.SEARCH',
        index,
        query,
        'NOCONTENT',
        'LIMIT',
        '0',
        String(MAX_REPLY_ROWS),
    ])) as unknown[];
    return reply.slice(1).map(String).sort();
}

/** Where the differences of one query's documents lie, in a sentence. */
function documentDifferences(
    index: string,
    query: string,
    expected: ReadonlySet<string>,
    found: readonly string[],
): string[] {
    const out: string[] = [];
    const have = new Set(found);
    for (const key of found)
        if (!expected.has(key))
            out.push(`index ${index}: ${query} finds ${key}, which the entities do not imply there`);
    for (const key of [...expected].sort())
        if (!have.has(key)) out.push(`index ${index}: ${query} does not find row ${key}`);
    return out;
}

/** The RediSearch engine's part of the entity store, over its link. */
export function redisStoreAccess(link: RedisLink): RedisStoreAccess<RedisViewModel> {
    return {
        node: link,
        unsupported: (view) =>
            view.entityStore === null ? (view.noEntityStore ?? 'the design keeps no entity store') : null,
        schemaOf: (view) => view.entityStore!.schema,
        rowHashes(view, collection: Collection, rows: readonly MaterializedRow[]): CollectionHashes {
            const design = collectionOf(view, collection.name);
            const hashes: CollectionHashes = new Map();
            for (const row of rows) {
                const argv = bindRedisCommand(design.insert, rowParameters(design, row));
                if (design.key.kind === 'counter') {
                    // `EVAL <lua> 1 <counter> [index] <prefix> <id field> <field value…>`: the row numbered row.keyParts.
                    const number = row.keyParts[0];
                    const hash: RowHash = { [design.idField]: number };
                    for (let i = argv.indexOf(design.idField, 4) + 1; i + 1 < argv.length; i += 2)
                        hash[argv[i]] = argv[i + 1];
                    hashes.set(`${design.keyPrefix}${number}`, hash);
                    continue;
                }
                const { key, hash } = writtenRow(argv);
                hashes.set(key, hash);
            }
            return hashes;
        },
        counterKeys(view, name) {
            const counter = collectionOf(view, name).key.counterKey;
            return counter === null ? null : { counter, map: rowMapKey(counter) };
        },
        rowPattern: (view, name) => `${globPrefix(collectionOf(view, name).keyPrefix)}*`,
        async deleteRows(view, name, keys) {
            const collection = collectionOf(view, name);
            await Promise.all(
                keys.map((key) =>
                    link.send(
                        view.dialect === 'redisearch1' ? ['FT.DEL', collection.physicalIndex, key, 'DD'] : ['DEL', key],
                    ),
                ),
            );
        },
        async installFunctions(view) {
            const library = await entityLibrary(view);
            if (library !== null) await link.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
        },
        async checkIndexes(view, expected) {
            const out: string[] = [];
            const rules = REDIS_TEXT_RULES[view.dialect];
            for (const collection of view.collections) {
                const rows = expected.get(collection.name) ?? new Map<string, RowHash>();
                const index = collection.physicalIndex;
                out.push(...documentDifferences(index, '*', new Set(rows.keys()), await documents(link, index, '*')));
                for (const field of collection.fields) {
                    // The field equality clauses search (2.x: its equality companion), and its kind.
                    const name = field.equalityKey ?? (field.index !== null ? field.name : null);
                    if (name === null) continue;
                    const numeric = field.equalityKey === null && field.index?.type === 'NUMERIC';
                    const byValue = new Map<string, Set<string>>();
                    for (const [key, hash] of rows) {
                        const stored = hash[name];
                        if (stored === undefined) continue;
                        const value = numeric ? stored : rules.indexedTag(stored);
                        if (!numeric && value === '') continue;
                        const keys = byValue.get(value) ?? new Set<string>();
                        keys.add(key);
                        byValue.set(value, keys);
                    }
                    // Every value the index holds too (a value no row holds is a stale entry), and for a number
                    // every document with one.
                    const values = new Set(byValue.keys());
                    if (!numeric)
                        for (const value of (await link.send(['FT.TAGVALS', index, name])) as unknown[])
                            values.add(String(value));
                    for (const value of [...values].sort()) {
                        const keys = byValue.get(value) ?? new Set<string>();
                        const query = numeric ? `@${name}:[${value} ${value}]` : `@${name}:{${escapeTagValue(value)}}`;
                        out.push(...documentDifferences(index, query, keys, await documents(link, index, query)));
                    }
                    if (numeric) {
                        const query = `@${name}:[-inf +inf]`;
                        const keys = new Set([...byValue.values()].flatMap((set) => [...set]));
                        out.push(...documentDifferences(index, query, keys, await documents(link, index, query)));
                    }
                }
            }
            return out;
        },
    };
}
