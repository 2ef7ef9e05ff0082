/**
 * The action of `kvmod complete`: carries every pending entity change on the cluster (runtime/redis-core/
 * core-complete.ts) and says how many there were. Loaded by the command's handler only when it runs.
 */
import { completePendingChanges } from '../runtime/redis-core/core-complete.js';
import { singleModelArgument } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments of `kvmod complete`. */
export interface CompleteArgs extends TransformOptionArgs {
    model: string;
    redis: string;
    timeout?: number;
    pidm?: string;
}

/** Completes the pending changes; resolves to 0. */
export async function runCompleteCommand(args: CompleteArgs, io: CliIo = processIo): Promise<number> {
    args = { ...args, model: await singleModelArgument(args.model) };
    warnUnusedTransformOptions([args.model], args, io);
    const done = await completePendingChanges({
        modelPath: args.model,
        server: args.redis,
        timeoutSeconds: args.timeout,
        ...transformOptionsOf(args),
        pidm: args.pidm,
    });
    if (done.masters === 0) {
        io.out(`${done.server} is one server: every entity operation is one atomic call there, nothing is pending\n`);
        return 0;
    }
    io.out(
        `${done.records} pending ${done.records === 1 ? 'change' : 'changes'} of ${done.entities} ${done.entities === 1 ? 'entity' : 'entities'} completed on ${done.masters} masters (${done.server})${done.reverse > 0 ? `; ${done.reverse} reverse ${done.reverse === 1 ? 'entry' : 'entries'} no referrer holds cleared` : ''}\n`,
    );
    return 0;
}
