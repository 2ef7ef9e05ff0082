/**
 * The core-Redis engine: prepares a server or a cluster for a redis-core design (loads the function library on every
 * master; with `fresh`, deletes every key of the design first), writes materialized rows through the library's write
 * functions (one atomic call per row on a server; the row's slot, then the index slot, on a cluster), and runs a
 * served query through its read function (on a cluster: the row keys from the index slot, then each row from its
 * own slot). Every command is the one `calls.redis` documents.
 */
import { formatCliCommand } from '../../generation/shared/redis-escaping.js';
import {
    decodeRedisValue,
    encodeRedisValue,
    RedisEncodingError,
    type RedisLogicalType,
} from '../../generation/shared/redis-encoding.js';
import {
    CORE_PARTITION_FIELD,
    coreQueryRecordKey,
    coreRowRecordKey,
    escapeCoreKeyPart,
    type CoreCollection,
    type CoreQuery,
    type CoreViewModel,
} from '../../generation/redis-core/redis-core-design.js';
import { generateTarget, type DesignSource } from '../../generation/generation-engine.js';
import { coreClusterFunctions } from '../../generation/redis-core/redis-core-cluster-lua.js';
import { redisCoreTarget } from '../../generation/redis-core/redis-core-target.js';
import { KvmodError } from '../../pipeline/errors.js';
import type { TypedValue } from '../collation.js';
import type { CollectionRows, MaterializedRow } from '../materialize.js';
import type { ParameterValues } from '../oracle.js';
import { formatCount } from '../format-count.js';
import { BATCHES_IN_FLIGHT, FIRST_BATCH_ROWS } from '../redis-connection/write-batches.js';
import { isErrorReply, RedisConnectionLost } from '../redis-connection/redis-link.js';
import { ISO_FORMS, RespWriter } from '../redis-connection/redis-resp.js';
import type { CoreConnection } from './core-connection.js';

/**
 * The design of a KVLM model for this engine (with its entity store when the source PIDM is given), and its function
 * library's source (as `generate` writes it).
 */
export async function buildCoreDesign(source: DesignSource): Promise<{ design: CoreViewModel; library: string }> {
    const { viewModel, files } = await generateTarget(redisCoreTarget, source);
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
            // Row keys and index keys (the global tag's and the partitions'); glob-escaped (the tag's braces are
            // literal, names are identifiers).
            for (const pattern of [`${collection.rowPrefix}*`, ...coreIndexPatterns(collection)]) {
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

/** SCAN patterns matching every index key of a collection: the global tag's, and each partition's. */
export function coreIndexPatterns(collection: CoreCollection): string[] {
    return [`\\{${collection.name}\\}:*`, `\\{${collection.name}:*`];
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

/** The call that removes a row's index entries from a partition (a cluster step), by the partition's tag. */
function indexDelCommand(design: CoreViewModel, collection: CoreCollection, row: string, tag: string) {
    const records = `${tag}:rec`;
    return { key: records, argv: ['FCALL', design.functions.indexDel, '1', records, collection.name, row] };
}

/** The RESP text of one argument. */
function bulk(text: string): string {
    return `$${Buffer.byteLength(text)}\r\n${text}\r\n`;
}

/**
 * A row write compiled once per collection into RESP text (redis-resp.ts): constant arguments encoded once, per row
 * only the row key and the values. `argc` counts the arguments before the values.
 */
function respCommand(
    constantHead: readonly string[],
    rowKey: boolean,
    constantTail: readonly string[],
    values: number,
) {
    const argc = constantHead.length + (rowKey ? 1 : 0) + constantTail.length + values;
    const head = `*${argc}\r\n${constantHead.map(bulk).join('')}`;
    const tail = constantTail.map(bulk).join('');
    return (row: string, encoded: string): string =>
        rowKey ? `${head}${bulk(row)}${tail}${encoded}` : `${head}${tail}${encoded}`;
}

/** A value or key part that cannot be encoded, as the error naming the collection (other errors as they are). */
function unencodable(error: unknown, collection: CoreCollection): unknown {
    if (error instanceof RedisEncodingError)
        return new KvmodError(`collection ${collection.name}: ${error.message}`, {
            code: 'data.unencodable',
            cause: error,
        });
    return error;
}

/**
 * A row write compiled once per collection straight into a batch's RESP bytes (redis-resp.ts `RespWriter`): the bytes
 * `respCommand` makes of `constantHead`, the row key (`rowKey`, when given), `constantTail` and the row's values,
 * each value encoded as `encodeRedisValue` encodes it. The common cases skip it, as the RediSearch row writer does: a
 * text that is a string is itself, an int or a float without an exponent its `String`, a plain ISO date, time or
 * datetime its digits. A value or key part that cannot be encoded throws the encoding's error (a value's first, as
 * the string path checks them).
 */
function respRowWriter(
    constantHead: readonly string[],
    rowKey: ((row: MaterializedRow) => string) | undefined,
    types: readonly RedisLogicalType[],
    names: readonly string[],
    constantTail: readonly string[] = [],
): (writer: RespWriter, row: MaterializedRow) => void {
    const argc = constantHead.length + (rowKey ? 1 : 0) + constantTail.length + types.length;
    const head = Buffer.from(constantHead.map(bulk).join(''), 'utf8');
    const tail = Buffer.from(constantTail.map(bulk).join(''), 'utf8');
    const forms = types.map((type) =>
        Object.hasOwn(ISO_FORMS, type) ? ISO_FORMS[type as keyof typeof ISO_FORMS] : undefined,
    );
    return (writer, row) => {
        let key: string | undefined;
        let keyError: unknown;
        if (rowKey) {
            try {
                key = rowKey(row);
            } catch (error) {
                keyError = error;
            }
        }
        writer.begin(argc);
        writer.raw(head);
        if (key !== undefined) writer.argument(key);
        if (tail.length > 0) writer.raw(tail);
        const values = row.values;
        for (let v = 0; v < types.length; v++) {
            const type = types[v];
            const value = values[names[v]];
            if (typeof value === 'string') {
                if (type === 'text') {
                    writer.argument(value);
                    continue;
                }
                const form = forms[v];
                if (form !== undefined && writer.isoDigits(value, form)) continue;
            } else if (typeof value === 'number') {
                if (type === 'int' ? Number.isSafeInteger(value) : type === 'float' && Number.isFinite(value)) {
                    const text = String(value);
                    if (!text.includes('e')) {
                        writer.argument(text);
                        continue;
                    }
                }
            }
            writer.argument(encodeRedisValue(type, value));
        }
        if (keyError !== undefined) throw keyError;
        writer.end();
    };
}

/**
 * Writes every row of every collection through the library, pipelined: each batch is one RESP buffer per node
 * (`CoreConnection.callMany`), and the next batches are encoded and sent while the server works through those
 * before (up to `BATCHES_IN_FLIGHT`; the first batch small, so the server starts at once). Every reply is checked, batch by batch in order. Throws a KvmodError on a refused row (naming it) or a lost
 * server (saying how far it got: re-running the load repairs and completes it).
 */
export async function writeCoreRows(
    connection: CoreConnection,
    design: CoreViewModel,
    collections: readonly CollectionRows[],
    options: CoreWriteOptions = {},
): Promise<CoreWriteResult> {
    const batchSize = Math.max(1, options.batchSize ?? 1000);
    const byName = new Map(collections.map((c) => [c.name, c]));
    const work = design.collections.map((collection) => {
        const rows = byName.get(collection.name)?.rows;
        if (!rows) throw new Error(`no materialized rows for collection ${collection.name}`);
        return { collection, rows };
    });
    // Counted only when asked for (progress, or a message): counting binds every collection (see streamModel).
    const total = (): number => work.reduce((sum, w) => sum + w.rows.length, 0);
    let done = 0;
    const lost = (error: RedisConnectionLost): never => {
        throw new KvmodError(
            `${error.message}; ${formatCount(done)} of ${formatCount(total())} rows were written; run the same command again to finish (re-writing a row repairs it)`,
            { code: error.code, cause: error },
        );
    };
    /** A batch sent: its replies, and for each command the row (offset in the batch) it writes. */
    type Sent = {
        collection: CoreCollection;
        start: number;
        rows: number;
        perRow: number;
        replies: Promise<PromiseSettledResult<unknown>[]>;
        moved?: (replies: PromiseSettledResult<unknown>[]) => Promise<void>;
    };
    const acknowledge = async ({ collection, start, rows, perRow, replies, moved }: Sent): Promise<void> => {
        const settled = await replies;
        settle(settled, collection, start, perRow);
        if (moved) await moved(settled);
        done += rows;
        if (options.onProgress) await options.onProgress(done, total());
    };
    const f = design.functions;
    const steps = coreClusterFunctions(design.database);
    // Batches sent and not yet acknowledged, oldest first (as the RediSearch loader keeps them: write-batches.ts).
    const inFlight: Sent[] = [];
    let sent = 0;
    const writer = new RespWriter();
    try {
        // Open before the first batch, so that each batch is written as soon as it is made.
        await connection.openBulk?.();
    } catch (error) {
        if (error instanceof RedisConnectionLost) lost(error);
        throw error;
    }
    try {
        for (const { collection, rows } of work) {
            const cluster = connection.cluster;
            const counter = collection.key.kind === 'counter' ? collection.key.counterKey! : undefined;
            // The commands `writeCommands` gives, compiled: on a server one FCALL per row (`add` with a counter: the
            // library INCRs it); on a cluster the row's FCALL, then the index's.
            const rowCall = !cluster
                ? counter !== undefined
                    ? {
                          head: ['FCALL', f.add, '2', counter, collection.recordKey, collection.name],
                          keyed: false,
                          tail: [],
                      }
                    : { head: ['FCALL', f.put, '2'], keyed: true, tail: [collection.recordKey, collection.name] }
                : // The cluster's row step (redis-core-cluster-lua.ts): a row that leaves a partition keeps naming
                  // it (`@stale`) until its old entries are gone there, so a load run again after a crash removes them.
                  { head: ['FCALL', steps.row, '1'], keyed: true, tail: [collection.name, '{}', 'put'] };
            const put = respCommand(rowCall.head, rowCall.keyed, rowCall.tail, collection.fields.length);
            // On a cluster the index call names the record hash of the row's partition (its slot).
            const indexHead = `*${6 + collection.fields.length}\r\n${['FCALL', f.indexPut, '1'].map(bulk).join('')}`;
            const index = cluster
                ? (records: string, row: string, encoded: string) =>
                      `${indexHead}${bulk(records)}${bulk(collection.name)}${bulk(row)}${encoded}`
                : undefined;
            const perRow = index ? 2 : 1;
            const partitionFields = collection.partition?.fields.map((field) => field.position - 1) ?? [];
            const keyParts = collection.key.kind === 'natural' ? collection.key.parts : [];
            const types = collection.fields.map((field) => field.type);
            const names = collection.fields.map((field) => field.name);
            const rowKeyOf = (row: MaterializedRow): string => {
                let key = collection.rowPrefix;
                for (let p = 0; p < keyParts.length; p++) {
                    if (p > 0) key += ':';
                    key += escapeCoreKeyPart(encodeRedisValue(keyParts[p].type, row.keyParts[p]));
                }
                return key;
            };
            // On a single server the rows go straight into RESP bytes (`put`'s command, without a string per row).
            const direct =
                !cluster && connection.sendBatch
                    ? respRowWriter(rowCall.head, rowCall.keyed ? rowKeyOf : undefined, types, names, rowCall.tail)
                    : undefined;
            // Until a slice is empty (rows made on demand find their bindings batch by batch), a small first batch.
            for (let start = 0, count = 0; ; start += count) {
                const batch = rows.slice(
                    start,
                    start + (sent === 0 ? Math.min(batchSize, FIRST_BATCH_ROWS) : batchSize),
                );
                count = batch.length;
                if (count === 0) break;
                sent++;
                if (direct) {
                    try {
                        for (let i = 0; i < count; i++) direct(writer, batch[i]);
                    } catch (error) {
                        throw unencodable(error, collection);
                    }
                    inFlight.push({
                        collection,
                        start,
                        rows: count,
                        perRow,
                        replies: connection.sendBatch!(writer.take('FCALL')),
                    });
                    if (inFlight.length >= BATCHES_IN_FLIGHT) await acknowledge(inFlight.shift()!);
                    continue;
                }
                let rowKeys: string[];
                const encoded: string[] = new Array(count);
                const records: string[] = new Array(count);
                try {
                    rowKeys = new Array(count);
                    const fieldValues: string[] = new Array(types.length);
                    for (let i = 0; i < count; i++) {
                        const row = batch[i];
                        let values = '';
                        for (let v = 0; v < types.length; v++) {
                            fieldValues[v] = encodeRedisValue(types[v], row.values[names[v]]);
                            values += bulk(fieldValues[v]);
                        }
                        encoded[i] = values;
                        records[i] =
                            partitionFields.length === 0
                                ? collection.recordKey
                                : coreRowRecordKey(collection, fieldValues);
                        if (counter === undefined) rowKeys[i] = rowKeyOf(row);
                    }
                } catch (error) {
                    throw unencodable(error, collection);
                }
                if (counter !== undefined && cluster) {
                    // The ids first (the counter's slot), then the writes: the row key holds the id.
                    const incr = `*2\r\n$4\r\nINCR\r\n${bulk(counter)}`;
                    const ids = await connection.callMany({
                        keys: new Array<string>(count).fill(counter),
                        commands: new Array<string>(count).fill(incr),
                        first: 'INCR',
                    });
                    settle(ids, collection, start, 1);
                    rowKeys = ids.map(
                        (id) => `${collection.rowPrefix}${String((id as PromiseFulfilledResult<unknown>).value)}`,
                    );
                }
                const keys: string[] = new Array(count * perRow);
                const commands: string[] = new Array(count * perRow);
                for (let i = 0; i < count; i++) {
                    const row = counter !== undefined && !cluster ? counter : rowKeys![i];
                    keys[i * perRow] = row;
                    commands[i * perRow] = put(row, encoded[i]);
                    if (index) {
                        keys[i * perRow + 1] = records[i];
                        commands[i * perRow + 1] = index(records[i], row, encoded[i]);
                    }
                }
                const batchKeys = rowKeys!;
                inFlight.push({
                    collection,
                    start,
                    rows: count,
                    perRow,
                    replies: connection.callMany({ keys, commands, first: 'FCALL' }),
                    // A row whose partition changed: its row call named the partition that still holds its entries.
                    moved:
                        cluster && partitionFields.length > 0
                            ? async (replies) => {
                                  for (const [i, reply] of replies.entries()) {
                                      if (i % perRow !== 0 || reply.status !== 'fulfilled') continue;
                                      const stale = (reply.value as unknown[]).slice(2).map(String);
                                      if (stale.length === 0) continue;
                                      const row = batchKeys[i / perRow];
                                      for (const tag of stale) {
                                          const { key, argv } = indexDelCommand(design, collection, row, tag);
                                          await connection.call(key, argv);
                                      }
                                      await connection.call(row, ['FCALL', steps.rowAck, '1', row, ...stale]);
                                  }
                              }
                            : undefined,
                });
                if (inFlight.length >= BATCHES_IN_FLIGHT) await acknowledge(inFlight.shift()!);
            }
        }
        while (inFlight.length > 0) await acknowledge(inFlight.shift()!);
    } catch (error) {
        if (error instanceof RedisConnectionLost) lost(error);
        throw error;
    } finally {
        // A failure leaves the last batches' replies unread: wait for them, so nothing is still being written.
        await Promise.all(inFlight.map((sent) => sent.replies));
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
    const f = design.functions;
    const records = coreRowRecordKey(collection, values);
    if (!connection.cluster) {
        await connection.call(row, ['FCALL', f.put, '2', row, records, collection.name, ...values]);
        return;
    }
    const steps = coreClusterFunctions(design.database);
    const reply = (await connection.call(row, [
        'FCALL',
        steps.row,
        '1',
        row,
        collection.name,
        '{}',
        'put',
        ...values,
    ])) as unknown[];
    await connection.call(records, ['FCALL', f.indexPut, '1', records, collection.name, row, ...values]);
    const stale = reply.slice(2).map(String);
    for (const tag of stale) {
        const { key, argv } = indexDelCommand(design, collection, row, tag);
        await connection.call(key, argv);
    }
    if (stale.length > 0) await connection.call(row, ['FCALL', steps.rowAck, '1', row, ...stale]);
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
    // A partitioned collection's row names the partition holding its entries.
    const tag = collection.partition
        ? ((await connection.call(row, ['HGET', row, CORE_PARTITION_FIELD], true)) as string | null)
        : collection.tag;
    if (tag !== null) {
        const { key, argv } = indexDelCommand(design, collection, row, String(tag));
        await connection.call(key, argv);
    }
    await connection.call(row, ['FCALL', f.rowDel, '1', row, collection.name]);
}

/**
 * Checks a batch's replies (`perRow` commands per row, in row order): the first lost connection is thrown, and the
 * first refused row as a KvmodError naming it.
 */
function settle(
    replies: PromiseSettledResult<unknown>[],
    collection: CoreCollection,
    start: number,
    perRow: number,
): void {
    for (const [i, reply] of replies.entries()) {
        if (reply.status === 'fulfilled') continue;
        if (reply.reason instanceof RedisConnectionLost || reply.reason instanceof KvmodError) throw reply.reason;
        const row = start + Math.floor(i / perRow) + 1;
        throw new KvmodError(
            `the server refused row ${formatCount(row)} of collection ${collection.name}: ${(reply.reason as Error).message}`,
            { code: 'redis.refused', cause: reply.reason },
        );
    }
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
    const records = coreQueryRecordKey(collection, query, values);
    if (!connection.cluster) {
        const argv = ['FCALL_RO', design.functions.query, '1', records, query.name, ...values];
        const reply = (await connection.call(records, argv, true)) as unknown[][];
        return {
            rows: reply.map((row) => decode(String(row[0]), row.slice(1))),
            keys: reply.map((row) => String(row[0])),
            command: formatCliCommand(argv),
        };
    }
    const argv = ['FCALL_RO', design.functions.queryKeys, '1', records, query.name, ...values];
    const keys = ((await connection.call(records, argv, true)) as unknown[]).map(String);
    const stored = await Promise.all(
        keys.map((key) => connection.call(key, ['HMGET', key, ...query.plan.project], true) as Promise<unknown[]>),
    );
    return { rows: keys.map((key, i) => decode(key, stored[i])), keys, command: formatCliCommand(argv) };
}
