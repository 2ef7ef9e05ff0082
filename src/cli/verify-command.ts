/**
 * `kvmod verify <model> --data data.json --redis URL`: loads the data with the generated design, runs every
 * query for sampled parameters and compares the engine's answers with the oracle. Exit 0 only when all match.
 */
import type { Argv, CommandModule } from 'yargs';
import { verifyOnRedis } from '../runtime/runtime-actions.js';
import { formatVerdicts } from '../runtime/verify.js';
import { processIo, setExitCode, type CliIo } from './cli-io.js';
import { progressReporter, runtimeOptions, type LoadArgs } from './load-command.js';

/** The arguments of `kvmod verify`. */
export interface VerifyArgs extends Omit<LoadArgs, 'recreate'> {
    /** Parameter sets per query drawn from the data (plus one made up). */
    samples?: number;
    /** Seed of the sampling. */
    seed?: number;
}

/** Verifies; prints one table line per query; resolves to 0 when every query matches, 1 otherwise. */
export async function runVerify(args: VerifyArgs, io: CliIo = processIo): Promise<number> {
    const samples = args.samples ?? 10;
    const progress = progressReporter(io, 'loading');
    let result;
    try {
        result = await verifyOnRedis({
            modelPath: args.model,
            dataPath: args.data,
            redisUrl: args.redis,
            dialect: args.dialect,
            merge: args.merge,
            keyStrategy: args.keyStrategy,
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
        `loaded ${result.load.rows} rows into ${args.redis} (${result.dialect}); ${samples} parameter sets per query drawn from the data, plus one made up\n`,
    );
    io.out(formatVerdicts(result.verdicts) + '\n');
    return result.ok ? 0 : 1;
}

/** The yargs module of `kvmod verify`. */
export const verifyCommand: CommandModule<object, VerifyArgs> = {
    command: 'verify <model>',
    describe:
        "Load the data and check every query's generated command against the oracle (drops and recreates the design's indexes: use a scratch server)",
    builder: (yargs: Argv<object>) =>
        runtimeOptions(yargs)
            .option('samples', {
                describe: 'Parameter sets per query drawn from the data',
                type: 'number',
                default: 10,
            })
            .option('seed', { describe: 'Seed of the parameter sampling', type: 'number', default: 1 })
            .example(
                '$0 verify examples/airflights/airflights.pidm --data data.json --redis redis://127.0.0.1:6379 --merge safe',
                '',
            ) as unknown as Argv<VerifyArgs>,
    handler: async (args) => setExitCode(await runVerify(args)),
};
