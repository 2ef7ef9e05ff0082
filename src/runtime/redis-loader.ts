/**
 * Loading materialized rows into Redis with exactly the commands the Redis generator describes (the view
 * model's FT.CREATE / insert argv): indexes first (kept when the schema is the same, an error or a
 * recreation when it differs), then every row, pipelined in batches. Natural keys with REPLACE make a
 * second run leave the same data; a lost server stops the load with how far it got.
 */
import { bindRedisCommand, type RedisParamValues } from '../generation/redis/redis-commands.js';
import type { RedisCollection, RedisViewModel } from '../generation/redis/redis-view-model.js';
import { KvmodError } from '../pipeline/errors.js';
import type { MaterializedCollection, MaterializedRow } from './materialize.js';
import { isErrorReply, RedisConnectionLost, type RedisLink } from './redis-link.js';

/** Options of `loadIntoRedis`. */
export interface LoadOptions {
    /** Drop an index whose schema differs from the design (and its rows) instead of stopping. */
    recreate?: boolean;
    /** Drop every existing index of the design (and its rows) first: the server then holds exactly this data. */
    fresh?: boolean;
    /** Rows sent before waiting for their replies (default 2000). */
    batchSize?: number;
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

/** `12,345` */
export function formatCount(n: number): string {
    return n.toLocaleString('en-US');
}

/** The field specs of an FT.CREATE argv, one canonical line per field (`name TAG SEPARATOR=… SORTABLE`). */
export function schemaOfCreate(argv: readonly string[]): string[] {
    const start = argv.findIndex((arg) => arg.toUpperCase() === 'SCHEMA');
    const specs: string[] = [];
    let i = start + 1;
    while (start >= 0 && i < argv.length) {
        const name = argv[i];
        const type = (argv[i + 1] ?? '').toUpperCase();
        i += 2;
        const options: string[] = [];
        while (i < argv.length) {
            const word = argv[i].toUpperCase();
            if (
                word === 'SORTABLE' ||
                word === 'NOSTEM' ||
                word === 'NOINDEX' ||
                word === 'UNF' ||
                word === 'CASESENSITIVE'
            ) {
                options.push(word);
                i += 1;
            } else if (word === 'SEPARATOR' || word === 'WEIGHT' || word === 'PHONETIC') {
                if (!(word === 'WEIGHT' && Number(argv[i + 1]) === 1)) options.push(`${word}=${argv[i + 1]}`);
                i += 2;
            } else break;
        }
        specs.push(canonicalSpec(name, type, options));
    }
    return specs;
}

function canonicalSpec(name: string, type: string, options: string[]): string {
    const withDefaults =
        type === 'TAG' && !options.some((o) => o.startsWith('SEPARATOR=')) ? [...options, 'SEPARATOR=,'] : options;
    return [name, type, ...withDefaults.sort()].join(' ');
}

/** The field specs FT.INFO reports (RediSearch 1.2 `fields`, 2.x `attributes`), in the same canonical form. */
export function schemaOfInfo(info: unknown): string[] {
    const entries = info as unknown[];
    const specs: string[] = [];
    for (let i = 0; i + 1 < entries.length; i += 2) {
        const key = String(entries[i]);
        if (key !== 'fields' && key !== 'attributes') continue;
        for (const raw of entries[i + 1] as unknown[][]) {
            const words = raw.map(String);
            let name = words[0];
            let j = 1;
            if (words[0] === 'identifier') {
                name = words[words.indexOf('attribute') + 1] ?? words[1];
                j = 0;
            }
            let type = '';
            const options: string[] = [];
            for (; j < words.length; j++) {
                const word = words[j].toUpperCase();
                if (word === 'IDENTIFIER' || word === 'ATTRIBUTE') j++;
                else if (word === 'TYPE') type = words[++j].toUpperCase();
                else if (word === 'SEPARATOR' || word === 'PHONETIC') options.push(`${word}=${words[++j]}`);
                else if (word === 'WEIGHT') {
                    const weight = words[++j];
                    if (Number(weight) !== 1) options.push(`WEIGHT=${weight}`);
                } else if (
                    word === 'SORTABLE' ||
                    word === 'NOSTEM' ||
                    word === 'NOINDEX' ||
                    word === 'UNF' ||
                    word === 'CASESENSITIVE'
                )
                    options.push(word);
            }
            specs.push(canonicalSpec(name, type, options));
        }
    }
    return specs;
}

async function indexInfo(link: RedisLink, index: string): Promise<unknown | undefined> {
    try {
        return await link.send(['FT.INFO', index]);
    } catch (error) {
        if (isErrorReply(error) && /unknown index name|no such index/i.test(error.message)) return undefined;
        throw error;
    }
}

async function dropIndex(link: RedisLink, view: RedisViewModel, collection: RedisCollection): Promise<void> {
    // Both forms delete the indexed hashes too: the rows are written again right after.
    await link.send(view.legacy ? ['FT.DROP', collection.index] : ['FT.DROPINDEX', collection.index, 'DD']);
    if (collection.key.counterKey) await link.send(['DEL', collection.key.counterKey]);
}

/** Creates a collection's index, keeps an identical one, or (with `recreate`) replaces a different one. */
export async function ensureIndex(
    link: RedisLink,
    view: RedisViewModel,
    collection: RedisCollection,
    recreate: boolean,
    fresh = false,
): Promise<IndexOutcome> {
    const create = bindRedisCommand(collection.create, {});
    const info = await indexInfo(link, collection.index);
    if (info !== undefined && fresh) {
        await dropIndex(link, view, collection);
        await link.send(create);
        return { index: collection.index, action: 'recreated' };
    }
    if (info !== undefined) {
        const have = schemaOfInfo(info);
        const want = schemaOfCreate(create);
        // Counter keys are not idempotent (every run INCRs new ones): such a collection is always reloaded from scratch.
        const same = JSON.stringify(have) === JSON.stringify(want) && collection.key.kind === 'natural';
        if (same) return { index: collection.index, action: 'kept' };
        if (!recreate && collection.key.kind === 'natural') {
            throw new KvmodError(
                `index ${collection.index} on ${link.url} exists with another schema (it has: ${have.join(', ')}; the design needs: ${want.join(', ')}); ` +
                    'run again with --recreate to drop it and its rows',
                { code: 'redis.index-differs' },
            );
        }
        await dropIndex(link, view, collection);
        await link.send(create);
        return { index: collection.index, action: 'recreated' };
    }
    await link.send(create);
    return { index: collection.index, action: 'created' };
}

/** The values the insert command of a collection takes for one row. */
export function rowParameters(collection: RedisCollection, row: MaterializedRow): RedisParamValues {
    const values: Record<string, unknown> = { ...row.values };
    collection.key.parts.forEach((part, position) => {
        if (!(part.param in values)) values[part.param] = row.keyParts[position];
    });
    return values;
}

/** Creates the indexes and writes every row. Throws KvmodError on a refused command or a lost server. */
export async function loadIntoRedis(
    link: RedisLink,
    view: RedisViewModel,
    collections: readonly MaterializedCollection[],
    options: LoadOptions = {},
): Promise<LoadResult> {
    const batchSize = Math.max(1, options.batchSize ?? 2000);
    const indexes: IndexOutcome[] = [];
    const byName = new Map(collections.map((c) => [c.name, c]));
    const work: { collection: RedisCollection; rows: MaterializedRow[] }[] = [];
    for (const collection of view.collections) {
        const rows = byName.get(collection.name)?.rows;
        if (!rows) throw new Error(`no materialized rows for collection ${collection.name}`);
        work.push({ collection, rows });
    }
    const total = work.reduce((sum, w) => sum + w.rows.length, 0);
    let done = 0;
    const lost = (error: RedisConnectionLost): never => {
        const rows = `${formatCount(done)} of ${formatCount(total)} rows`;
        throw new KvmodError(
            error.code === 'redis.timeout'
                ? `${error.message}; ${rows} were written; run the same command again to finish`
                : `lost the connection to ${link.url} after ${rows}; run the same command again to finish`,
            { code: error.code, cause: error },
        );
    };
    try {
        for (const { collection } of work)
            indexes.push(await ensureIndex(link, view, collection, options.recreate ?? false, options.fresh ?? false));
    } catch (error) {
        if (error instanceof RedisConnectionLost) lost(error);
        throw error;
    }
    // Two batches in flight: the next batch is encoded and sent while the server works through the
    // previous one, so neither side waits for the other (one batch at a time left each idle half the
    // time). Replies are still checked batch by batch, in order, so `done` counts acknowledged rows.
    type Sent = {
        collection: RedisCollection;
        batch: MaterializedRow[];
        start: number;
        replies: Promise<PromiseSettledResult<unknown>[]>;
    };
    const acknowledge = async ({ collection, batch, start, replies }: Sent): Promise<void> => {
        for (const [position, reply] of (await replies).entries()) {
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
        await options.onProgress?.(done, total);
    };
    let inFlight: Sent | undefined;
    try {
        for (const { collection, rows } of work) {
            for (let start = 0; start < rows.length; start += batchSize) {
                const batch = rows.slice(start, start + batchSize);
                const commands = batch.map((row) =>
                    bindRedisCommand(collection.insert, rowParameters(collection, row)),
                );
                const sent: Sent = {
                    collection,
                    batch,
                    start,
                    replies: Promise.allSettled(commands.map((argv) => link.send(argv))),
                };
                if (inFlight) await acknowledge(inFlight);
                inFlight = sent;
            }
        }
        if (inFlight) await acknowledge(inFlight);
        inFlight = undefined;
    } finally {
        // A failure leaves the last batch's replies unread: settle them, so no rejection goes unhandled.
        await inFlight?.replies;
    }
    const written = work.map(({ collection, rows }) => ({ name: collection.name, rows: rows.length }));
    return { indexes, collections: written, rows: done };
}
