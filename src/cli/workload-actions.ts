/**
 * The action of `kvmod workload`: runs the workload on the server (runtime/entities/workload-engine.ts) and reports
 * it; a difference exits 1 with the shrunk sequence (JSON, one operation a line, replayable). Loaded by the
 * command's handler only when it runs (it pulls in Langium and node-redis).
 */
import { jsonNumbers, operationsJson, type WorkloadReport } from '../runtime/entities/workload.js';
import { runWorkloadOnEngine } from '../runtime/redis-entities/workload-engine.js';
import { singleModelArgument } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { progressReporter } from './load-actions.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments of `kvmod workload`. */
export interface WorkloadArgs extends TransformOptionArgs, Partial<TargetArgs> {
    model: string;
    redis: string;
    timeout?: number;
    pidm?: string;
    ops?: number;
    seed?: number;
    writers?: number;
    checkEvery?: number;
    ids?: number;
    shrink?: boolean;
    format?: 'text' | 'json';
    /** The target's options, by name, as `generate` takes them. */
    [targetOption: string]: unknown;
}

/** What `kvmod workload --format json` prints. */
export interface WorkloadOutput extends WorkloadReport {
    model: string;
    target: string;
    engine: string;
    warnings: string[];
    ok: boolean;
}

/** Runs the workload; resolves to 0 when nothing differed, 1 otherwise. */
export async function runWorkloadCommand(args: WorkloadArgs, io: CliIo = processIo): Promise<number> {
    args = { ...args, model: await singleModelArgument(args.model) };
    warnUnusedTransformOptions([args.model], args, io);
    const operations = args.ops ?? 1000;
    const progress = await progressReporter(io, 'workload', 'operations');
    let result;
    try {
        result = await runWorkloadOnEngine({
            modelPath: args.model,
            server: args.redis,
            target: args.target,
            targetOptions: givenTargetOptions(args),
            timeoutSeconds: args.timeout,
            ...transformOptionsOf(args),
            pidm: args.pidm,
            operations,
            seed: args.seed ?? 1,
            writers: args.writers === 2 ? 2 : 1,
            checkEvery: args.checkEvery ?? 50,
            idsPerEntity: args.ids,
            shrink: args.shrink,
            onProgress: progress.update,
        });
    } finally {
        progress.stop();
    }
    const { report } = result;
    const ok = report.failure === undefined;
    if (args.format === 'json') {
        const output: WorkloadOutput = {
            model: args.model,
            target: result.target,
            engine: result.engine,
            warnings: result.warnings,
            ...report,
            ok,
        };
        io.out(JSON.stringify(output, jsonNumbers, 2) + '\n');
        return ok ? 0 : 1;
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    const refused = Object.values(report.intents).reduce((sum, tally) => sum + tally.refused, 0);
    io.err(
        `${report.operations} operations (${refused} refused) by ${report.writers} ${report.writers === 1 ? 'writer' : 'writers'} on ${result.server} (${result.engine}), seed ${report.seed}; ${report.checks} live checks${report.writers === 1 ? `, ${report.refusalsDigested} refusals digested` : ''}\n`,
    );
    const failure = report.failure;
    if (failure === undefined) {
        io.out(`0 differences\n`);
        return 0;
    }
    io.err(`kvmod: the workload differs (${failure.kind}) after ${failure.after} operations:\n`);
    for (const detail of failure.details) io.err(`  ${detail}\n`);
    io.err(
        failure.shrinking === 'shrunk'
            ? `shrunk to ${failure.shrunk.length} of ${failure.ran} operations (replayed by one writer on the emptied server, which it leaves as they leave it):\n`
            : failure.shrinking === 'off'
              ? `the ${failure.ran} operations that ran, as the server finished them (--no-shrink):\n`
              : `not reproduced by one writer on the emptied server: the ${failure.ran} operations as the server finished them:\n`,
    );
    io.out(operationsJson(failure.shrunk) + '\n');
    return 1;
}
