/**
 * `kvmod migrate`: moves a server from the old design to the new one while every query keeps answering. Each
 * collection of the new design whose stable name does not serve its physical index yet gets that index built beside
 * the old one and filled: from the entities the server holds, while the entity Function writes both designs'
 * collections (migration-entities.ts), or, with `--data`, from the data file; then all stable names are switched in one MULTI (atomic: a query sees the
 * old design or the new one, never a mix); then the old indexes the new design does not use are dropped with their
 * rows, and stable names the new design no longer has are removed. Every step is decided from the server's state,
 * so a run interrupted anywhere completes when run again, and a second run finds nothing to do.
 */
import { bindRedisCommand } from '../../../generation/redis/redis-commands.js';
import type { AttributeRename } from '../../../generation/redis/redis-migration-plan.js';
import type { RedisCollection, RedisViewModel } from '../../../generation/redis/redis-view-model.js';
import { KvmodError } from '../../../pipeline/errors.js';
import { formatCount } from '../../format-count.js';
import { rowParameters } from '../redis-loader.js';
import type { MaterializedRow } from '../../materialize.js';
import { connectRedis, isErrorReply, RedisConnectionLost, type RedisLink } from '../../redis-connection/redis-link.js';
import { designRecordArgv, designRecordKey, dropPhysicalIndex, indexInfo, servedIndex } from '../redis-stable-names.js';
import { entityKeyPattern } from '../../../generation/shared/entity-store.js';
import { scanKeys } from '../../redis-entities/server-entities.js';
import {
    copyFunctionName,
    droppedCompanions,
    entityMigrationBlocker,
    databaseRenameLibrary,
    entityMigrationLibrary,
    entityRoot,
    fillFunctionName,
    mirrorFunctionName,
    renamedDatabaseKey,
    renamedDatabaseLibrary,
    renamedFields,
    storedIdOfKey,
} from './migration-entities.js';
import {
    foreignIndexReason,
    loadMigrationDesigns,
    type MigrationDesignOptions,
    type MigrationDesigns,
} from './migration-design.js';

/** A step as it is performed. */
export interface MigrationStepEvent {
    action:
        | 'create-index'
        | 'write-both'
        | 'copy-database'
        | 'copy-attribute'
        | 'write-rows'
        | 'switch'
        | 'remove-attribute'
        | 'remove-companions'
        | 'remove-name'
        | 'drop-index'
        | 'remove-database';
    /** The stable names it concerns. */
    collections: string[];
    /** The physical indexes it creates, fills, points at or drops. */
    indexes: string[];
    /** Rows written (write-rows), else 0. */
    rows: number;
    /** write-rows: where the rows come from (the server's entities, or the data file). */
    source?: 'entities' | 'data';
    /** write-both, copy-attribute, remove-attribute: the renamed attributes (copy/remove: `rows` counts entities). */
    renamed?: AttributeRename[];
    /** A database rename (write-both, copy-database, switch, remove-database: `rows` counts the old database's keys). */
    database?: { from: string; to: string };
}

/** Options of `migrateOnRedis`. */
export interface MigrateOptions extends MigrationDesignOptions {
    redisUrl: string;
    timeoutSeconds?: number;
    /** Rows (entities, when built from the server's entities) per pipelined batch (default 2000). */
    batchSize?: number;
    /** Called before each step; a test hook (a throw stops the run there, like a kill). */
    beforeStep?: (step: MigrationStepEvent) => void | Promise<void>;
    /** Called after each acknowledged batch of rows. */
    onProgress?: (done: number, total: number) => void | Promise<void>;
    /** The designs, when already loaded with these options (`loadMigrationDesigns`): saves parsing them again. */
    designs?: MigrationDesigns;
}

/** What a run did. */
export interface MigrationResult {
    designs: MigrationDesigns;
    /** The steps performed, in order (empty: nothing to do). */
    performed: MigrationStepEvent[];
    /** The engine as people read it (`redisearch1`). */
    engine: string;
}

/** Why the migration cannot start; nothing was changed. */
function blocked(reason: string): never {
    throw new KvmodError(`the migration cannot run online, nothing was changed: ${reason}`, {
        code: 'migrate.blocked',
    });
}

/** Writes rows with the design's insert command, pipelined in batches; throws on the first refused row. */
async function writeRows(
    link: RedisLink,
    collection: RedisCollection,
    rows: readonly MaterializedRow[],
    batchSize: number,
    onBatch: (written: number) => void | Promise<void>,
): Promise<void> {
    for (let start = 0; start < rows.length; start += batchSize) {
        const batch = rows.slice(start, start + batchSize);
        const replies = await Promise.allSettled(
            batch.map((row) => link.send(bindRedisCommand(collection.insert, rowParameters(collection, row)))),
        );
        for (const [position, reply] of replies.entries()) {
            if (reply.status === 'fulfilled') continue;
            if (reply.reason instanceof RedisConnectionLost) throw reply.reason;
            throw new KvmodError(
                `${link.url} refused row ${formatCount(start + position + 1)} of collection ${collection.name}: ${(reply.reason as Error).message}`,
                { code: 'redis.refused', cause: reply.reason },
            );
        }
        await onBatch(batch.length);
    }
}

/** Sends commands in one MULTI … EXEC; an error reply inside it is thrown. */
async function transaction(link: RedisLink, commands: string[][]): Promise<void> {
    await link.send(['MULTI']);
    try {
        for (const argv of commands) await link.send(argv);
    } catch (error) {
        await link.send(['DISCARD']).catch(() => undefined);
        throw error;
    }
    const replies = (await link.send(['EXEC'])) as unknown[] | null;
    const failed = (replies ?? []).find((reply) => reply instanceof Error);
    if (replies === null || failed) {
        throw new KvmodError(
            `${link.url} refused the switch: ${failed instanceof Error ? failed.message : 'EXEC aborted'}`,
            {
                code: 'redis.refused',
            },
        );
    }
}

type StepRunner = (event: MigrationStepEvent, run: () => Promise<void>) => Promise<void>;

/** Fills each collection from the entities the server holds: the fill Function over every root entity's id. */
async function fillFromEntities(
    link: RedisLink,
    database: string,
    collections: readonly RedisCollection[],
    batchSize: number,
    step: StepRunner,
    onProgress: MigrateOptions['onProgress'],
): Promise<void> {
    const roots = new Map<string, string[]>();
    for (const c of collections) {
        if (!roots.has(c.root.entity))
            roots.set(
                c.root.entity,
                (await scanKeys(link, entityKeyPattern(database, c.root.entity))).map(storedIdOfKey),
            );
    }
    const total = collections.reduce((n, c) => n + roots.get(c.root.entity)!.length, 0);
    let done = 0;
    for (const c of collections) {
        const ids = roots.get(c.root.entity)!;
        const event: MigrationStepEvent = {
            action: 'write-rows',
            collections: [c.name],
            indexes: [c.physicalIndex],
            rows: 0,
            source: 'entities',
        };
        await step(event, async () => {
            for (let start = 0; start < ids.length; start += batchSize) {
                const batch = ids.slice(start, start + batchSize);
                const argv = ['FCALL', fillFunctionName(database), '0', c.physicalIndex, ...batch];
                event.rows += Number(await link.send(argv));
                done += batch.length;
                await onProgress?.(done, total);
            }
        });
    }
}

/**
 * Copies the renamed attributes of every entity under their new names (the copy Function of the migration library,
 * one atomic call per batch); from the `write-both` step on, every create and update copies its own.
 */
async function copyRenamed(
    link: RedisLink,
    view: RedisViewModel,
    renames: readonly AttributeRename[],
    batchSize: number,
    step: StepRunner,
    onProgress: MigrateOptions['onProgress'],
): Promise<void> {
    const database = view.entityStore!.schema.database;
    for (const entity of [...new Set(renames.map((r) => r.entity))]) {
        const event: MigrationStepEvent = {
            action: 'copy-attribute',
            collections: [entity],
            indexes: [],
            rows: 0,
            renamed: renames.filter((r) => r.entity === entity),
        };
        await step(event, async () => {
            const ids = (await scanKeys(link, entityKeyPattern(database, entity))).map(storedIdOfKey);
            for (let start = 0; start < ids.length; start += batchSize) {
                const batch = ids.slice(start, start + batchSize);
                event.rows += Number(await link.send(['FCALL', copyFunctionName(database), '0', entity, ...batch]));
                await onProgress?.(start + batch.length, ids.length);
            }
        });
    }
}

/** Deletes hash fields from every entity of an entity; resolves with the number of hashes that held any. */
async function deleteEntityFields(
    link: RedisLink,
    database: string,
    entity: string,
    fields: readonly string[],
    batchSize: number,
): Promise<number> {
    const keys = await scanKeys(link, entityKeyPattern(database, entity));
    let changed = 0;
    for (let start = 0; start < keys.length; start += batchSize) {
        const replies = await Promise.all(
            keys.slice(start, start + batchSize).map((key) => link.send(['HDEL', key, ...fields])),
        );
        changed += replies.filter((reply) => Number(reply) > 0).length;
    }
    return changed;
}

/** The keys of a database's entities and reverse hashes (those under its entity root). */
function databaseKeys(link: RedisLink, database: string): Promise<string[]> {
    return scanKeys(link, `${entityRoot(database)}*`);
}

/**
 * Gives every entity key of the old database its copy under the new one (the mirror Function, one atomic call per
 * batch): the old keys, and the new keys an interrupted run left, whose old key may be gone since.
 */
async function copyDatabase(
    link: RedisLink,
    database: { from: string; to: string },
    batchSize: number,
    step: StepRunner,
    onProgress: MigrateOptions['onProgress'],
): Promise<void> {
    const event: MigrationStepEvent = { action: 'copy-database', collections: [], indexes: [], rows: 0, database };
    await step(event, async () => {
        const oldRoot = entityRoot(database.from);
        const newRoot = entityRoot(database.to);
        const keys = new Set(await databaseKeys(link, database.from));
        for (const key of await databaseKeys(link, database.to)) keys.add(oldRoot + key.slice(newRoot.length));
        const all = [...keys];
        for (let start = 0; start < all.length; start += batchSize) {
            const batch = all.slice(start, start + batchSize);
            event.rows += Number(await link.send(['FCALL', mirrorFunctionName(database.from), '0', ...batch]));
            await onProgress?.(start + batch.length, all.length);
        }
    });
}

/** Deletes the old database's entity keys and its design record, after the switch; a run that finds none does nothing. */
async function removeDatabase(
    link: RedisLink,
    database: { from: string; to: string },
    batchSize: number,
    beforeStep: MigrateOptions['beforeStep'],
    onProgress: MigrateOptions['onProgress'],
    performed: MigrationStepEvent[],
): Promise<void> {
    const keys = await databaseKeys(link, database.from);
    const record = designRecordKey(database.from);
    const marker = renamedDatabaseKey(database.to);
    if (keys.length === 0 && Number(await link.send(['EXISTS', record, marker])) === 0) return;
    const event: MigrationStepEvent = { action: 'remove-database', collections: [], indexes: [], rows: 0, database };
    await beforeStep?.(event);
    for (let start = 0; start < keys.length; start += batchSize) {
        const batch = keys.slice(start, start + batchSize);
        event.rows += Number(await link.send(['DEL', ...batch]));
        await onProgress?.(start + batch.length, keys.length);
    }
    // The record last (with the rename's marker): while it is there, the old database is not gone.
    await link.send(['DEL', record, marker]);
    performed.push(event);
}

/** Removes the old names of renamed attributes from the entity hashes, after the switch (the new Function reads the new ones). */
async function removeRenamed(
    link: RedisLink,
    from: RedisViewModel,
    renames: readonly AttributeRename[],
    batchSize: number,
    beforeStep: MigrateOptions['beforeStep'],
    performed: MigrationStepEvent[],
): Promise<void> {
    const database = from.entityStore!.schema.database;
    for (const [entity, fields] of renamedFields(from, renames)) {
        const event: MigrationStepEvent = {
            action: 'remove-attribute',
            collections: [entity],
            indexes: fields,
            rows: 0,
            renamed: renames.filter((r) => r.entity === entity),
        };
        // A run that finds nothing left to remove (run again after the migration) performs no step.
        if (!(await anyEntityHolds(link, database, entity, fields))) continue;
        await beforeStep?.(event);
        event.rows = await deleteEntityFields(link, database, entity, fields, batchSize);
        performed.push(event);
    }
}

/** Whether some entity hash of an entity still holds one of the fields. */
async function anyEntityHolds(link: RedisLink, database: string, entity: string, fields: readonly string[]) {
    const keys = await scanKeys(link, entityKeyPattern(database, entity));
    for (let start = 0; start < keys.length; start += 500) {
        const replies = await Promise.all(
            keys.slice(start, start + 500).map((key) => link.send(['HMGET', key, ...fields])),
        );
        if (replies.some((values) => (values as (string | null)[]).some((v) => v !== null))) return true;
    }
    return false;
}

/** Removes from the entity hashes the companions only the old design kept (the new Function never writes them). */
async function removeCompanions(
    link: RedisLink,
    from: RedisViewModel,
    to: RedisViewModel,
    renames: readonly AttributeRename[],
    batchSize: number,
    performed: MigrationStepEvent[],
): Promise<void> {
    for (const [entity, fields] of droppedCompanions(from, to, renames)) {
        const keys = await scanKeys(link, entityKeyPattern(to.entityStore!.schema.database, entity));
        let removed = 0;
        for (let start = 0; start < keys.length; start += batchSize) {
            const replies = await Promise.all(
                keys.slice(start, start + batchSize).map((key) => link.send(['HDEL', key, ...fields])),
            );
            removed += replies.reduce<number>((n, reply) => n + Number(reply), 0);
        }
        if (removed > 0)
            performed.push({ action: 'remove-companions', collections: [entity], indexes: fields, rows: removed });
    }
}

/** Runs the migration; resolves with the steps it performed. */
export async function migrateOnRedis(options: MigrateOptions): Promise<MigrationResult> {
    const designs = options.designs ?? (await loadMigrationDesigns(options));
    if (designs.plan.blockers.length > 0) blocked(designs.plan.blockers.join('\n'));
    const { renames } = designs;
    const renamingDatabase = designs.from.view.database !== designs.to.view.database;
    if (renamingDatabase && !designs.plan.renamesDatabase)
        blocked(`the new design renames the database ${designs.from.view.database} to ${designs.to.view.database}`);
    const database = { from: designs.from.view.database, to: designs.to.view.database };
    const rowsOf = new Map((designs.data?.rows ?? []).map((c) => [c.name, c.rows]));
    const { from, to } = designs;
    const link = await connectRedis(options.redisUrl, { timeoutSeconds: options.timeoutSeconds });
    const performed: MigrationStepEvent[] = [];
    const step = async (event: MigrationStepEvent, run: () => Promise<void>) => {
        await options.beforeStep?.(event);
        await run();
        performed.push(event);
    };
    try {
        // Where the server stands: which physical index each stable name serves.
        const known = new Set([...from.view.collections, ...to.view.collections].map((c) => c.physicalIndex));
        const serving = new Map<string, string | undefined>();
        for (const c of [...from.view.collections, ...to.view.collections]) {
            if (serving.has(c.name)) continue;
            const served = await servedIndex(link, c);
            if (served !== undefined && !known.has(served)) {
                blocked(foreignIndexReason(link.url, c.name, served, from.view, to.view));
            }
            serving.set(c.name, served);
        }

        const record = designRecordArgv(to.view);
        const recorded = await link.send(['GET', record[1]!]);

        // 1. Build every collection of the new design that its stable name does not serve yet, beside the old one.
        const toBuild = to.view.collections.filter((c) => serving.get(c.name) !== c.physicalIndex);
        // Without a data file the new rows come from the entities the server holds.
        const fromEntities = options.dataPath === undefined;
        // Renamed attributes are carried over until the switch (with nothing to build: until the design record is
        // the new design's, which the switch sets).
        const renaming = fromEntities && renames.length > 0 && (toBuild.length > 0 || recorded !== record[2]);
        // A renamed database is built until the new design's record is there, which the switch sets.
        const movingDatabase = renamingDatabase && recorded !== record[2];
        const building = fromEntities && (toBuild.length > 0 || renaming || movingDatabase);
        if (building) {
            const reason = entityMigrationBlocker(from.view, to.view, toBuild, renames);
            if (reason !== null) blocked(reason);
            // A run interrupted before the switch left the migration library writing into the indexes about to be
            // built again: the old design's own Function first, so that no operation writes into a dropped index.
            await link.send(['FUNCTION', 'LOAD', 'REPLACE', from.view.entityStore!.library]);
        }
        const batchSize = Math.max(1, options.batchSize ?? (fromEntities ? 500 : 2000));
        const total = toBuild.reduce((n, c) => n + (rowsOf.get(c.name)?.length ?? 0), 0);
        let done = 0;
        for (const c of toBuild) {
            await step(
                { action: 'create-index', collections: [c.name], indexes: [c.physicalIndex], rows: 0 },
                async () => {
                    // An index of that name no stable name serves is a build an interrupted run left: start it again.
                    await dropPhysicalIndex(link, to.view, c.physicalIndex);
                    await link.send(bindRedisCommand(c.create, {}));
                },
            );
            if (fromEntities) continue;
            const rows = rowsOf.get(c.name) ?? [];
            await step(
                {
                    action: 'write-rows',
                    collections: [c.name],
                    indexes: [c.physicalIndex],
                    rows: rows.length,
                    source: 'data',
                },
                async () => {
                    await writeRows(link, c, rows, batchSize, async (written) => {
                        done += written;
                        await options.onProgress?.(done, total);
                    });
                },
            );
        }
        if (building) {
            // From here every entity operation writes the new collections too (and a renamed attribute under both
            // names); the copy gives every entity the new names, the fill writes every row from the entities as
            // they are, one atomic call per batch.
            await step(
                {
                    action: 'write-both',
                    collections: toBuild.map((c) => c.name),
                    indexes: toBuild.map((c) => c.physicalIndex),
                    rows: 0,
                    ...(renaming ? { renamed: renames } : {}),
                    ...(movingDatabase ? { database } : {}),
                },
                async () => {
                    const library = movingDatabase
                        ? databaseRenameLibrary(from.view, to.view, toBuild)
                        : entityMigrationLibrary(from.view, to.view, toBuild, renaming ? renames : []);
                    await link.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
                },
            );
            if (movingDatabase) await copyDatabase(link, database, batchSize, step, options.onProgress);
            if (renaming) await copyRenamed(link, to.view, renames, batchSize, step, options.onProgress);
            // The fill Function reads the entities the old Function writes (under the old database's keys).
            const read = from.view.entityStore!.schema.database;
            await fillFromEntities(link, read, toBuild, batchSize, step, options.onProgress);
        }

        // 2. Switch every built collection's stable name at once, with the new design's entity Function.
        const library = to.view.entityStore ? [['FUNCTION', 'LOAD', 'REPLACE', to.view.entityStore.library]] : [];
        // The old database's Function refuses from the switch on: no write of an old client is made only under the
        // old keys.
        if (movingDatabase)
            library.push(
                ['FUNCTION', 'LOAD', 'REPLACE', renamedDatabaseLibrary(from.view, to.view, to.path)],
                ['SET', renamedDatabaseKey(database.to), database.from],
            );
        if (toBuild.length > 0) {
            await step(
                {
                    action: 'switch',
                    collections: toBuild.map((c) => c.name),
                    indexes: toBuild.map((c) => c.physicalIndex),
                    rows: 0,
                    ...(movingDatabase ? { database } : {}),
                },
                // The design record switches with the names: `plan --redis` then reads the new design back.
                () => transaction(link, [...toBuild.map((c) => bindRedisCommand(c.point, {})), record, ...library]),
            );
        } else if (renaming || movingDatabase) {
            // Nothing to build, but the entities carry renamed attributes: the new Function starts with the record.
            const also = movingDatabase ? { database } : {};
            await step({ action: 'switch', collections: [], indexes: [], rows: 0, ...also }, () =>
                transaction(link, [record, ...library]),
            );
        } else if (recorded !== record[2] || library.length > 0) {
            // Nothing to build (a removed query): the new Function must still stop writing what is dropped below.
            await transaction(link, [record, ...library]);
        }
        if (fromEntities && renames.length > 0)
            await removeRenamed(link, from.view, renames, batchSize, options.beforeStep, performed);
        if (fromEntities) await removeCompanions(link, from.view, to.view, renames, batchSize, performed);

        // 3. Remove what the new design no longer uses: stable names it lacks, then old physical indexes.
        const newNames = new Set(to.view.collections.map((c) => c.name));
        const newIndexes = new Set(to.view.collections.map((c) => c.physicalIndex));
        for (const c of from.view.collections) {
            if (!newNames.has(c.name) && serving.get(c.name) !== undefined) {
                const argv = c.pointerKey !== null ? ['DEL', c.pointerKey] : ['FT.ALIASDEL', c.index];
                await step({ action: 'remove-name', collections: [c.name], indexes: [], rows: 0 }, async () => {
                    await link.send(argv).catch((error: unknown) => {
                        if (!isErrorReply(error)) throw error; // an alias already gone
                    });
                });
            }
            if (newIndexes.has(c.physicalIndex) || (await indexInfo(link, c.physicalIndex)) === undefined) continue;
            await step(
                { action: 'drop-index', collections: [c.name], indexes: [c.physicalIndex], rows: 0 },
                async () => {
                    await dropPhysicalIndex(link, from.view, c.physicalIndex);
                },
            );
        }
        if (renamingDatabase && fromEntities)
            await removeDatabase(link, database, batchSize, options.beforeStep, options.onProgress, performed);
        return { designs, performed, engine: to.view.dialect };
    } catch (error) {
        if (error instanceof RedisConnectionLost) {
            throw new KvmodError(`${error.message}; run the same command again to finish the migration`, {
                code: error.code,
                cause: error,
            });
        }
        throw error;
    } finally {
        await link.close();
    }
}
