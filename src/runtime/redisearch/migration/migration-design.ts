/**
 * What `kvmod plan` and `kvmod migrate` work from: the old and the new design as Redis designs of one dialect, the
 * instance data of the new design (when given) materialized into its rows, and the plan between them. Everything
 * that can make a migration impossible (a model error, data that does not fit the new design or that it cannot
 * serve) is found here, before anything is written.
 */
import { buildViewModel, targetOptions } from '../../../generation/generation-engine.js';
import { GenerationError } from '../../../generation/generation-errors.js';
import type { RawOptionValues } from '../../../generation/generation-options.js';
import {
    planMigration,
    type AttributeRename,
    type MigrationPlan,
} from '../../../generation/redis/redis-migration-plan.js';
import { redisTarget } from '../../../generation/redis/redis-target.js';
import type { RedisDialect, RedisViewModel } from '../../../generation/redis/redis-view-model.js';
import { KvmodError } from '../../../pipeline/errors.js';
import { describeDatabaseOrigin } from '../../../pipeline/transform.js';
import { indexInstanceData, readInstanceData, type InstanceData } from '../../instance-data.js';
import { materializeModel, type MaterializedCollection } from '../../materialize.js';
import { connectRedis, detectDialect, RedisConnectionLost, type RedisLink } from '../../redis-connection/redis-link.js';
import { loadRuntimeDesign, type DesignOptions, type RuntimeDesign } from '../../runtime-design.js';
import { redisEngine } from '../redis-engine.js';
import { designRecordKey, readDesignRecord, servedIndex } from '../redis-stable-names.js';
import { scanKeys } from '../../redis-entities/server-entities.js';
import { unservableValues } from '../../servable-values.js';
import { entityMigrationBlocker, entityRoot, parseRenames, renamedDatabaseKey } from './migration-entities.js';

export { formatMigrationPlan } from '../../../generation/redis/redis-migration-plan.js';

/** One side of a migration. */
export interface MigrationSide {
    /** The design file, or the server whose design record it was read from. */
    path: string;
    /** The loaded models (absent for a design read back from a server, which records only its Redis design). */
    design?: RuntimeDesign;
    view: RedisViewModel;
    /** Where its database name came from, as people read it (`declared at clinic.pidm:1:1`). */
    databaseOrigin: string;
    /**
     * True when the database's name is the model's own choice (declared, given as an option, written in a KVLM),
     * false when it only follows the file name: a rename to a name of the first kind is asked for.
     */
    databaseNamed: boolean;
}

/** Both designs, the new design's rows (with data) and the plan. */
export interface MigrationDesigns {
    from: MigrationSide;
    to: MigrationSide;
    /** The new design's data and rows, when the data was given and fits it. */
    data: { path: string; data: InstanceData; rows: MaterializedCollection[] } | null;
    plan: MigrationPlan;
    /** The attributes the new design names otherwise (`--renamed`), checked against both designs. */
    renames: AttributeRename[];
}

/** How to load the two designs. */
export interface MigrationDesignOptions extends DesignOptions {
    /** The old design: `.pidm` or `.kvlm`; absent: the design the server (`redisUrl`) records. */
    fromPath?: string;
    /** The server, when the old design is read back from it. */
    redisUrl?: string;
    /** Seconds to wait for it. */
    timeoutSeconds?: number;
    /** The new design. */
    toPath: string;
    /** The new design's instance data (required to migrate; gives row counts and the data checks to a plan). */
    dataPath?: string;
    /** The dialect: given, or detected from the server. */
    dialect: RedisDialect;
    /** The Redis target's options as given (`--db-prefix`, `--limit`), applied to both designs. */
    targetOptions?: RawOptionValues;
    /** Renamed attributes as given (`Book.title=name`): the entities keep their values under the new name. */
    renamed?: readonly string[];
}

/**
 * The dialect of a migration: the one given, else the one the server speaks (detected, nothing written), else the
 * target's default. The target must be the Redis target.
 */
export async function migrationDialect(
    target: string | undefined,
    given: RawOptionValues,
    redisUrl: string | undefined,
    timeoutSeconds?: number,
): Promise<{ dialect: RedisDialect }> {
    return { dialect: await dialectOf(target, given, redisUrl, timeoutSeconds) };
}

async function dialectOf(
    target: string | undefined,
    given: RawOptionValues,
    redisUrl: string | undefined,
    timeoutSeconds?: number,
): Promise<RedisDialect> {
    if (target !== undefined && target !== redisTarget.name) {
        throw new KvmodError(`plan and migrate work with the ${redisTarget.name} target, not ${target}`, {
            code: 'cli.option',
        });
    }
    if (given.dialect !== undefined) return String(given.dialect) as RedisDialect;
    if (redisUrl === undefined) return targetOptions(redisTarget, given).dialect;
    return withServer(redisUrl, timeoutSeconds, async (link) => (await detectDialect(link)).dialect);
}

/** Runs `use` on a connection to the server (read only), a lost server as a KvmodError, and closes it. */
async function withServer<T>(
    url: string,
    timeoutSeconds: number | undefined,
    use: (link: RedisLink) => Promise<T>,
): Promise<T> {
    const link = await connectRedis(url, { timeoutSeconds });
    try {
        return await use(link);
    } catch (error) {
        if (error instanceof RedisConnectionLost)
            throw new KvmodError(error.message, { code: error.code, cause: error });
        throw error;
    } finally {
        await link.close();
    }
}

/**
 * The design a server records for the new design's database — or, when it records none of that name but exactly one
 * of another, that one (the plan then shows the rename, which stops it); a KvmodError when it records none or another
 * dialect.
 */
async function recordedView(
    url: string,
    next: RedisViewModel,
    nextOrigin: string,
    timeoutSeconds?: number,
): Promise<RedisViewModel> {
    return withServer(url, timeoutSeconds, async (link) => {
        let view = await readDesignRecord(link, next.database);
        // A database rename switched to this design and has the old database still to remove: plan from that one.
        const renamedFrom = view === undefined ? null : await link.send(['GET', renamedDatabaseKey(next.database)]);
        const pending = renamedFrom == null ? undefined : await readDesignRecord(link, String(renamedFrom));
        if (pending !== undefined) view = pending;
        if (view === undefined) {
            const prefix = designRecordKey('');
            const others = (await scanKeys(link, `${prefix}*`)).map((key) => key.slice(prefix.length)).sort();
            if (others.length === 1) view = await readDesignRecord(link, others[0]!);
            else {
                const recorded =
                    others.length === 0
                        ? ''
                        : `; it records the databases ${others.join(', ')}: name one with \`database <name>\` in the model, or`;
                throw new KvmodError(
                    `${link.url} records no design of database ${next.database} (${nextOrigin}; kvmod load and kvmod migrate record it in ${designRecordKey(next.database)})${recorded || ';'} give the old design as a file`,
                    { code: 'redis.design-record' },
                );
            }
        }
        if (view === undefined) throw new Error('a design record vanished while it was read');
        if (view.dialect !== next.dialect) {
            throw new KvmodError(
                `${link.url} records a ${view.dialect} design of ${next.database}, but the new design is ${next.dialect}`,
                { code: 'redis.design-record' },
            );
        }
        return view;
    });
}

/** The sentence of a stable name that serves an index of neither design. */
export function foreignIndexReason(
    url: string,
    name: string,
    served: string,
    from: RedisViewModel,
    to: RedisViewModel,
) {
    const physical = (view: RedisViewModel) => view.collections.find((c) => c.name === name)?.physicalIndex ?? 'none';
    return `collection ${name} on ${url} is served by index ${served}, which is neither design's (old: ${physical(from)}, new: ${physical(to)}); is the old design the one on the server?`;
}

/**
 * What the server's stable names point at that neither design has, as sentences: the design the server records
 * (or the old one given) is then not the one it serves, and no plan from it is true. Read-only.
 */
async function foreignServedIndexes(
    url: string,
    from: RedisViewModel,
    to: RedisViewModel,
    timeoutSeconds?: number,
): Promise<string[]> {
    return withServer(url, timeoutSeconds, async (link) => {
        const known = new Set([...from.collections, ...to.collections].map((c) => c.physicalIndex));
        const seen = new Set<string>();
        const out: string[] = [];
        for (const c of [...from.collections, ...to.collections]) {
            if (seen.has(c.name)) continue;
            seen.add(c.name);
            const served = await servedIndex(link, c);
            if (served !== undefined && !known.has(served))
                out.push(foreignIndexReason(link.url, c.name, served, from, to));
        }
        return out;
    });
}

async function viewOf(design: RuntimeDesign, dialect: RedisDialect, given: RawOptionValues): Promise<RedisViewModel> {
    try {
        return await buildViewModel(redisTarget, design, { ...given, dialect });
    } catch (error) {
        if (!(error instanceof GenerationError)) throw error;
        throw new KvmodError(`cannot generate the Redis design of ${design.path}: ${error.message}`, {
            code: 'generation.failed',
            cause: error,
        });
    }
}

/**
 * Why a plan between two databases cannot run. The database's name is part of every entity key, of the entity
 * library's and its functions' names and of the design record's key, so a rename copies every entity: `migrate` does
 * it when the new model names its database itself, never when the name only follows a renamed file (keeping the name
 * is one line in the new model). With a data file the entities are not carried over at all.
 */
export function databaseRenameBlocker(from: MigrationSide, to: MigrationSide, data: boolean): string | null {
    const renames = `the new design renames the database ${from.view.database} (${from.databaseOrigin}) to ${to.view.database} (${to.databaseOrigin})`;
    const doc = 'docs/migrations.md, "The database\'s name"';
    if (!to.databaseNamed)
        return `${renames}, which follows from the file's name alone; migrate renames a database only when the new model declares the new name: to keep it, declare \`database ${from.view.database}\` in the new model; to rename it, declare \`database ${to.view.database}\` (${doc})`;
    if (data)
        return `${renames}; a rename carries the entities the server holds over to the new name, and --data takes the rows from a file instead: leave --data out (${doc})`;
    return null;
}

/**
 * Loads both designs and the data and plans the migration. Model errors are thrown (KvmodError); data that does not
 * fit the new design, or that it cannot serve, becomes a blocker of the plan: the migration cannot run.
 */
export async function loadMigrationDesigns(options: MigrationDesignOptions): Promise<MigrationDesigns> {
    const given = options.targetOptions ?? {};
    const toDesign = await loadRuntimeDesign(options.toPath, options);
    const to: MigrationSide = {
        path: options.toPath,
        design: toDesign,
        view: await viewOf(toDesign, options.dialect, given),
        databaseOrigin: describeDatabaseOrigin(toDesign.databaseOrigin),
        databaseNamed: toDesign.databaseOrigin.source !== 'file-name',
    };
    let from: MigrationSide;
    if (options.fromPath !== undefined) {
        const fromDesign = await loadRuntimeDesign(options.fromPath, options);
        from = {
            path: options.fromPath,
            design: fromDesign,
            view: await viewOf(fromDesign, options.dialect, given),
            databaseOrigin: describeDatabaseOrigin(fromDesign.databaseOrigin),
            databaseNamed: fromDesign.databaseOrigin.source !== 'file-name',
        };
    } else {
        if (options.redisUrl === undefined) throw new Error('the old design needs a file or a server');
        const view = await recordedView(options.redisUrl, to.view, to.databaseOrigin, options.timeoutSeconds);
        from = {
            path: options.redisUrl,
            view,
            databaseOrigin: `recorded on the server in ${designRecordKey(view.database)}`,
            databaseNamed: true,
        };
    }
    const givenRenames = options.renamed ?? [];
    if (givenRenames.length > 0 && options.dataPath !== undefined)
        throw new KvmodError(
            '--renamed carries attributes over in the entities the server holds, and --data takes the rows from a file instead (the entities are not migrated): give one or the other',
            { code: 'cli.option' },
        );
    const renames = parseRenames(givenRenames, from.view, to.view);
    const blockers: string[] = [];
    const renamesDatabase = from.view.database !== to.view.database;
    const renameRefused = renamesDatabase ? databaseRenameBlocker(from, to, options.dataPath !== undefined) : null;
    if (renamesDatabase) {
        if (renameRefused !== null) blockers.push(renameRefused);
        else if (renames.length > 0)
            blockers.push(
                `the new design renames the database ${from.view.database} to ${to.view.database} and attributes (--renamed): migrate one rename at a time (the database with the attributes' old names, then the attributes)`,
            );
    }
    let data: MigrationDesigns['data'] = null;
    if (options.dataPath !== undefined) {
        try {
            const instances = await readInstanceData(options.dataPath, toDesign.model);
            const problems = unservableValues(
                toDesign.model,
                instances,
                redisEngine.textRules(targetOptions(redisTarget, { ...given, dialect: options.dialect })),
                options.dataPath,
            );
            if (problems.length > 0) {
                blockers.push(
                    `${options.dataPath} holds values the new design cannot serve on ${options.dialect}:\n${problems.slice(0, 20).join('\n')}`,
                );
            } else {
                const rows = materializeModel(toDesign.kvlm, instances, indexInstanceData(toDesign.model, instances));
                data = { path: options.dataPath, data: instances, rows };
            }
        } catch (error) {
            if (!(error instanceof KvmodError)) throw error;
            // Typically: the new design needs an attribute the data lacks (a renamed or added attribute).
            blockers.push(`the data does not fit the new design: ${error.message}`);
        }
    }
    // The plan starts from what the server's stable names point at, not only from the design it records.
    if (options.redisUrl !== undefined)
        blockers.push(...(await foreignServedIndexes(options.redisUrl, from.view, to.view, options.timeoutSeconds)));
    const rows = data ? new Map(data.rows.map((c) => [c.name, c.rows.length])) : undefined;
    const source = options.dataPath === undefined ? 'entities' : 'data';
    const online = renamesDatabase && renameRefused === null && renames.length === 0 && source === 'entities';
    const plan = planMigration(from.view, to.view, rows, blockers, source, renames, online);
    if (online && options.redisUrl !== undefined) {
        // The keys the rename copies and removes, as the server holds them now.
        const keys = await withServer(options.redisUrl, options.timeoutSeconds, async (link) => {
            return (await scanKeys(link, `${entityRoot(from.view.database)}*`)).length;
        });
        for (const step of plan.steps)
            if (step.action === 'copy-database' || step.action === 'remove-database') step.rows = keys;
    }
    // Without a data file the new rows come from the server's entities: the plan says now what would stop that.
    const builtNames = new Set(
        plan.collections.filter((c) => c.change === 'added' || c.change === 'rebuilt').map((c) => c.name),
    );
    const built = to.view.collections.filter((c) => builtNames.has(c.name));
    if (source === 'entities' && (built.length > 0 || renames.length > 0 || online)) {
        const reason = entityMigrationBlocker(from.view, to.view, built, renames);
        if (reason !== null) plan.blockers.push(reason);
    }
    plan.database.origin = { from: from.databaseOrigin, to: to.databaseOrigin };
    return { from, to, data, plan, renames };
}
