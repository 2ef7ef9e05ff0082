// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-core-client.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The run-time part of a generated TypeScript client of the redis-core design (`kvmod generate --target typescript
 * --design redis-core`): loading the design's function library and reading served queries page by page through its
 * read function (`FCALL_RO <database>_query`), on a single server. Shipped verbatim inside such a client
 * (`kvmod/kvmod-core-client.ts`), next to the RediSearch client's runtime, whose connection, errors and pages it
 * shares, and the Redis design's own encoding module, so that parameters are encoded and replies decoded exactly as
 * `kvmod load` and `kvmod verify` do. It reads nothing but the design data the generated module hands it.
 */
import { ErrorReply } from 'redis';
import { decodeRedisValue, encodeRedisValue, type RedisLogicalType } from './redis-encoding.js';
import { KvmodClientError, MAX_REPLY_ROWS, type CommandClient, type Page, type PageOptions } from './kvmod-client.js';

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
    /** The library's read function (`<database>_query`). */
    function: string;
    /** The key the read function names: its collection's record hash, in the slot of every index of the collection. */
    recordKey: string;
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
export async function loadLibrary(client: CommandClient, library: CoreClientLibrary): Promise<string> {
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
export async function checkCoreServer(client: CommandClient, library: CoreClientLibrary): Promise<void> {
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

/** Runs the query's read function once: the whole answer, row keys and decoded rows, in answer order. */
async function readAnswer<Row>(
    client: CommandClient,
    library: CoreClientLibrary,
    query: CoreClientQuery,
    params: object,
): Promise<Row[]> {
    const source = params as Readonly<Record<string, unknown>>;
    const values = query.params.map((param) => encodeRedisValue(param.type, source[param.prop]));
    let reply: unknown;
    try {
        reply = await client.sendCommand(['FCALL_RO', query.function, '1', query.recordKey, query.name, ...values]);
    } catch (error) {
        if (isErrorReply(error) && /function not found/i.test(error.message))
            throw new MissingLibraryError(library.name, { cause: error });
        if (isErrorReply(error) && isUnknownCommand(error))
            throw new FunctionsMissingError(
                `the server has no FCALL_RO command: the redis-core design needs Redis 7 or later (${error.message})`,
                { cause: error },
            );
        throw error;
    }
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
 * meanwhile (a new call reads the server again).
 */
export async function readCorePage<Row>(
    client: CommandClient,
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
