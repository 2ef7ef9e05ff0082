/**
 * The action of `kvmod load`: creates the design's indexes and writes every row, with exactly the commands
 * the Redis generator describes; idempotent with natural keys. Loaded by the command's handler only when it
 * runs (it pulls in Langium and node-redis).
 */
import { describeIds } from '../runtime/engine.js';
import { formatCount } from '../runtime/format-count.js';
import { loadIntoEngine } from '../runtime/runtime-actions.js';
import { singleModelArgument } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments `kvmod load` and `kvmod verify` share (`--data`: see `RuntimeArgs`). */
export interface ServerArgs extends TransformOptionArgs, Partial<TargetArgs> {
    /** A `.pidm` model (transformed on the fly with the transformation options) or a `.kvlm` design. */
    model: string;
    /** `redis://host:port` (or `rediss://`, with `user:password@`). */
    redis: string;
    /** Seconds to wait for the connection and for each reply. */
    timeout?: number;
    /** The source PIDM of a `.kvlm` whose `source` does not name it. */
    pidm?: string;
    /** Rows per pipelined batch. */
    batch?: number;
    /** The target's options, by name, as `generate` takes them. */
    [targetOption: string]: unknown;
}

/** The arguments of a command that reads instance data. */
export interface RuntimeArgs extends ServerArgs {
    /** The instance data (JSON, see schemas/instance-data.md). */
    data: string;
}

/** The arguments of `kvmod load`. */
export interface LoadArgs extends RuntimeArgs {
    /** Drop an index whose schema differs (and its rows) instead of stopping. */
    recreate?: boolean;
    /** Remove the entities the server holds that the data lacks (and their rows) instead of stopping. */
    sync?: boolean;
}

/**
 * A progress bar on a terminal, nothing otherwise (cli-progress is loaded only for a terminal). Without a terminal
 * `update` is absent: a load then never counts its rows ahead (which would make every collection's bindings before the
 * first write).
 */
export async function progressReporter(
    io: CliIo,
    label: string,
    unit = 'rows',
): Promise<{ update?: (done: number, total: number) => void; stop: () => void }> {
    if (io !== processIo || !process.stderr.isTTY) return { update: undefined, stop: () => undefined };
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar(
        {
            format: `${label} [{bar}] {value}/{total} ${unit} {percentage}% eta {eta}s`,
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
    // A folder or glob (the config's `models`) stands for the one model in it.
    args = { ...args, model: await singleModelArgument(args.model) };
    warnUnusedTransformOptions([args.model], args, io);
    const progress = await progressReporter(io, 'loading');
    let result;
    try {
        result = await loadIntoEngine({
            modelPath: args.model,
            dataPath: args.data,
            server: args.redis,
            target: args.target,
            targetOptions: givenTargetOptions(args),
            timeoutSeconds: args.timeout,
            recreate: args.recreate,
            sync: args.sync,
            ...transformOptionsOf(args),
            pidm: args.pidm,
            batchSize: args.batch,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    for (const object of result.schema) io.err(`${object.object} ${object.name}: ${object.action}\n`);
    const entities = result.entities;
    if (entities !== undefined) {
        for (const removed of entities.removed)
            io.err(`removed ${describeIds(removed)}: the data lacks ${removed.ids.length === 1 ? 'it' : 'them'}\n`);
        if (entities.rowsDeleted > 0)
            io.err(`deleted ${formatCount(entities.rowsDeleted)} rows no entity implies any more\n`);
        io.err(
            `entity store: ${formatCount(entities.written)} ${entities.written === 1 ? 'entity' : 'entities'} written (new or changed)\n`,
        );
    }
    for (const collection of result.collections) io.out(`${collection.name}: ${formatCount(collection.rows)} rows\n`);
    io.err(`loaded ${formatCount(result.rows)} rows into ${result.server} (${result.engine})\n`);
    return 0;
}
