/**
 * The stable names of a Redis design on a live server (see `generation/redis/redis-naming.ts`): which physical index a
 * collection's stable name serves (an alias on RediSearch 2.x, a pointer key on 1.2), and dropping a physical index
 * with its rows and counter. `load` and `migrate` both go through these.
 */
import { bindRedisCommand } from '../../generation/redis/redis-commands.js';
import { rowMapKey } from '../../generation/shared/entity-store.js';
import type { RedisCollection, RedisViewModel } from '../../generation/redis/redis-view-model.js';
import { KvmodError } from '../../pipeline/errors.js';
import { isErrorReply, type RedisLink } from '../redis-connection/redis-link.js';

/** True for the error reply of an index (or alias) that does not exist, in the words of 1.2 and 2.x. */
export function isUnknownIndex(error: unknown): boolean {
    return isErrorReply(error) && /unknown index name|no such index/i.test(error.message);
}

/** `FT.INFO <name>`, or undefined when there is no such index or alias. */
export async function indexInfo(link: RedisLink, name: string): Promise<unknown> {
    try {
        return await link.send(['FT.INFO', name]);
    } catch (error) {
        if (isUnknownIndex(error)) return undefined;
        throw error;
    }
}

/** A value of an FT.INFO reply (a flat list of names and values). */
export function infoValue(info: unknown, name: string): unknown {
    const entries = Array.isArray(info) ? info : [];
    for (let i = 0; i + 1 < entries.length; i += 2) if (String(entries[i]) === name) return entries[i + 1];
    return undefined;
}

/**
 * The physical index a collection's stable name serves now, or undefined when it serves none: on 1.2 the pointer
 * key's value, on 2.x the `index_name` FT.INFO reports for the alias (or the stable name itself, when an index of
 * that name exists, as it did before stable names).
 */
export async function servedIndex(link: RedisLink, collection: RedisCollection): Promise<string | undefined> {
    if (collection.pointerKey !== null) {
        const value = await link.send(['GET', collection.pointerKey]);
        return value === null || value === undefined ? undefined : String(value);
    }
    const info = await indexInfo(link, collection.index);
    if (info === undefined) return undefined;
    const name = infoValue(info, 'index_name');
    return name === undefined ? collection.index : String(name);
}

/** Makes the collection's stable name serve its physical index (`SET` of the pointer key, or `FT.ALIASUPDATE`). */
export async function pointStableName(link: RedisLink, collection: RedisCollection): Promise<void> {
    const argv = bindRedisCommand(collection.point, {});
    try {
        await link.send(argv);
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        // e.g. a 2.x design on a 1.2 server, which has no FT.ALIASUPDATE.
        throw new KvmodError(
            `${link.url} refused ${argv.join(' ')}: ${error.message.trim()} (kvmod doctor tells which dialect the server speaks)`,
            { code: 'redis.refused', cause: error },
        );
    }
}

/**
 * Drops a physical index with its rows (both dialects' drops delete the indexed hashes) and its counter key, when the
 * index exists; false when it did not.
 */
export async function dropPhysicalIndex(link: RedisLink, view: RedisViewModel, physical: string): Promise<boolean> {
    if ((await indexInfo(link, physical)) === undefined) return false;
    await link.send(view.legacy ? ['FT.DROP', physical] : ['FT.DROPINDEX', physical, 'DD']);
    // A counter-key collection keeps its counter at `<physical>:counter` (redis-collection-builder.ts) and its
    // row map beside it (`rowMapKey`).
    await link.send(['DEL', `${physical}:counter`, rowMapKey(`${physical}:counter`)]);
    return true;
}

/**
 * The key holding the design a server serves, `kvmod:design:<database>`: the Redis design (its view model) as JSON,
 * written by `load` and, in the same MULTI as the switch, by `migrate`, so that `kvmod plan --redis` can read the
 * old design back from the server.
 */
export function designRecordKey(database: string): string {
    return `kvmod:design:${database}`;
}

/** The command that records a design on the server. */
export function designRecordArgv(view: RedisViewModel): string[] {
    return ['SET', designRecordKey(view.database), JSON.stringify(view)];
}

/** The design a server records for a database, or undefined when it records none. */
export async function readDesignRecord(link: RedisLink, database: string): Promise<RedisViewModel | undefined> {
    const text = await link.send(['GET', designRecordKey(database)]);
    if (text === null || text === undefined) return undefined;
    try {
        return JSON.parse(String(text)) as RedisViewModel;
    } catch (error) {
        throw new KvmodError(`${designRecordKey(database)} on ${link.url} is not a design kvmod wrote`, {
            code: 'redis.design-record',
            cause: error,
        });
    }
}
