// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-core-client.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The run-time part of a generated TypeScript client of the redis-core design (`kvmod generate --target typescript
 * --design redis-core`): loading the design's function library and reading served queries page by page through its
 * read function (`FCALL_RO <database>_query`), on a single server or a Redis Cluster. Shipped verbatim inside such
 * a client (`kvmod/kvmod-core-client.ts`), next to the RediSearch client's runtime, whose connection, errors and pages
 * it shares, and the Redis design's own encoding module, so that parameters are encoded and replies decoded exactly
 * as `kvmod load` and `kvmod verify` do. It reads nothing but the design data the generated module hands it.
 *
 * One server or a cluster: the same functions take either connection (`connectClient`, or `connectCluster` here)
 * and tell them apart by its type (`isClusterClient`), as an application switches with one line, not with a second
 * API. On a cluster the library is loaded on every master, a query names its partition's record key (the slot its
 * index entries live in), and an entity operation runs as the cluster steps (kvmod-cluster-entities.ts).
 */
import { createCluster, ErrorReply } from 'redis';
import { partitionRecordKey } from './core-partition.js';
import type { EntityCall, EntityWrite } from './entity-store.js';
import { decodeRedisValue, encodeRedisValue, type RedisLogicalType } from './redis-encoding.js';
import {
    ConnectionRefusedError,
    KvmodClientError,
    MAX_REPLY_ROWS,
    OtherDesignError,
    type CommandClient,
    type Page,
    type PageOptions,
} from './kvmod-client.js';
import {
    ClusterEntitySteps,
    clusterCallOperation,
    type ClusterCollection,
    type ClusterFunctionNames,
} from './kvmod-cluster-entities.js';
import {
    EntityError,
    isClusterClient,
    sendKeyed,
    type ClientEntityStore,
    type ClusterCommandClient,
    type EntityClient,
} from './kvmod-entities.js';

/** A connection of the redis-core client: one server (`connectClient`) or a cluster (`connectCluster`). */
export type CoreClient = EntityClient;

/** The server has no Redis Functions (`FUNCTION`, Redis 7 and later). */
export class FunctionsMissingError extends KvmodClientError {
    constructor(message: string, options?: { cause?: unknown }) {
        super('no-functions', message, options);
        this.name = 'FunctionsMissingError';
    }
}

/** The design's function library is not loaded on the server (call `loadLibrary` first). */
export class MissingLibraryError extends KvmodClientError {
    /** The missing library. */
    readonly library: string;

    constructor(library: string, options?: { cause?: unknown }) {
        super(
            'missing-library',
            `the function library ${library} is not loaded on the server: call loadLibrary(client) first`,
            options,
        );
        this.name = 'MissingLibraryError';
        this.library = library;
    }
}

/** The design's function library, as the client loads it. */
export interface CoreClientLibrary {
    /** Its name (`#!lua name=…`). */
    name: string;
    /** Its Lua source, as `kvmod generate --target redis-core` writes `library.lua`. */
    source: string;
}

/** A served query of the redis-core design, as the client sees it. */
export interface CoreClientQuery {
    /** The KVLM query name (the read function's first argument). */
    name: string;
    /**
     * What the query reads in the design the client was generated for (plan and collection, hashed): sent with the
     * name, so that a library of another design refuses the call (`OtherDesignError`) instead of answering.
     */
    signature: string;
    /** The library's read function (`<database>_query`). */
    function: string;
    /** On a cluster: the library's function answering the row keys only (`<database>_query_keys`). */
    keysFunction: string;
    /** On a cluster: the row's hash fields the columns read, in column order. */
    fields: readonly string[];
    /** The key the read function names: its collection's record hash, in the slot of every index of the collection. */
    recordKey: string;
    /**
     * A partitioned collection: the partition the query reads is named by these parameters (1-based positions, in
     * the partition's field order; `text`: compared as text), so the call names that partition's record key.
     */
    partition?: { collection: string; params: readonly { position: number; text: boolean }[] };
    /** The default page size. */
    limit: number;
    /** The parameter properties, in the order the read function takes them, with their types. */
    params: readonly { prop: string; type: RedisLogicalType }[];
    /** The result columns, in reply order (after the row key): row property, type, and whether a value is always there. */
    columns: readonly { prop: string; type: RedisLogicalType; required: boolean }[];
}

/** True for an error reply (the server refused a command; the connection is fine). */
function isErrorReply(error: unknown): error is Error {
    return error instanceof ErrorReply;
}

/** An error reply saying the server has no FUNCTION / FCALL command. */
function isUnknownCommand(error: Error): boolean {
    return /unknown command/i.test(error.message);
}

/**
 * Loads the design's function library (`FUNCTION LOAD REPLACE`: loading the same library again changes nothing);
 * a server without Redis Functions is a `FunctionsMissingError`. Returns the library's name.
 */
export async function loadLibrary(client: CoreClient, library: CoreClientLibrary): Promise<string> {
    if (isClusterClient(client)) {
        let name = library.name;
        for (const node of await mastersOf(client)) name = await loadLibrary(node, library);
        return name;
    }
    try {
        return String(await client.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', library.source]));
    } catch (error) {
        if (isErrorReply(error) && isUnknownCommand(error))
            throw new FunctionsMissingError(
                `the server has no FUNCTION command: the redis-core design needs Redis 7 or later (${error.message})`,
                { cause: error },
            );
        throw error;
    }
}

/** Checks that the server runs Redis Functions and holds the design's library (FunctionsMissingError, MissingLibraryError otherwise). */
export async function checkCoreServer(client: CoreClient, library: CoreClientLibrary): Promise<void> {
    if (isClusterClient(client)) {
        for (const node of await mastersOf(client)) await checkCoreServer(node, library);
        return;
    }
    let listed: unknown;
    try {
        listed = await client.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', library.name]);
    } catch (error) {
        if (isErrorReply(error) && isUnknownCommand(error))
            throw new FunctionsMissingError(
                `the server has no FUNCTION command: the redis-core design needs Redis 7 or later (${error.message})`,
                { cause: error },
            );
        throw error;
    }
    // LIBRARYNAME matches by pattern: the library is there when one entry has exactly its name.
    const names = (Array.isArray(listed) ? listed : []).map((entry) => {
        const fields = Array.isArray(entry) ? (entry as unknown[]) : [];
        const at = fields.findIndex((field) => String(field) === 'library_name');
        return at >= 0 ? String(fields[at + 1]) : undefined;
    });
    if (!names.includes(library.name)) throw new MissingLibraryError(library.name);
}

/** A connection to each master of a cluster (node-redis's own, opened with the cluster's options). */
async function mastersOf(client: ClusterCommandClient): Promise<CommandClient[]> {
    return Promise.all(client.masters.map((master) => client.nodeClient(master)));
}

/** The record key a query's call names: its partition's when the collection is partitioned. */
function queryRecordKey(query: CoreClientQuery, values: readonly string[]): string {
    const partition = query.partition;
    if (partition === undefined) return query.recordKey;
    return partitionRecordKey(
        partition.collection,
        partition.params.map((param) => param.text),
        partition.params.map((param) => values[param.position - 1] ?? ''),
    );
}

/** Runs the query's read function once: the whole answer, row keys and decoded rows, in answer order. */
async function readAnswer<Row>(
    client: CoreClient,
    library: CoreClientLibrary,
    query: CoreClientQuery,
    params: object,
): Promise<Row[]> {
    const source = params as Readonly<Record<string, unknown>>;
    const values = query.params.map((param) => encodeRedisValue(param.type, source[param.prop]));
    const key = queryRecordKey(query, values);
    let reply: unknown;
    try {
        reply = await sendKeyed(
            client,
            key,
            [
                'FCALL_RO',
                isClusterClient(client) ? query.keysFunction : query.function,
                '1',
                key,
                `${query.name}@${query.signature}`,
                ...values,
            ],
            true,
        );
    } catch (error) {
        if (isErrorReply(error) && /function not found/i.test(error.message))
            throw new MissingLibraryError(library.name, { cause: error });
        const other = isErrorReply(error)
            ? / other design: query \S+ (\S+) is (.+) in this library/.exec(error.message)
            : null;
        if (other !== null)
            throw new OtherDesignError(
                `the server's library ${library.name} serves another design, not the one this client was generated for: ` +
                    `${query.name} reads ${other[2] === 'not served' ? 'nothing there (the query is not served)' : `as ${other[2]}`} ` +
                    `(this client's design: ${other[1]}). Use the client generated from the design the server serves, or ` +
                    'load this design (loadLibrary) on a server of its own',
                [{ name: query.name, served: other[2] ?? '', expected: other[1] ?? '' }],
                { cause: error },
            );
        if (isErrorReply(error) && isUnknownCommand(error))
            throw new FunctionsMissingError(
                `the server has no FCALL_RO command: the redis-core design needs Redis 7 or later (${error.message})`,
                { cause: error },
            );
        throw error;
    }
    if (!Array.isArray(reply)) throw new KvmodClientError('bad-reply', `${query.name}: the reply is not a list`);
    if (isClusterClient(client)) reply = await readRows(client, query, (reply as unknown[]).map(String));
    if (!Array.isArray(reply)) throw new KvmodClientError('bad-reply', `${query.name}: the reply is not a list`);
    return (reply as unknown[]).map((item) => {
        const stored = Array.isArray(item) ? (item as unknown[]) : [];
        const key = String(stored[0]);
        const row: Record<string, unknown> = {};
        query.columns.forEach((column, position) => {
            const value = stored[position + 1];
            if (value !== null && value !== undefined) row[column.prop] = decodeRedisValue(column.type, String(value));
            else if (!column.required) row[column.prop] = null;
            else
                throw new KvmodClientError(
                    'bad-reply',
                    `${query.name}: row ${key}, which the index lists, has no value for ${column.prop}`,
                );
        });
        return row as Row;
    });
}

/**
 * On a cluster the rows live in their own slots, not in the partition's: the keys function answers the row keys in
 * answer order, then each row is read from its slot. A row being deleted (a tombstone whose index entries are not
 * removed yet) is left out.
 */
async function readRows(client: ClusterCommandClient, query: CoreClientQuery, keys: string[]): Promise<unknown[][]> {
    const rows = await Promise.all(
        keys.map(
            (key) =>
                client.sendCommand(key, true, ['HMGET', key, DELETED_FIELD, ...query.fields]) as Promise<unknown[]>,
        ),
    );
    return rows.flatMap((row, i) => (row[0] === null || row[0] === undefined ? [[keys[i], ...row.slice(1)]] : []));
}

/** The field of a row tombstone (cluster steps). */
const DELETED_FIELD = '@deleted';

/** A page served from an answer already read. */
function answerPage<Row>(all: readonly Row[], offset: number, pageSize: number): Page<Row> {
    const end = Math.min(all.length, offset + pageSize);
    return {
        rows: all.slice(Math.min(offset, all.length), end),
        total: all.length,
        offset,
        hasNext: end < all.length,
        next: async () => (end < all.length ? answerPage(all, end, pageSize) : undefined),
    };
}

/**
 * Reads the page of a served query that starts at `options.offset` (default 0). Nothing is cut: `total` says how
 * many rows match, `next()` gives the following page. The read function returns the whole answer in one atomic call,
 * so every page of one answer comes from that one reply: the pages never repeat or miss a row, whatever is written
 * meanwhile (a new call reads the server again). On a cluster the row keys come in one call and the rows from their
 * own slots, so a row may be newer than the index entry that found it.
 */
export async function readCorePage<Row>(
    client: CoreClient,
    library: CoreClientLibrary,
    query: CoreClientQuery,
    params: object,
    options: PageOptions = {},
): Promise<Page<Row>> {
    const pageSize = options.pageSize ?? query.limit;
    const offset = options.offset ?? 0;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_REPLY_ROWS)
        throw new RangeError(`pageSize must be an integer from 1 to ${MAX_REPLY_ROWS}, got ${pageSize}`);
    if (!Number.isSafeInteger(offset) || offset < 0)
        throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
    return answerPage(await readAnswer<Row>(client, library, query, params), offset, pageSize);
}

/**
 * Connects to a Redis Cluster through node-redis's cluster client (`createCluster`: the slot map, MOVED and ASK), with
 * the choices `connectClient` makes for one server, on every node: RESP2, no silent reconnects, no offline queue, no
 * per-command timer (a lost connection fails its pending calls; a write given up on by a timer could still happen).
 * `urls` are seed nodes (any masters of the cluster); credentials and TLS are taken from the first. A cluster that
 * cannot be reached is a `ConnectionRefusedError`.
 */
export async function connectCluster(urls: readonly string[], options: { timeoutMs?: number } = {}) {
    const shown = urls
        .map((url) => url.replace(/\/\/([^@/]*)@/, (_all, user: string) => `//${user.split(':')[0] ?? ''}:***@`))
        .join(', ');
    const first = new URL(urls[0] ?? 'redis://localhost:6379');
    const cluster = createCluster({
        rootNodes: urls.map((url) => ({ url })),
        // RESP2 for every node's client (a cluster-level option: `defaults` does not carry it).
        RESP: 2,
        commandOptions: { timeout: 0 },
        defaults: {
            disableOfflineQueue: true,
            ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
            ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
            socket: {
                reconnectStrategy: false,
                connectTimeout: options.timeoutMs ?? 10_000,
                ...(first.protocol === 'rediss:' ? { tls: true as const } : {}),
            },
        },
    });
    cluster.on('error', () => undefined); // reported by the failing command instead
    try {
        await cluster.connect();
    } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConnectionRefusedError(`cannot connect to the Redis Cluster at ${shown}: ${reason}`, {
            cause: error,
        });
    }
    return cluster;
}

/** What the cluster steps need of the design besides its entity layout: each collection's rows, the functions. */
export interface CoreClusterSteps {
    collections: readonly ClusterCollection[];
    functions: ClusterFunctionNames;
}

/**
 * The entity operations of a redis-core design on a cluster (`ClientEntityStore.cluster`): each checked over the
 * entities it names as the entity Function checks it on one server (same codes), then the outbox call in the
 * entity's slot and the versioned one-slot steps, pending records of an earlier writer first.
 */
export function clusterEntityCalls(
    steps: CoreClusterSteps,
): (client: ClusterCommandClient, store: ClientEntityStore, call: EntityCall) => Promise<EntityWrite> {
    return async (client, store, call) => {
        const design = { schema: store.schema, ...steps };
        const runner = new ClusterEntitySteps(
            { call: (key, argv) => client.sendCommand(key, false, [...argv]) },
            design,
        );
        const outcome = await runner.run(clusterCallOperation(store.schema, call));
        if ('refused' in outcome)
            throw new EntityError(
                outcome.refused.code,
                outcome.refused.message,
                outcome.refused.referrers === undefined ? undefined : { referrers: outcome.refused.referrers },
            );
        if ('gaveUp' in outcome) throw new EntityError('entity.conflict', outcome.gaveUp);
        return outcome.write;
    };
}
