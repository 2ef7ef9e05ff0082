/**
 * `kvmod load <model> --data data.json --redis URL`: creates the design's indexes and writes every row,
 * with exactly the commands the Redis generator describes. Idempotent with natural keys.
 */
import cliProgress from 'cli-progress';
import type { Argv, CommandModule } from 'yargs';
import type { KeyStrategyKind, MergePolicy } from '../../transformations/pidm-to-kvlm/index.js';
import { REDIS_DIALECTS, type RedisDialect } from '../generation/redis/redis-view-model.js';
import { formatCount } from '../runtime/redis-loader.js';
import { loadDataIntoRedis } from '../runtime/runtime-actions.js';
import { processIo, setExitCode, type CliIo } from './cli-io.js';

/** The arguments of `kvmod load`. */
export interface LoadArgs {
    /** A `.pidm` model (transformed on the fly) or a `.kvlm` design. */
    model: string;
    /** The instance data (JSON, see schemas/instance-data.md). */
    data: string;
    /** `redis://host:port`. */
    redis: string;
    /** Generate for this dialect instead of the one the server reports. */
    dialect?: RedisDialect;
    /** Drop an index whose schema differs (and its rows) instead of stopping. */
    recreate?: boolean;
    /** Merge policy of the transformation (for a `.pidm`). */
    merge?: MergePolicy;
    /** Key strategy of the transformation (for a `.pidm`). */
    keyStrategy?: KeyStrategyKind;
    /** The source PIDM of a `.kvlm` whose `source` does not name it. */
    pidm?: string;
    /** Rows per pipelined batch. */
    batch?: number;
}

/** A progress bar on a terminal, nothing otherwise. */
export function progressReporter(
    io: CliIo,
    label: string,
): { update: (done: number, total: number) => void; stop: () => void } {
    if (io !== processIo || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
    const bar = new cliProgress.SingleBar(
        {
            format: `${label} [{bar}] {value}/{total} rows {percentage}% eta {eta}s`,
            stream: process.stderr,
            hideCursor: true,
        },
        cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
        update: (done, total) => {
            if (!started) {
                bar.start(total, 0);
                started = true;
            }
            bar.update(done);
        },
        stop: () => {
            if (started) bar.stop();
        },
    };
}

/** Loads the data; resolves to the exit code (failures are thrown as KvmodError). */
export async function runLoad(args: LoadArgs, io: CliIo = processIo): Promise<number> {
    const progress = progressReporter(io, 'loading');
    let result;
    try {
        result = await loadDataIntoRedis({
            modelPath: args.model,
            dataPath: args.data,
            redisUrl: args.redis,
            dialect: args.dialect,
            recreate: args.recreate,
            merge: args.merge,
            keyStrategy: args.keyStrategy,
            pidm: args.pidm,
            batchSize: args.batch,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    for (const index of result.indexes) io.err(`index ${index.index}: ${index.action}\n`);
    for (const collection of result.collections) io.out(`${collection.name}: ${formatCount(collection.rows)} rows\n`);
    io.err(`loaded ${formatCount(result.rows)} rows into ${args.redis} (${result.dialect}, ${result.dialectSource})\n`);
    return 0;
}

/** Options shared by `load` and `verify`. */
export function runtimeOptions<T>(yargs: Argv<T>): Argv<T> {
    return yargs
        .positional('model', {
            describe: 'The model: .pidm (transformed on the fly) or .kvlm',
            type: 'string',
            demandOption: true,
        })
        .option('data', {
            describe: 'Instance data, JSON (see schemas/instance-data.md)',
            type: 'string',
            demandOption: true,
        })
        .option('redis', {
            describe: 'The server, redis://host:port (with RediSearch)',
            type: 'string',
            demandOption: true,
        })
        .option('dialect', {
            describe: 'RediSearch dialect (default: detected from MODULE LIST)',
            choices: REDIS_DIALECTS,
        })
        .option('merge', { describe: 'Merge policy for a .pidm model', choices: ['safe', 'paper', 'none'] as const })
        .option('key-strategy', {
            describe: 'Key strategy for a .pidm model',
            choices: ['natural', 'counter'] as const,
        })
        .option('pidm', { describe: 'The source .pidm of a .kvlm design (default: its `source`)', type: 'string' })
        .option('batch', { describe: 'Rows per pipelined batch', type: 'number', default: 2000 }) as unknown as Argv<T>;
}

/** The yargs module of `kvmod load`. */
export const loadCommand: CommandModule<object, LoadArgs> = {
    command: 'load <model>',
    describe: 'Create the indexes and write every row of the data into Redis (idempotent with natural keys)',
    builder: (yargs: Argv<object>) =>
        runtimeOptions(yargs)
            .option('recreate', {
                describe: 'Drop an index whose schema differs, with its rows, and create it anew',
                type: 'boolean',
                default: false,
            })
            .example(
                '$0 load examples/airflights/airflights.pidm --data data.json --redis redis://127.0.0.1:6379',
                '',
            ) as unknown as Argv<LoadArgs>,
    handler: async (args) => setExitCode(await runLoad(args)),
};
