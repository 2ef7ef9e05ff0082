/**
 * The action of `kvmod migrate`: runs the migration and reports each step it performed (or that there was nothing
 * to do). Loaded only when the command runs.
 */
import { formatCount } from '../runtime/format-count.js';
import { migrateOnRedis, type MigrationStepEvent } from '../runtime/redisearch/migration/migration-run.js';
import { redactRedisUrl } from '../runtime/redis-connection/redis-url.js';
import { processIo, type CliIo } from './cli-io.js';
import { progressReporter } from './load-actions.js';
import { migrationDesignOptions, type MigrationArgs } from './plan-actions.js';

/** The arguments of `kvmod migrate`. */
export interface MigrateArgs extends MigrationArgs {
    /** The new design's data; absent: the new rows come from the entities the server holds. */
    data?: string;
    redis: string;
    /** Rows per pipelined batch. */
    batch?: number;
}

/** One performed step as a line. */
export function describePerformedStep(step: MigrationStepEvent): string {
    switch (step.action) {
        case 'create-index':
            return `created index ${step.indexes[0]} for ${step.collections[0]}`;
        case 'write-both': {
            const also = (step.renamed ?? []).map((r) => `${r.entity}.${r.from} also as ${r.entity}.${r.to}`);
            if (step.database !== undefined) also.push(`every entity under database ${step.database.to}'s keys`);
            if (step.indexes.length === 0) return `entity operations now write ${also.join(', ')}`;
            return `entity operations now write ${step.indexes.join(', ')} too${also.length > 0 ? `, and ${also.join(', ')}` : ''}`;
        }
        case 'copy-database':
            return `copied ${formatCount(step.rows)} keys of database ${step.database!.from} under ${step.database!.to}'s keys`;
        case 'remove-database':
            return `removed database ${step.database!.from}: ${formatCount(step.rows)} keys and its design record`;
        case 'copy-attribute':
            return `copied ${renamedNames(step, 'from')} to ${renamedNames(step, 'to')} in ${formatCount(step.rows)} ${step.collections[0]} entities`;
        case 'remove-attribute':
            return `removed ${renamedNames(step, 'from')} from ${formatCount(step.rows)} ${step.collections[0]} entities (hash fields ${step.indexes.join(', ')}): the new design reads ${renamedNames(step, 'to')}`;
        case 'write-rows':
            return `wrote ${formatCount(step.rows)} rows into ${step.indexes[0]}${step.source === 'entities' ? " from the server's entities" : ''}`;
        case 'remove-companions':
            return `removed ${formatCount(step.rows)} companion fields (${step.indexes.join(', ')}) the new design does not keep from the ${step.collections[0]} entities`;
        case 'switch':
            if (step.collections.length === 0) return 'switched the entity library and the design record';
            return `switched ${step.collections.map((c, i) => `${c} -> ${step.indexes[i]}`).join(', ')}`;
        case 'remove-name':
            return `removed the stable name ${step.collections[0]}`;
        case 'drop-index':
            return `dropped index ${step.indexes[0]} with its rows`;
    }
}

/** `Book.title, Book.subtitle`: the old (or new) names of a step's renamed attributes. */
function renamedNames(step: MigrationStepEvent, side: 'from' | 'to'): string {
    return (step.renamed ?? []).map((r) => `${r.entity}.${r[side]}`).join(', ');
}

/** Migrates; prints each step performed; resolves to 0 (failures are thrown as KvmodError). */
export async function runMigrate(args: MigrateArgs, io: CliIo = processIo): Promise<number> {
    const options = await migrationDesignOptions(args, io);
    const progress = await progressReporter(io, 'migrating');
    let result;
    try {
        result = await migrateOnRedis({
            ...options,
            dataPath: args.data,
            redisUrl: args.redis,
            timeoutSeconds: args.timeout,
            batchSize: args.batch,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    const { to } = result.designs;
    io.out(`database ${to.view.database}: ${to.databaseOrigin}\n`);
    for (const step of result.performed) io.out(`${describePerformedStep(step)}\n`);
    io.err(`${migrationSummary(redactRedisUrl(args.redis), options.toPath, result.engine, result.performed.length)}\n`);
    return 0;
}

/** The last line of a migration: nothing to do, or how many steps moved the server to the design. */
export function migrationSummary(server: string, toPath: string, engine: string, steps: number): string {
    if (steps === 0) return `nothing to do: ${server} already serves ${toPath} (${engine})`;
    return `migrated ${server} to ${toPath} (${engine}): ${formatCount(steps)} step${steps === 1 ? '' : 's'}`;
}
