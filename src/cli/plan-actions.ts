/**
 * The action of `kvmod plan`: loads both designs (and the data, when given), prints the plan as text or JSON. Exit
 * 1 when the plan cannot run online (the data does not fit the new design). Loaded only when the command runs.
 */
import {
    formatMigrationPlan,
    loadMigrationDesigns,
    migrationDialect,
} from '../runtime/redisearch/migration/migration-design.js';
import { KvmodError } from '../pipeline/errors.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments `plan` and `migrate` share. */
export interface MigrationArgs extends TransformOptionArgs, Partial<TargetArgs> {
    /** The design the server holds now; with `--redis` and no `new`, the design to move to. */
    old: string;
    /** The design to move to (absent: `old` is, and the old design is read back from `--redis`). */
    new?: string;
    /** The new design's instance data. */
    data?: string;
    /** The server. */
    redis?: string;
    /** Seconds to wait for the connection and each reply. */
    timeout?: number;
    /** The source PIDM of `.kvlm` designs. */
    pidm?: string;
    /** Renamed attributes, `<Entity>.<old>=<new>`. */
    renamed?: string[];
    /** The target's options, by name. */
    [targetOption: string]: unknown;
}

/** The arguments of `kvmod plan`. */
export interface PlanArgs extends MigrationArgs {
    /** `text` (default) or `json`. */
    format?: 'text' | 'json';
}

/** The design options of `plan` and `migrate` from their arguments (the dialect: given, detected, or the default). */
export async function migrationDesignOptions(args: MigrationArgs, io: CliIo) {
    const fromServer = args.new === undefined;
    if (fromServer && args.redis === undefined)
        throw new KvmodError(
            'give two designs, or one design and --redis (the old design is read back from the server)',
            {
                code: 'cli.option',
            },
        );
    const toPath = args.new ?? args.old;
    warnUnusedTransformOptions(fromServer ? [toPath] : [args.old, toPath], args, io);
    const targetOptions = givenTargetOptions(args);
    return {
        fromPath: fromServer ? undefined : args.old,
        toPath,
        redisUrl: args.redis,
        timeoutSeconds: args.timeout,
        dataPath: args.data,
        ...(await migrationDialect(args.target, targetOptions, args.redis, args.timeout)),
        targetOptions,
        ...transformOptionsOf(args),
        pidm: args.pidm,
        renamed: args.renamed,
    };
}

/** Prints the plan; resolves to 0, or 1 when it cannot run online. */
export async function runPlan(args: PlanArgs, io: CliIo = processIo): Promise<number> {
    const { plan } = await loadMigrationDesigns(await migrationDesignOptions(args, io));
    if (args.format === 'json') io.out(`${JSON.stringify(plan, null, 2)}\n`);
    else io.out(formatMigrationPlan(plan));
    if (plan.blockers.length > 0) {
        io.err(`kvmod: the migration cannot run online: ${plan.blockers[0]!.split('\n')[0]}\n`);
        return 1;
    }
    return 0;
}
