/**
 * The core-Redis engine: prepares a server or a cluster for a redis-core design (loads the function library on every
 * master; with `fresh`, deletes every key of the design first), writes materialized rows through the library's write
 * functions (one atomic call per row on a server; the row's slot, then the index slot, on a cluster), and runs a
 * served query through its read function (on a cluster: the row keys from the index slot, then each row from its
 * own slot). Every command is the one `calls.redis` documents.
 */
import { formatCliCommand } from '../../generation/redis/redis-escaping.js';
import { decodeRedisValue, encodeRedisValue, RedisEncodingError } from '../../generation/redis/redis-encoding.js';
import {
    escapeCoreKeyPart,
    type CoreCollection,
    type CoreQuery,
    type CoreViewModel,
} from '../../generation/redis-core/redis-core-design.js';
import { generateTarget } from '../../generation/generation-engine.js';
import { redisCoreTarget } from '../../generation/redis-core/redis-core-target.js';
import type { KvlmModel } from '../../language/generated/ast.js';
import { KvmodError } from '../../pipeline/errors.js';
import type { TypedValue } from '../collation.js';
import type { MaterializedCollection, MaterializedRow } from '../materialize.js';
import type { ParameterValues } from '../oracle.js';
import { formatCount } from '../redis-loader.js';
import { isErrorReply, RedisConnectionLost } from '../redis-link.js';
import type { CoreConnection } from './core-connection.js';

/** The design of a KVLM model for this engine, and its function library's source (as `generate` writes it). */
export async function buildCoreDesign(kvlm: KvlmModel): Promise<{ design: CoreViewModel; library: string }> {
    const { viewModel, files } = await generateTarget(redisCoreTarget, kvlm);
    const library = files.find((file) => file.path === 'library.lua');
    if (!library) throw new Error('the redis-core target wrote no library.lua');
    return { design: viewModel, library: library.content };
}

/** What preparing did. */
export interface CorePrepareResult {
    /** Masters the library was loaded on. */
    masters: number;
    /** Keys deleted (a fresh preparation, or counter-key collections, which are always reloaded). */
    deleted: number;
}

/** The row key of a materialized row of a natural-key collection. */
export function coreRowKey(collection: CoreCollection, row: MaterializedRow): string {
    if (collection.key.kind === 'counter') throw new Error(`collection ${collection.name} has counter keys`);
    return (
        collection.rowPrefix +
        collection.key.parts
            .map((part, position) => escapeCoreKeyPart(encodeRedisValue(part.type, row.keyParts[position])))
            .join(':')
    );
}

/** A row's values as the write functions take them: one encoded value per field, in field order. */
export function coreRowValues(collection: CoreCollection, row: MaterializedRow): string[] {
    return collection.fields.map((field) => encodeRedisValue(field.type, row.values[field.name]));
}

/**
 * Loads the library on every master (`FUNCTION LOAD REPLACE`: the same library again changes nothing) and deletes
 * the design's keys: all of them with `fresh`, else those of counter-key collections (a counter load is not
 * idempotent: every run INCRs new keys, so such a collection is always reloaded from scratch).
 */
export async function prepareCore(
    connection: CoreConnection,
    design: CoreViewModel,
    library: string,
    fresh: boolean,
): Promise<CorePrepareResult> {
    const masters = await connection.masters();
    for (const node of masters) {
        try {
            await node.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
        } catch (error) {
            if (isErrorReply(error) && /unknown command/i.test(error.message))
                throw new KvmodError(
                    `${node.url} has no FUNCTION command: the redis-core design needs Redis 7 or later (${error.message})`,
                    { code: 'redis.version' },
                );
            throw error;
        }
    }
    let deleted = 0;
    const dropped = design.collections.filter((c) => fresh || c.key.kind === 'counter');
    for (const node of masters) {
        for (const collection of dropped) {
            // Row keys and index keys; glob-escaped (the tag's braces are literal, names are identifiers).
            for (const pattern of [`${collection.rowPrefix}*`, `\\{${collection.name}\\}:*`]) {
                let cursor = '0';
                do {
                    const [next, keys] = (await node.send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
                        string,
                        string[],
                    ];
                    cursor = String(next);
                    // One key per DEL: on a cluster, one DEL may not name keys of two slots.
                    await Promise.all(keys.map((key) => node.send(['DEL', key])));
                    deleted += keys.length;
                } while (cursor !== '0');
            }
        }
    }
    return { masters: masters.length, deleted };
}

/** Options of `writeCoreRows`. */
export interface CoreWriteOptions {
    /** Rows sent before waiting for their replies (default 1000). */
    batchSize?: number;
    /** Called after each acknowledged batch. */
    onProgress?: (done: number, total: number) => void | Promise<void>;
}

/** Rows written per collection. */
export interface CoreWriteResult {
    collections: { name: string; rows: number }[];
    rows: number;
}

/** The commands that write one row: on a server one FCALL; on a cluster the row's call and the index's call. */
function writeCommands(
    design: CoreViewModel,
    collection: CoreCollection,
    row: string,
    values: string[],
    cluster: boolean,
): { key: string; argv: string[] }[] {
    const f = design.functions;
    if (!cluster)
        return [{ key: row, argv: ['FCALL', f.put, '2', row, collection.recordKey, collection.name, ...values] }];
    return [
        { key: row, argv: ['FCALL', f.rowPut, '1', row, collection.name, ...values] },
        {
            key: collection.recordKey,
            argv: ['FCALL', f.indexPut, '1', collection.recordKey, collection.name, row, ...values],
        },
    ];
}

/**
 * Writes every row of every collection through the library, pipelined in batches. Throws a KvmodError on a refused
 * row (naming it) or a lost server (saying how far it got: re-running the load repairs and completes it).
 */
export async function writeCoreRows(
    connection: CoreConnection,
    design: CoreViewModel,
    collections: readonly MaterializedCollection[],
    options: CoreWriteOptions = {},
): Promise<CoreWriteResult> {
    const batchSize = Math.max(1, options.batchSize ?? 1000);
    const byName = new Map(collections.map((c) => [c.name, c]));
    const work = design.collections.map((collection) => {
        const rows = byName.get(collection.name)?.rows;
        if (!rows) throw new Error(`no materialized rows for collection ${collection.name}`);
        return { collection, rows };
    });
    const total = work.reduce((sum, w) => sum + w.rows.length, 0);
    let done = 0;
    const lost = (error: RedisConnectionLost): never => {
        throw new KvmodError(
            `${error.message}; ${formatCount(done)} of ${formatCount(total)} rows were written; run the same command again to finish (re-writing a row repairs it)`,
            { code: error.code, cause: error },
        );
    };
    try {
        for (const { collection, rows } of work) {
            for (let start = 0; start < rows.length; start += batchSize) {
                const batch = rows.slice(start, start + batchSize);
                let encoded: { row: string; values: string[] }[];
                try {
                    encoded = batch.map((row) => ({
                        row: collection.key.kind === 'natural' ? coreRowKey(collection, row) : '',
                        values: coreRowValues(collection, row),
                    }));
                } catch (error) {
                    if (error instanceof RedisEncodingError)
                        throw new KvmodError(`collection ${collection.name}: ${error.message}`, {
                            code: 'data.unencodable',
                            cause: error,
                        });
                    throw error;
                }
                if (collection.key.kind === 'counter') {
                    const counter = collection.key.counterKey!;
                    if (!connection.cluster) {
                        await settle(
                            encoded.map(({ values }) =>
                                connection.call(counter, [
                                    'FCALL',
                                    design.functions.add,
                                    '2',
                                    counter,
                                    collection.recordKey,
                                    collection.name,
                                    ...values,
                                ]),
                            ),
                            collection,
                            start,
                        );
                        done += batch.length;
                        await options.onProgress?.(done, total);
                        continue;
                    }
                    const ids = await settle(
                        encoded.map(() => connection.call(counter, ['INCR', counter])),
                        collection,
                        start,
                    );
                    encoded.forEach(
                        (entry, position) => (entry.row = `${collection.rowPrefix}${String(ids[position])}`),
                    );
                }
                const commands = encoded.flatMap(({ row, values }, position) =>
                    writeCommands(design, collection, row, values, connection.cluster).map((command) => ({
                        ...command,
                        position,
                    })),
                );
                await settle(
                    commands.map(({ key, argv }) => connection.call(key, argv)),
                    collection,
                    start,
                    commands.map((c) => c.position),
                );
                done += batch.length;
                await options.onProgress?.(done, total);
            }
        }
    } catch (error) {
        if (error instanceof RedisConnectionLost) lost(error);
        throw error;
    }
    return {
        collections: work.map(({ collection, rows }) => ({ name: collection.name, rows: rows.length })),
        rows: done,
    };
}

/** Writes (inserts or updates) one row at a key through the library: one call, or two on a cluster. */
export async function putCoreRow(
    connection: CoreConnection,
    design: CoreViewModel,
    collection: CoreCollection,
    row: string,
    values: string[],
): Promise<void> {
    for (const { key, argv } of writeCommands(design, collection, row, values, connection.cluster))
        await connection.call(key, argv);
}

/** Deletes one row and its index entries through the library: one call, or two on a cluster. */
export async function deleteCoreRow(
    connection: CoreConnection,
    design: CoreViewModel,
    collection: CoreCollection,
    row: string,
): Promise<void> {
    const f = design.functions;
    if (!connection.cluster) {
        await connection.call(row, ['FCALL', f.del, '2', row, collection.recordKey, collection.name]);
        return;
    }
    await connection.call(collection.recordKey, ['FCALL', f.indexDel, '1', collection.recordKey, collection.name, row]);
    await connection.call(row, ['FCALL', f.rowDel, '1', row, collection.name]);
}

/** Awaits a batch's replies; the first lost connection or refused row is thrown (as a KvmodError for a refusal). */
async function settle(
    replies: Promise<unknown>[],
    collection: CoreCollection,
    start: number,
    positions?: number[],
): Promise<unknown[]> {
    const settled = await Promise.allSettled(replies);
    const values: unknown[] = [];
    for (const [i, reply] of settled.entries()) {
        if (reply.status === 'fulfilled') {
            values.push(reply.value);
            continue;
        }
        if (reply.reason instanceof RedisConnectionLost || reply.reason instanceof KvmodError) throw reply.reason;
        const row = start + (positions ? positions[i] : i) + 1;
        throw new KvmodError(
            `the server refused row ${formatCount(row)} of collection ${collection.name}: ${(reply.reason as Error).message}`,
            { code: 'redis.refused', cause: reply.reason },
        );
    }
    return values;
}

/** A query's answer: typed rows in order, their row keys, and the command that read it (a redis-cli line). */
export interface CoreAnswer {
    rows: TypedValue[][];
    keys: string[];
    command: string;
}

/** Runs a served query through the library with typed parameter values. */
export async function runCoreQuery(
    connection: CoreConnection,
    design: CoreViewModel,
    collection: CoreCollection,
    query: CoreQuery,
    parameters: ParameterValues,
): Promise<CoreAnswer> {
    const values = query.params.map((param) => {
        const value = parameters[param.name];
        if (value === undefined) throw new Error(`query ${query.name}: no value for parameter ${param.name}`);
        return encodeRedisValue(param.type, value);
    });
    const decode = (key: string, stored: unknown[]): TypedValue[] =>
        query.projections.map((projection, position) => {
            const value = stored[position];
            if (value === null || value === undefined)
                throw new Error(
                    `row ${key}, which the index of ${collection.name} lists, has no field ${projection.field}`,
                );
            return decodeRedisValue(projection.type, String(value));
        });
    if (!connection.cluster) {
        const argv = ['FCALL_RO', design.functions.query, '1', collection.recordKey, query.name, ...values];
        const reply = (await connection.call(collection.recordKey, argv, true)) as unknown[][];
        return {
            rows: reply.map((row) => decode(String(row[0]), row.slice(1))),
            keys: reply.map((row) => String(row[0])),
            command: formatCliCommand(argv),
        };
    }
    const argv = ['FCALL_RO', design.functions.queryKeys, '1', collection.recordKey, query.name, ...values];
    const keys = ((await connection.call(collection.recordKey, argv, true)) as unknown[]).map(String);
    const stored = await Promise.all(
        keys.map((key) => connection.call(key, ['HMGET', key, ...query.plan.project], true) as Promise<unknown[]>),
    );
    return { rows: keys.map((key, i) => decode(key, stored[i])), keys, command: formatCliCommand(argv) };
}
