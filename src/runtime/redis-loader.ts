/**
 * Loading materialized rows into Redis with exactly the commands the Redis generator describes (the view
 * model's FT.CREATE / insert argv): indexes first (kept when the schema is the same, an error or a
 * recreation when it differs), then every row, pipelined in batches. Natural keys with REPLACE make a
 * second run leave the same data; a lost server stops the load with how far it got.
 */
import { schemaOfCreate, schemaOfInfo } from '../generation/redis/redis-index-schema.js';
import { bindRedisCommand, displayRedisCommand, type RedisParamValues } from '../generation/redis/redis-commands.js';
import type { RedisCollection, RedisViewModel } from '../generation/redis/redis-view-model.js';
import { KvmodError } from '../pipeline/errors.js';
import type { CollectionRows, MaterializedRow, RowBatches } from './materialize.js';
import { RedisConnectionLost, type RedisLink } from './redis-link.js';
import { compileRespRowWriter, RespWriter } from './redis-resp.js';
import { dropPhysicalIndex, indexInfo, pointStableName, servedIndex } from './redis-stable-names.js';

/** Options of `loadIntoRedis`. */
export interface LoadOptions {
    /** Drop an index whose schema differs from the design (and its rows) instead of stopping. */
    recreate?: boolean;
    /** Drop every existing index of the design (and its rows) first: the server then holds exactly this data. */
    fresh?: boolean;
    /** The indexes are prepared already (the engine's `prepareSchema`): write the rows only. */
    skipIndexes?: boolean;
    /** Rows sent before waiting for their replies (default 2000). */
    batchSize?: number;
    /**
     * Whether the server may block the connection on each row write (`SearchModule.rowWritesBlock` from
     * `detectDialect`; default: true for the redisearch1 dialect, whose FT.ADD does without SAFEMODE).
     */
    rowWritesBlock?: boolean;
    /** Called after each acknowledged batch; a returned promise is awaited before the next batch. */
    onProgress?: (done: number, total: number) => void | Promise<void>;
}

/** What happened to one index. */
export interface IndexOutcome {
    index: string;
    action: 'created' | 'kept' | 'recreated';
}

/** The outcome of a load. */
export interface LoadResult {
    indexes: IndexOutcome[];
    /** Rows written per collection. */
    collections: { name: string; rows: number }[];
    rows: number;
}

/** `12,345` (not `toLocaleString`: its first call loads ICU's locale data, ~0.1 s of a load's start-up). */
export function formatCount(n: number): string {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The schema comparison the generated client ships too: one module, in the Redis target. */
export { schemaOfCreate, schemaOfInfo };

/**
 * What preparing a collection's index reads before it writes anything: the physical index its stable name serves
 * (`servedIndex`) and its physical index's FT.INFO (`indexInfo`). `ensureIndexes` sends them ahead, for every
 * collection at once.
 */
interface IndexReads {
    serving: Promise<string | undefined>;
    info: Promise<unknown>;
}

/**
 * Creates a collection's physical index, keeps an identical one, or (with `recreate`) replaces a different one, then
 * points the stable name at it. A stable name serving another physical index (another design of the collection) is
 * an error naming `kvmod migrate`, or with `recreate`/`fresh` that index is dropped with its rows.
 */
export async function ensureIndex(
    link: RedisLink,
    view: RedisViewModel,
    collection: RedisCollection,
    recreate: boolean,
    fresh = false,
    reads?: IndexReads,
): Promise<IndexOutcome> {
    const index = collection.physicalIndex;
    const create = bindRedisCommand(collection.create, {});
    const serving = await (reads?.serving ?? servedIndex(link, collection));
    let replaced = false;
    if (serving !== undefined && serving !== index) {
        if (!recreate && !fresh) {
            throw new KvmodError(
                `collection ${collection.name} on ${link.url} is served by index ${serving}, another design of it (this design's index is ${index}); ` +
                    'run kvmod migrate <old design> <this design> to change it online, or run again with --recreate to drop it and its rows',
                { code: 'redis.index-differs' },
            );
        }
        replaced = await dropPhysicalIndex(link, view, serving);
    }
    // A drop changed the server since the reads were sent: the physical index is read again, as without them.
    const info = replaced || !reads ? indexInfo(link, index) : reads.info;
    const outcome = await ensurePhysicalIndex(link, view, collection, create, recreate, fresh, info);
    await pointStableName(link, collection);
    return replaced ? { index, action: 'recreated' } : outcome;
}

/**
 * `ensureIndex` for each collection in turn, with the same commands written in the same order, the same outcomes
 * and the same errors; only the reads are sent ahead. Each collection's two first reads (`IndexReads`) do not depend
 * on what the earlier collections write (other keys and indexes), so all of them go in one round trip before the
 * first write, instead of two round trips per collection between the writes. A read's answer is used only while
 * nothing written since it was sent could have changed it: after a drop (`recreated`), or when an earlier
 * collection wrote a name this one reads (names are distinct in a design), the collection reads again when its
 * turn comes. Reads left unused (a failure stops the loop) only read.
 */
export async function ensureIndexes(
    link: RedisLink,
    view: RedisViewModel,
    collections: readonly RedisCollection[],
    recreate: boolean,
    fresh = false,
): Promise<IndexOutcome[]> {
    const namesRead = (collection: RedisCollection) => [
        collection.pointerKey ?? collection.index,
        collection.physicalIndex,
    ];
    const ahead = collections.map((collection): IndexReads => {
        const reads = { serving: servedIndex(link, collection), info: indexInfo(link, collection.physicalIndex) };
        // Awaited in their turn (or never, after a failure): no rejection is left unhandled meanwhile.
        reads.serving.catch(() => undefined);
        reads.info.catch(() => undefined);
        return reads;
    });
    // Every read answered before the first write: a write never waits behind a read in the pipeline.
    await Promise.allSettled(ahead.flatMap((reads) => [reads.serving, reads.info]));
    const written = new Set<string>();
    let dropped = false;
    const outcomes: IndexOutcome[] = [];
    for (const [position, collection] of collections.entries()) {
        const current = !dropped && namesRead(collection).every((name) => !written.has(name));
        const outcome = await ensureIndex(
            link,
            view,
            collection,
            recreate,
            fresh,
            current ? ahead[position] : undefined,
        );
        outcomes.push(outcome);
        // What this collection's commands may have changed: its physical index (created) and its stable name.
        if (outcome.action === 'recreated') dropped = true;
        for (const name of namesRead(collection)) written.add(name);
        written.add(collection.index);
    }
    return outcomes;
}

async function ensurePhysicalIndex(
    link: RedisLink,
    view: RedisViewModel,
    collection: RedisCollection,
    create: string[],
    recreate: boolean,
    fresh: boolean,
    read: Promise<unknown>,
): Promise<IndexOutcome> {
    const index = collection.physicalIndex;
    const info = await read;
    if (info !== undefined && fresh) {
        await dropPhysicalIndex(link, view, index);
        await link.send(create);
        return { index, action: 'recreated' };
    }
    if (info !== undefined) {
        const have = schemaOfInfo(info);
        const want = schemaOfCreate(create);
        // Counter keys are not idempotent (every run INCRs new ones): such a collection is always reloaded from scratch.
        const same = JSON.stringify(have) === JSON.stringify(want) && collection.key.kind === 'natural';
        if (same) return { index, action: 'kept' };
        if (!recreate && collection.key.kind === 'natural') {
            throw new KvmodError(
                `index ${index} on ${link.url} exists with another schema (it has: ${have.join(', ')}; the design needs: ${want.join(', ')}); ` +
                    'run again with --recreate to drop it and its rows',
                { code: 'redis.index-differs' },
            );
        }
        await dropPhysicalIndex(link, view, index);
        await link.send(create);
        return { index, action: 'recreated' };
    }
    await link.send(create);
    return { index, action: 'created' };
}

/** The values the insert command of a collection takes for one row. */
export function rowParameters(collection: RedisCollection, row: MaterializedRow): RedisParamValues {
    const values: Record<string, unknown> = { ...row.values };
    collection.key.parts.forEach((part, position) => {
        if (!(part.param in values)) values[part.param] = row.keyParts[position];
    });
    return values;
}

/**
 * Batches sent and not yet acknowledged at most. Two (one the server indexes, one the client sends meanwhile) left
 * the server idle whenever the client paused for longer than a batch takes the server (finding a collection's
 * bindings, a garbage collection). Four hide most of those pauses; more save nothing and cost client time (bigger
 * buffers). The redis-core writer too.
 */
export const BATCHES_IN_FLIGHT = 4;

/**
 * Rows of the load's first batch at most: the server starts indexing while the client makes the next (a full first
 * batch would keep it idle while the client encodes it). The redis-core writer too.
 */
export const FIRST_BATCH_ROWS = 250;

/** Creates the indexes and writes every row. Throws KvmodError on a refused command or a lost server. */
export async function loadIntoRedis(
    link: RedisLink,
    view: RedisViewModel,
    collections: readonly CollectionRows[],
    options: LoadOptions = {},
): Promise<LoadResult> {
    const batchSize = Math.max(1, options.batchSize ?? 2000);
    const indexes: IndexOutcome[] = [];
    const byName = new Map(collections.map((c) => [c.name, c]));
    type Work = {
        collection: RedisCollection;
        rows: RowBatches;
        parameters: (row: MaterializedRow) => RedisParamValues;
    };
    const work: Work[] = [];
    for (const collection of view.collections) {
        const materialized = byName.get(collection.name);
        if (!materialized) throw new Error(`no materialized rows for collection ${collection.name}`);
        // A row's values already hold every field: a copy with the key parts is needed only for a key part that is no field.
        const fields = new Set(materialized.fields.map((field) => field.name));
        const parameters = collection.key.parts.every((part) => fields.has(part.param))
            ? (row: MaterializedRow) => row.values
            : (row: MaterializedRow) => rowParameters(collection, row);
        work.push({ collection, rows: materialized.rows, parameters });
    }
    // Counted only when asked for (progress, or a message): counting binds every collection (see streamModel).
    const total = (): number => work.reduce((sum, w) => sum + w.rows.length, 0);
    let done = 0;
    const lost = (error: RedisConnectionLost): never => {
        const rows = `${formatCount(done)} of ${formatCount(total())} rows`;
        throw new KvmodError(
            error.code === 'redis.timeout'
                ? `${error.message}; ${rows} were written; run the same command again to finish`
                : `lost the connection to ${link.url} after ${rows}; run the same command again to finish`,
            { code: error.code, cause: error },
        );
    };
    try {
        if (!options.skipIndexes)
            indexes.push(
                ...(await ensureIndexes(
                    link,
                    view,
                    work.map(({ collection }) => collection),
                    options.recreate ?? false,
                    options.fresh ?? false,
                )),
            );
    } catch (error) {
        if (error instanceof RedisConnectionLost) lost(error);
        throw error;
    }
    // Batches in flight (`BATCHES_IN_FLIGHT`): the next batches are encoded and sent while the server works through
    // the earlier ones, so neither side waits for the other (one batch at a time left each idle half the time).
    // Replies are still checked batch by batch, in order, so `done` counts acknowledged rows.
    type Sent = {
        collection: RedisCollection;
        batch: MaterializedRow[];
        start: number;
        replies: Promise<PromiseSettledResult<unknown>[]>;
    };
    const acknowledge = async ({ collection, batch, start, replies }: Sent): Promise<void> => {
        const settled = await replies;
        // Index loops here and below: they run once per row, in code not optimized yet (`for…of` makes objects).
        for (let position = 0; position < settled.length; position++) {
            const reply = settled[position];
            if (reply.status === 'fulfilled') {
                done++;
                continue;
            }
            if (reply.reason instanceof RedisConnectionLost) lost(reply.reason);
            const row = batch[position];
            throw new KvmodError(
                `${link.url} refused row ${formatCount(start + position + 1)} of collection ${collection.name} (key ${JSON.stringify(row.keyParts)}): ${(reply.reason as Error).message}`,
                { code: 'redis.refused', cause: reply.reason },
            );
        }
        if (options.onProgress) await options.onProgress(done, total());
    };
    const inFlight: Sent[] = [];
    let batch: MaterializedRow[] = [];
    let sent = 0;
    const writer = new RespWriter();
    try {
        for (const { collection, rows, parameters } of work) {
            // Compiled once per collection: each row goes straight into the batch's RESP bytes (see redis-resp.ts).
            const write = compileRespRowWriter(
                collection.insert,
                collection.key.parts.map((part) => part.param),
            );
            const name = displayRedisCommand(collection.insert)[0] ?? '';
            // 1.x's FT.ADD blocks the connection for each row on a server without SAFEMODE (the link then writes it
            // only a little ahead of its replies; with SAFEMODE as far ahead as any other command); 2.x's HSET never does.
            const blocking = view.dialect === 'redisearch1' && (options.rowWritesBlock ?? true);
            // Until a slice is empty, not up to `rows.length`: rows made on demand then find the bindings of each
            // batch as it is made, and the first batch of a collection does not wait for those of its last row.
            for (let start = 0; ; start += batch.length) {
                batch = rows.slice(start, start + (sent === 0 ? Math.min(batchSize, FIRST_BATCH_ROWS) : batchSize));
                if (batch.length === 0) break;
                sent++;
                let replies: Promise<PromiseSettledResult<unknown>[]>;
                if (link.sendBatch) {
                    // The key parts go beside the values (no copy of a row's values with them: `rowParameters`).
                    for (let i = 0; i < batch.length; i++) write(writer, batch[i].values, batch[i].keyParts);
                    // Written before sendBatch returns (the link's connection is open): the server starts on a
                    // batch while the next is made.
                    replies = link.sendBatch(writer.take(name, blocking));
                } else {
                    const commands = batch.map((row) => bindRedisCommand(collection.insert, parameters(row)));
                    replies = Promise.allSettled(commands.map((argv) => link.send(argv)));
                }
                inFlight.push({ collection, batch, start, replies });
                if (inFlight.length >= BATCHES_IN_FLIGHT) await acknowledge(inFlight.shift()!);
            }
        }
        while (inFlight.length > 0) await acknowledge(inFlight.shift()!);
    } finally {
        // A failure leaves the replies of the batches still in flight unread: settle them, so no rejection goes unhandled.
        await Promise.all(inFlight.map((sent) => sent.replies));
    }
    const written = work.map(({ collection, rows }) => ({ name: collection.name, rows: rows.length }));
    return { indexes, collections: written, rows: done };
}
