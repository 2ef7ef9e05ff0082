// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-client.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The run-time part of a generated TypeScript client (`kvmod generate --target typescript`): connecting, probing
 * the server, creating and dropping indexes, and reading served queries page by page (rows are written by the
 * entity operations of `kvmod-entities.ts`, which keep every row an entity contributes to true).
 * It is shipped verbatim inside every generated client (`kvmod/kvmod-client.ts`), next to verbatim copies of the
 * Redis target's own encoding, escaping and command-binding modules, so that the client encodes, escapes and binds
 * exactly as `kvmod load` and the generated scripts do: the Redis design's rules have one source. It reads
 * nothing but the design data the generated module hands it.
 */
import { createClient, ErrorReply } from 'redis';
import { bindRedisCommand, isEmptyAggregateError } from './redis-commands.js';
import type { RedisDialect } from './redis-dialects.js';
import type { EntityStoreSchema } from './entity-store.js';
import { schemaOfCreate, schemaOfInfo } from './redis-index-schema.js';
import { decodeRedisValue, naturalKeySuffix, type RedisLogicalType } from './redis-encoding.js';
import type { RedisCommand } from './redis-view-model-types.js';

/** What the client needs of a node-redis client: send one command (RESP2 replies, node-redis's default). */
export interface CommandClient {
    sendCommand(args: ReadonlyArray<string>): Promise<unknown>;
}

/** The base of every error the client throws on purpose; `code` is stable. */
export class KvmodClientError extends Error {
    /** Stable code: `connection-refused`, `no-search-module`, `wrong-dialect`, `missing-index`, `index-differs`, `other-design`, `answer-too-large`, `answer-changed`, `bad-reply`. */
    readonly code: string;

    constructor(code: string, message: string, options?: { cause?: unknown }) {
        super(message, options);
        this.name = 'KvmodClientError';
        this.code = code;
    }
}

/** The server could not be reached (refused, unknown host, timeout). */
export class ConnectionRefusedError extends KvmodClientError {
    constructor(message: string, options?: { cause?: unknown }) {
        super('connection-refused', message, options);
        this.name = 'ConnectionRefusedError';
    }
}

/** The server has no RediSearch module. */
export class SearchModuleMissingError extends KvmodClientError {
    constructor(message: string) {
        super('no-search-module', message);
        this.name = 'SearchModuleMissingError';
    }
}

/** The server's RediSearch speaks another dialect than the one the client was generated for. */
export class WrongDialectError extends KvmodClientError {
    constructor(message: string) {
        super('wrong-dialect', message);
        this.name = 'WrongDialectError';
    }
}

/** A collection's index does not exist on the server (call `createIndexes` first). */
export class MissingIndexError extends KvmodClientError {
    /** The missing index. */
    readonly index: string;

    constructor(index: string, options?: { cause?: unknown }) {
        super(
            'missing-index',
            `the index ${index} does not exist on the server: call createIndexes(client) first`,
            options,
        );
        this.name = 'MissingIndexError';
        this.index = index;
    }
}

/**
 * The server serves another design than the one the client was generated for: a stable name points at an index
 * this design does not have (`kvmod migrate` moved the server on, or it was never moved to this design).
 */
export class OtherDesignError extends KvmodClientError {
    /**
     * Per collection: the index the server serves and the one this design has (redis-core: per query, the signature
     * of what the server's library reads and of what this design reads).
     */
    readonly collections: readonly { name: string; served: string; expected: string }[];

    constructor(
        message: string,
        collections: readonly { name: string; served: string; expected: string }[],
        options?: { cause?: unknown },
    ) {
        super('other-design', message, options);
        this.name = 'OtherDesignError';
        this.collections = collections;
    }
}

/** An index of the same name exists with another schema. */
export class IndexSchemaError extends KvmodClientError {
    /** The index. */
    readonly index: string;

    constructor(index: string, message: string) {
        super('index-differs', message);
        this.name = 'IndexSchemaError';
        this.index = index;
    }
}

/** A collection of the design, as the client sees it. */
export interface ClientCollection {
    /** The KVLM collection name. */
    name: string;
    /** Its stable name, which its queries use (an alias on RediSearch 2.x, a pointer key on 1.2). */
    index: string;
    /** Its RediSearch index: the stable name with the storage signature, changed when the rows must be rewritten. */
    physicalIndex: string;
    /** The prefix of its keys. */
    keyPrefix: string;
    /** The natural key parts (row property, design parameter, type); empty for counter keys. */
    keyParts: readonly { prop: string; param: string; type: RedisLogicalType }[];
    /** The counter key (counter-key collections), null otherwise. */
    counterKey: string | null;
    /** FT.CREATE. */
    create: RedisCommand;
    /** Points the stable name at the index (FT.ALIASUPDATE on 2.x, SET of the pointer key on 1.2). */
    point: RedisCommand;
    /** Drops the index with its rows. */
    drop: RedisCommand;
}

/** A served query of the design, as the client sees it. */
export interface ClientQuery {
    /** The KVLM query name. */
    name: string;
    /** The index it reads: its collection's stable name. */
    index: string;
    /** Its collection (the KVLM name). */
    collection: string;
    /** The physical index of its collection in this design: the command runs only while the stable name serves it. */
    physicalIndex: string;
    /** The database, whose design record names the design a server serves (see `checkDesign`). */
    database: string;
    /** `search` (FT.SEARCH) or `aggregate` (FT.AGGREGATE). */
    kind: 'search' | 'aggregate';
    /**
     * The command, with the paging slots `page.offset` and `page.count`: a script that runs it on `physicalIndex` only
     * while the stable name serves that index, and otherwise answers `ERR other design: <stable> serves <served>, not
     * <physicalIndex>` (an `OtherDesignError`), in the same call.
     */
    command: RedisCommand;
    /** The names of the paging slots. */
    page: { offset: string; count: string };
    /** The default page size. */
    limit: number;
    /**
     * `offset`: every page is one `LIMIT offset count` request (the engine keeps one order from request to request);
     * `whole`: an answer larger than one page is read in one request sized from its total, then paged in memory
     * (RediSearch 1.2 orders rows with equal FT.SEARCH sort keys differently from one request to the next).
     */
    paging: 'offset' | 'whole';
    /** The parameter properties and the design parameters they feed. */
    params: readonly { prop: string; param: string }[];
    /** The result columns: row property, hash field, type. */
    columns: readonly { prop: string; field: string; type: RedisLogicalType }[];
    /** For an aggregate: the position of the arguments (PARAMS, DIALECT) that a count by FT.SEARCH repeats. */
    countTail: number;
}

/** The design the generated module hands the client. */
export interface ClientDesign {
    /** The dialect the commands are written for. */
    dialect: RedisDialect;
    /** The collections. */
    collections: readonly ClientCollection[];
    /** The entity store (its layout and the Functions library of the entity operations); null when the design keeps no entities. */
    entityStore: { schema: EntityStoreSchema; library: string } | null;
}

/** One page of an answer. */
export interface Page<Row> {
    /** The rows of this page, in the query's order. */
    readonly rows: readonly Row[];
    /** How many rows the query matches in all. */
    readonly total: number;
    /** The position of this page's first row in the whole answer. */
    readonly offset: number;
    /** True when rows follow this page. */
    readonly hasNext: boolean;
    /** The next page, or undefined after the last one. */
    next(): Promise<Page<Row> | undefined>;
}

/** How to read a query's answer. */
export interface PageOptions {
    /** Rows per page (default: the design's page size). */
    pageSize?: number;
    /** The position of the first row to read (default 0). */
    offset?: number;
}

/** The most rows RediSearch returns in one reply (the largest LIMIT count it accepts). */
export const MAX_REPLY_ROWS = 1_000_000;

/** True for an error reply (the server refused a command; the connection is fine). */
function isErrorReply(error: unknown): error is Error {
    return error instanceof ErrorReply;
}

/** The error reply of a query whose stable name serves another design's index (see `ClientQuery.command`). */
const OTHER_DESIGN_REPLY = /other design: (\S+) serves (\S+), not (\S+)/;

/** Sends a command, turning a missing index into a `MissingIndexError`. */
async function send(client: CommandClient, argv: readonly string[], index?: string): Promise<unknown> {
    try {
        return await client.sendCommand(argv);
    } catch (error) {
        if (
            index !== undefined &&
            isErrorReply(error) &&
            /unknown index name|no such index|no index behind/i.test(error.message)
        )
            throw new MissingIndexError(index, { cause: error });
        throw error;
    }
}

/**
 * Opens a node-redis connection with what the client expects (RESP2, no silent reconnects, no offline queue):
 * a server that cannot be reached is a `ConnectionRefusedError` naming the URL (its password hidden).
 */
export async function connectClient(url: string, options: { timeoutMs?: number } = {}) {
    const shown = url.replace(/\/\/([^@/]*)@/, (_all, user: string) => `//${user.split(':')[0] ?? ''}:***@`);
    const client = createClient({
        url,
        RESP: 2,
        disableOfflineQueue: true,
        // No per-command timer: node-redis's default (5 s) arms an AbortSignal timeout for every command, which costs
        // more client time than the rest of an entity call; a lost connection fails every pending call at once here
        // (no reconnects, no offline queue), and a write given up on by a timer could still happen on the server.
        commandOptions: { timeout: 0 },
        socket: { reconnectStrategy: false, connectTimeout: options.timeoutMs ?? 10_000 },
    });
    client.on('error', () => undefined); // reported by the failing command instead
    try {
        await client.connect();
    } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new ConnectionRefusedError(`cannot connect to ${shown}: ${reason}`, { cause: error });
    }
    return client;
}

/** Reads `MODULE LIST` (or probes FT._LIST / FT.INFO when it is denied) and checks the dialect. */
export async function checkServer(client: CommandClient, dialect: RedisDialect): Promise<{ version: number }> {
    let found: { dialect: RedisDialect; version: number } | undefined;
    try {
        const modules = (await client.sendCommand(['MODULE', 'LIST'])) as unknown[];
        for (const entry of modules ?? []) {
            const fields = entry as unknown[];
            const info = new Map<string, unknown>();
            for (let i = 0; i + 1 < fields.length; i += 2) info.set(String(fields[i]), fields[i + 1]);
            const name = String(info.get('name') ?? '').toLowerCase();
            if (name === 'ft' || name === 'search' || name === 'searchlight') {
                const version = Number(info.get('ver') ?? 0);
                found = { dialect: version > 0 && version < 20000 ? 'redisearch1' : 'redisearch2', version };
            }
        }
        if (!found)
            throw new SearchModuleMissingError(
                'the server has no RediSearch module (MODULE LIST shows none): load redisearch.so, or use Redis Stack or Redis 8',
            );
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        found = await probeDialect(client); // MODULE LIST may be denied (ACL, managed services)
    }
    if (found.dialect !== dialect) {
        const other = dialect === 'redisearch1' ? 'redisearch2' : 'redisearch1';
        throw new WrongDialectError(
            `this client was generated for ${dialect}, but the server runs RediSearch ${formatVersion(found.version)} (${found.dialect}): regenerate it with --dialect ${other}`,
        );
    }
    return { version: found.version };
}

/** Without MODULE LIST: FT._LIST exists from RediSearch 2.0 on; FT.INFO exists in every version. */
async function probeDialect(client: CommandClient): Promise<{ dialect: RedisDialect; version: number }> {
    try {
        await client.sendCommand(['FT._LIST']);
        return { dialect: 'redisearch2', version: 0 };
    } catch (error) {
        if (!isErrorReply(error)) throw error;
    }
    try {
        await client.sendCommand(['FT.INFO', '__kvmod_probe__']);
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        if (/unknown command/i.test(error.message))
            throw new SearchModuleMissingError('the server has no RediSearch module (FT.INFO is an unknown command)');
    }
    return { dialect: 'redisearch1', version: 0 };
}

function formatVersion(version: number): string {
    if (version <= 0) return '(version unknown)';
    return `${Math.floor(version / 10000)}.${Math.floor(version / 100) % 100}.${version % 100}`;
}

/** The physical index a collection's stable name serves now (pointer key on 1.2, alias on 2.x), or undefined. */
async function servedIndex(client: CommandClient, collection: ClientCollection): Promise<string | undefined> {
    const point = bindRedisCommand(collection.point, {});
    if (point[0] === 'SET') {
        const value = await client.sendCommand(['GET', point[1] ?? '']);
        return value === null || value === undefined ? undefined : String(value);
    }
    let info: unknown;
    try {
        info = await send(client, ['FT.INFO', collection.index], collection.index);
    } catch (error) {
        if (error instanceof MissingIndexError) return undefined;
        throw error;
    }
    const flat = Array.isArray(info) ? (info as unknown[]) : [];
    const at = flat.findIndex((item) => String(item) === 'index_name');
    return at >= 0 ? String(flat[at + 1]) : collection.index;
}

/**
 * Checks that the server serves this design: no stable name of it points at an index of another design. Throws an
 * `OtherDesignError` naming both (the server's design as `kvmod load` / `kvmod migrate` recorded it, and the indexes
 * on each side); a name that serves nothing yet is fine (a fresh server). Read-only.
 */
export async function checkDesign(client: CommandClient, design: ClientDesign): Promise<void> {
    const differing: { name: string; served: string; expected: string }[] = [];
    for (const collection of design.collections) {
        const served = await servedIndex(client, collection);
        if (served !== undefined && served !== collection.physicalIndex)
            differing.push({ name: collection.name, served, expected: collection.physicalIndex });
    }
    if (differing.length === 0) return;
    throw await otherDesignError(client, design.entityStore?.schema.database, differing);
}

/**
 * The `OtherDesignError` of collections whose stable names serve another design's indexes: it names the server's
 * design as `kvmod load` / `kvmod migrate` recorded it (one GET, on this failure only) and the indexes on each side.
 */
async function otherDesignError(
    client: CommandClient,
    database: string | undefined,
    differing: { name: string; served: string; expected: string }[],
): Promise<OtherDesignError> {
    // The record `kvmod load` and `kvmod migrate` leave (src/runtime/redisearch/redis-stable-names.ts, designRecordKey).
    let serverDesign = 'another design';
    if (database !== undefined) {
        const record = await client.sendCommand(['GET', `kvmod:design:${database}`]);
        try {
            const source = record === null || record === undefined ? null : JSON.parse(String(record)).source;
            if (typeof source === 'string') serverDesign = `another design (${source})`;
        } catch {
            // not a record kvmod wrote: the indexes below still name the design
        }
    }
    const list = differing.map((d) => `${d.name} -> ${d.served} (this client's design: ${d.expected})`).join(', ');
    return new OtherDesignError(
        `the server serves ${serverDesign}, not the design this client was generated for: ${list}. ` +
            'Use the client generated from the design the server serves, or move the server with `kvmod migrate`; ' +
            'createIndexes never points a stable name away from the index another design serves',
        differing,
    );
}

/** What `createIndexes` did with each index. */
export interface IndexOutcome {
    index: string;
    action: 'created' | 'kept';
}

/**
 * Creates every index of the design; keeps one that exists with the same schema; throws an `IndexSchemaError`
 * saying what differs when one exists with another schema. Checks the server's dialect first, and that no stable
 * name serves another design's index (`OtherDesignError`, before anything is created).
 */
export async function createIndexes(client: CommandClient, design: ClientDesign): Promise<IndexOutcome[]> {
    await checkServer(client, design.dialect);
    await checkDesign(client, design);
    const outcomes: IndexOutcome[] = [];
    for (const collection of design.collections) {
        const create = bindRedisCommand(collection.create, {});
        const index = collection.physicalIndex;
        let info: unknown;
        try {
            info = await send(client, ['FT.INFO', index], index);
        } catch (error) {
            if (!(error instanceof MissingIndexError)) throw error;
            await send(client, create);
            await send(client, bindRedisCommand(collection.point, {}));
            outcomes.push({ index, action: 'created' });
            continue;
        }
        const have = schemaOfInfo(info);
        const want = schemaOfCreate(create);
        const missing = want.filter((spec) => !have.includes(spec));
        const extra = have.filter((spec) => !want.includes(spec));
        if (missing.length > 0 || extra.length > 0) {
            const differences = [
                ...(missing.length > 0 ? [`the design needs ${missing.join(', ')}`] : []),
                ...(extra.length > 0 ? [`the server's index has ${extra.join(', ')}`] : []),
            ];
            throw new IndexSchemaError(
                index,
                `the index ${index} exists with another schema (${differences.join('; ')}): ` +
                    'recreate it with dropIndexes(client) then createIndexes(client) (dropping deletes its rows), ' +
                    'or run `kvmod load <model> --recreate`',
            );
        }
        await send(client, bindRedisCommand(collection.point, {}));
        outcomes.push({ index, action: 'kept' });
    }
    return outcomes;
}

/** Drops every index of the design with its rows (FT.DROP on 1.2, FT.DROPINDEX … DD on 2.x); a missing one is skipped. */
export async function dropIndexes(client: CommandClient, design: ClientDesign): Promise<string[]> {
    const dropped: string[] = [];
    for (const collection of design.collections) {
        try {
            await send(client, bindRedisCommand(collection.drop, {}), collection.physicalIndex);
            dropped.push(collection.physicalIndex);
        } catch (error) {
            if (!(error instanceof MissingIndexError)) throw error;
        }
        if (collection.counterKey !== null) await send(client, ['DEL', collection.counterKey]);
    }
    return dropped;
}

/** The design parameter values of an application object, by the property each parameter is read from. */
function valuesOf(object: object, props: readonly { prop: string; param: string }[]): Record<string, unknown> {
    const source = object as Readonly<Record<string, unknown>>;
    const values: Record<string, unknown> = {};
    for (const { prop, param } of props) values[param] = source[prop];
    return values;
}

/** The key of a row of a natural-key collection. */
export function rowKey(collection: ClientCollection, parts: object): string {
    const source = parts as Readonly<Record<string, unknown>>;
    return (
        collection.keyPrefix +
        naturalKeySuffix(collection.keyParts.map((p) => ({ type: p.type, value: source[p.prop] })))
    );
}

/** A reply's rows: the hash fields of each (FT.SEARCH: after each key; FT.AGGREGATE: one list per row). */
function replyRows(query: ClientQuery, reply: unknown): { total: number; rows: Map<string, string>[] } {
    if (!Array.isArray(reply)) throw new KvmodClientError('bad-reply', `${query.name}: the reply is not a list`);
    const items = reply as unknown[];
    const rows: Map<string, string>[] = [];
    const step = query.kind === 'search' ? 2 : 1;
    for (let i = query.kind === 'search' ? 2 : 1; i < items.length; i += step) {
        const list = Array.isArray(items[i]) ? (items[i] as unknown[]) : [];
        const fields = new Map<string, string>();
        // A field the row does not have comes back as nil from an FT.AGGREGATE LOAD: left out, it reads as null.
        for (let j = 0; j + 1 < list.length; j += 2)
            if (list[j + 1] !== null && list[j + 1] !== undefined) fields.set(String(list[j]), String(list[j + 1]));
        rows.push(fields);
    }
    return { total: Number(items[0]), rows };
}

/** One row of a reply as the application sees it: each column decoded, null when the row has no value. */
function decodeRow<Row>(query: ClientQuery, fields: Map<string, string>): Row {
    const row: Record<string, unknown> = {};
    for (const column of query.columns) {
        const stored = fields.get(column.field);
        row[column.prop] = stored === undefined ? null : decodeRedisValue(column.type, stored);
    }
    return row as Row;
}

/**
 * Sends a query's command: a server that serves another design for its collection is an `OtherDesignError` (the
 * command's own script refuses); so is a missing stable name on a server whose recorded design has no index of this
 * one's (a collection the new design dropped), which is otherwise a `MissingIndexError`.
 */
async function sendQuery(client: CommandClient, query: ClientQuery, argv: readonly string[]): Promise<unknown> {
    try {
        if (isAliasScript(argv) && unscripted.has(client)) return await send(client, aliasCommand(argv), query.index);
        return await send(client, argv, query.index);
    } catch (error) {
        // A deployment whose search commands cannot run inside a script (several shards behind a coordinator: "Cannot
        // block", or a server that forbids them in scripts): the query goes to the alias directly, as before the
        // check existed, and from then on for this connection; another design's index cannot be told apart there.
        if (isAliasScript(argv) && isErrorReply(error) && SEARCH_NOT_IN_SCRIPT.test(error.message)) {
            unscripted.add(client);
            return sendQuery(client, query, argv);
        }
        const other = isErrorReply(error) ? OTHER_DESIGN_REPLY.exec(error.message) : null;
        if (other !== null)
            throw await otherDesignError(client, query.database, [
                { name: query.collection, served: other[2] ?? '', expected: query.physicalIndex },
            ]);
        if (error instanceof MissingIndexError && (await recordLacks(client, query)))
            throw await otherDesignError(client, query.database, [
                { name: query.collection, served: '(no index)', expected: query.physicalIndex },
            ]);
        throw error;
    }
}

/** A search command refused inside a script. */
const SEARCH_NOT_IN_SCRIPT = /cannot block|not allowed from script/i;
/** Connections whose server refused the alias check's script: their queries go to the alias directly. */
const unscripted = new WeakSet<CommandClient>();

/** The RediSearch 2.x query checked by script: `EVAL <script> 0 <alias> <index> <command> <argument…>`. */
function isAliasScript(argv: readonly string[]): boolean {
    return argv[0] === 'EVAL' && argv[2] === '0' && argv.length >= 6;
}

/** The command the 2.x check's script runs, addressed to the alias itself. */
function aliasCommand(argv: readonly string[]): string[] {
    return [argv[5] ?? '', argv[3] ?? '', ...argv.slice(6)];
}

/** True when the server records a design for the query's database that has no index of the query's. */
async function recordLacks(client: CommandClient, query: ClientQuery): Promise<boolean> {
    const record = await client.sendCommand(['GET', `kvmod:design:${query.database}`]);
    if (record === null || record === undefined) return false;
    try {
        const collections = (JSON.parse(String(record)) as { collections?: { physicalIndex?: unknown }[] }).collections;
        return Array.isArray(collections) && !collections.some((c) => c.physicalIndex === query.physicalIndex);
    } catch {
        return false; // not a record kvmod wrote
    }
}

/** Reads `count` rows from `offset`; `total` is what the engine says matched (an aggregate is counted by FT.SEARCH). */
async function readRows<Row>(
    client: CommandClient,
    query: ClientQuery,
    values: Record<string, unknown>,
    offset: number,
    count: number,
): Promise<{ rows: Row[]; total: number }> {
    const argv = bindRedisCommand(query.command, { ...values, [query.page.offset]: offset, [query.page.count]: count });
    if (query.kind === 'search') {
        const { total, rows } = replyRows(query, await sendQuery(client, query, argv));
        return { total, rows: rows.map((fields) => decodeRow<Row>(query, fields)) };
    }
    // FT.AGGREGATE's first element is not documented as the number of matches: count them with FT.SEARCH on the
    // same query string and parameters (LIMIT 0 1: RediSearch 1.2 refuses LIMIT 0 0), through the same head:
    // `FT.AGGREGATE <alias> <query>`, or on 1.2 `EVAL <pointer script> 1 <pointer> FT.AGGREGATE <query>`.
    const at = argv.indexOf('FT.AGGREGATE');
    const head =
        at === 0
            ? ['FT.SEARCH', argv[1] ?? '', argv[2] ?? '*']
            : [...argv.slice(0, at), 'FT.SEARCH', argv[at + 1] ?? '*'];
    const countArgv = [...head, 'NOCONTENT', 'LIMIT', '0', '1'];
    const counted = (await sendQuery(client, query, [...countArgv, ...argv.slice(query.countTail)])) as unknown[];
    const total = Number(counted[0]);
    if (total === 0 || offset >= total) return { total, rows: [] };
    let reply: unknown;
    try {
        reply = await sendQuery(client, query, argv);
    } catch (error) {
        // RediSearch 1.2 answers an error instead of an empty list when a TAG value matches nothing.
        if (isErrorReply(error) && isEmptyAggregateError(error)) return { total: 0, rows: [] };
        throw error;
    }
    return { total, rows: replyRows(query, reply).rows.map((fields) => decodeRow<Row>(query, fields)) };
}

/** A page served from rows already read (a `whole` answer). */
function memoryPage<Row>(all: readonly Row[], offset: number, pageSize: number): Page<Row> {
    const end = Math.min(all.length, offset + pageSize);
    return {
        rows: all.slice(offset, end),
        total: all.length,
        offset,
        hasNext: end < all.length,
        next: async () => (end < all.length ? memoryPage(all, end, pageSize) : undefined),
    };
}

/** A page read with `LIMIT offset count`, whose `next` reads the following one. */
async function enginePage<Row>(
    client: CommandClient,
    query: ClientQuery,
    values: Record<string, unknown>,
    offset: number,
    pageSize: number,
): Promise<Page<Row>> {
    const { rows, total } = await readRows<Row>(client, query, values, offset, pageSize);
    const end = offset + rows.length;
    if (rows.length < pageSize && end < total) {
        throw new KvmodClientError(
            'answer-changed',
            `${query.name}: the engine matched ${total} rows but returned ${rows.length} from row ${offset}: the answer changed while it was read`,
        );
    }
    const hasNext = rows.length > 0 && end < total;
    return {
        rows,
        total,
        offset,
        hasNext,
        next: async () => (hasNext ? enginePage<Row>(client, query, values, end, pageSize) : undefined),
    };
}

/**
 * Reads the page of a served query that starts at `options.offset` (default 0). Nothing is ever cut: `total` says
 * how many rows match, `next()` reads the following page. See `ClientQuery.paging` for how pages stay consistent.
 */
export async function readPage<Row>(
    client: CommandClient,
    query: ClientQuery,
    params: object,
    options: PageOptions = {},
): Promise<Page<Row>> {
    const pageSize = options.pageSize ?? query.limit;
    const offset = options.offset ?? 0;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > MAX_REPLY_ROWS)
        throw new RangeError(`pageSize must be an integer from 1 to ${MAX_REPLY_ROWS}, got ${pageSize}`);
    if (!Number.isSafeInteger(offset) || offset < 0)
        throw new RangeError(`offset must be a non-negative integer, got ${offset}`);
    const values = valuesOf(params, query.params);
    if (query.paging === 'offset') return enginePage<Row>(client, query, values, offset, pageSize);
    const first = await readRows<Row>(client, query, values, 0, Math.min(offset + pageSize, MAX_REPLY_ROWS));
    if (first.rows.length >= first.total) return memoryPage(first.rows, offset, pageSize);
    // Larger than the first request: read the whole answer in one request sized from its total.
    let whole = first;
    for (let attempt = 0; whole.rows.length < whole.total; attempt++) {
        if (whole.total > MAX_REPLY_ROWS)
            throw new KvmodClientError(
                'answer-too-large',
                `${query.name}: the engine matched ${whole.total} rows; a sorted answer is read in one reply on RediSearch 1.2, which holds at most ${MAX_REPLY_ROWS}`,
            );
        if (attempt === 3)
            throw new KvmodClientError(
                'answer-changed',
                `${query.name}: the answer kept changing while it was read (${whole.total} rows matched, ${whole.rows.length} returned)`,
            );
        whole = await readRows<Row>(client, query, values, 0, whole.total);
    }
    return memoryPage(whole.rows, offset, pageSize);
}

/** Every page of an answer, the first one included, in order. */
export async function* allPages<Row>(
    first: Promise<Page<Row>> | Page<Row>,
): AsyncGenerator<Page<Row>, void, undefined> {
    let page: Page<Row> | undefined = await first;
    while (page !== undefined) {
        yield page;
        page = page.hasNext ? await page.next() : undefined;
    }
}
