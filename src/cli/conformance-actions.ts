/**
 * The action of `kvmod conformance`: the verify matrix over the shipped examples on one server, printed as one
 * table. Loaded by the command's handler only when it runs.
 */
import { basename } from 'node:path';
import { KvmodError } from '../pipeline/errors.js';
import { formatConformance, runConformance } from '../runtime/conformance.js';
import { redactRedisUrl } from '../runtime/redis-connection/redis-url.js';
import { processIo, type CliIo } from './cli-io.js';
import { numberOptionProblem } from './number-options.js';

/** The arguments of `kvmod conformance`. */
export interface ConformanceArgs {
    redis: string;
    /** The target whose design is verified (default: the default target). */
    target?: string;
    scale?: number;
    seeds?: number[];
    samples?: number;
    timeout?: number;
}

/** Runs the matrix; prints the table on standard output and progress on standard error; 0 when all match. */
export async function runConformanceCommand(args: ConformanceArgs, io: CliIo = processIo): Promise<number> {
    const scale = args.scale ?? 40;
    const seeds = args.seeds ?? [1, 2, 3];
    // The command line checks these when it parses them; a caller of the action may not have.
    for (const problem of [numberOptionProblem('scale', scale, 'count'), numberOptionProblem('seeds', seeds, 'whole')])
        if (problem) throw new KvmodError(problem, { code: 'cli.option' });
    const name = (path: string) => basename(path, '.pidm');
    const result = await runConformance({
        server: args.redis,
        target: args.target,
        scale,
        seeds,
        samples: args.samples,
        timeoutSeconds: args.timeout,
        onRun: (run, done, total) =>
            io.err(
                `${done}/${total} ${name(run.model)} merge ${run.merge}, key ${run.key}, seed ${run.seed}: ${run.differ === 0 ? 'match' : `${run.differ} queries differ`}\n`,
            ),
    });
    io.err(`conformance on ${redactRedisUrl(args.redis)} (${result.variant ?? 'no run'}, detected), scale ${scale}\n`);
    io.out(formatConformance(result, name) + '\n');
    return result.ok ? 0 : 1;
}
