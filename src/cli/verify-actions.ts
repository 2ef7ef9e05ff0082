/**
 * The action of `kvmod verify`: loads the data with the generated design, runs every query for sampled
 * parameters and compares the engine's answers with the oracle. Loaded by the command's handler only when
 * it runs (it pulls in Langium and node-redis).
 */
import { verifyOnRedis } from '../runtime/runtime-actions.js';
import { formatVerdicts } from '../runtime/verify.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions } from './target-options.js';
import { progressReporter, type RuntimeArgs } from './load-actions.js';
import { transformOptionsOf, warnUnusedTransformOptions } from './transform-options.js';

/** The arguments of `kvmod verify`. */
export interface VerifyArgs extends RuntimeArgs {
    /** Parameter sets per query drawn from the data (plus one made up). */
    samples?: number;
    /** Seed of the sampling. */
    seed?: number;
}

/** Verifies; prints one table line per query; resolves to 0 when every query matches, 1 otherwise. */
export async function runVerify(args: VerifyArgs, io: CliIo = processIo): Promise<number> {
    warnUnusedTransformOptions([args.model], args, io);
    const samples = args.samples ?? 10;
    const progress = progressReporter(io, 'loading');
    let result;
    try {
        result = await verifyOnRedis({
            modelPath: args.model,
            dataPath: args.data,
            redisUrl: args.redis,
            target: args.target,
            targetOptions: givenTargetOptions(args),
            ...transformOptionsOf(args),
            pidm: args.pidm,
            batchSize: args.batch,
            samples,
            seed: args.seed,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    io.err(
        `loaded ${result.load.rows} rows into ${args.redis} (${result.engine}); ${samples} parameter sets per query drawn from the data, plus one made up\n`,
    );
    io.out(formatVerdicts(result.verdicts) + '\n');
    return result.ok ? 0 : 1;
}
