/**
 * The action of `kvmod complete`: the target's engine carries every pending entity change (`completePending` of the
 * engine contract) and says what it did. Loaded by the command's handler only when it runs.
 */
import { DEFAULT_TARGET } from '../generation/generation-targets.js';
import { checkedTarget } from '../pipeline/generate.js';
import { engineOf } from '../runtime/engine-registry.js';
import { loadRuntimeDesign } from '../runtime/runtime-design.js';
import { singleModelArgument } from './cli-files.js';
import { processIo, type CliIo } from './cli-io.js';
import { givenTargetOptions, type TargetArgs } from './target-options.js';
import { transformOptionsOf, warnUnusedTransformOptions, type TransformOptionArgs } from './transform-options.js';

/** The arguments of `kvmod complete`. */
export interface CompleteArgs extends TransformOptionArgs, Partial<TargetArgs> {
    model: string;
    redis: string;
    timeout?: number;
    pidm?: string;
    /** The target's options, by name, as `generate` takes them. */
    [targetOption: string]: unknown;
}

/** Completes the pending changes; resolves to 0. */
export async function runCompleteCommand(args: CompleteArgs, io: CliIo = processIo): Promise<number> {
    args = { ...args, model: await singleModelArgument(args.model) };
    warnUnusedTransformOptions([args.model], args, io);
    const target = checkedTarget(args.target ?? DEFAULT_TARGET, givenTargetOptions(args));
    const engine = await engineOf(target);
    const complete = engine.use((typed) => typed.completePending?.bind(typed));
    if (complete === undefined) {
        io.out(
            `the ${target.name} design leaves nothing pending: each of its entity operations is one atomic call, or is completed by the next operation and by kvmod load\n`,
        );
        return 0;
    }
    const design = await loadRuntimeDesign(args.model, { ...transformOptionsOf(args), pidm: args.pidm });
    io.out(`${await complete(design, { server: args.redis, timeoutSeconds: args.timeout })}\n`);
    return 0;
}
