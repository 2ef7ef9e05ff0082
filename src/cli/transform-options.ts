/**
 * The transformation options every command that turns a `.pidm` into KVLM accepts (`transform`, `generate`,
 * `load`, `verify`): described once, checked once (a bad value is a usage error, exit 2), and passed to
 * `transformFiles` the same way everywhere. Light on purpose: `kvmod --help` loads this module.
 */
import type { Argv } from 'yargs';
import {
    checkTransformOptions,
    DEFAULT_TRANSFORM_OPTIONS,
    KEY_STRATEGIES,
    MERGE_POLICIES,
    type KeyStrategyKind,
    type MergePolicy,
    type TransformOptions,
} from '../../transformations/pidm-to-kvlm/options.js';
import type { CliIo } from './cli-io.js';

/** The transformation options as a command receives them; absent means "not given" (the default applies). */
export interface TransformOptionArgs {
    /** Algorithm 3's threshold, in (0, 1]. */
    threshold?: number;
    /** Merge policy. */
    merge?: MergePolicy;
    /** Key strategy. */
    key?: KeyStrategyKind;
}

/** Appended to every description: a `.kvlm` input is already transformed. */
const KVLM_NOTE = '(.pidm only; ignored for a .kvlm)';

/**
 * Adds `--threshold`, `--merge` and `--key` to a command. The defaults are shown in the help but not filled
 * in, so that a command can tell an option the user gave (and warn when it does not apply) from a default.
 */
export function transformOptions<T>(yargs: Argv<T>): Argv<T & TransformOptionArgs> {
    return (
        yargs
            .option('threshold', {
                describe: `Merge two collections when common/n1 >= t and common/n2 >= t (non-key fields); t in (0, 1] ${KVLM_NOTE}`,
                type: 'number',
                requiresArg: true,
            })
            .default('threshold', undefined, String(DEFAULT_TRANSFORM_OPTIONS.threshold))
            .option('merge', {
                describe: `safe: merge only collections whose rows have the same grain; paper: the paper's literal rule (answers may change); none: never merge; cost: merge by the cost of the design under the model's workload (grain-safe merges only) ${KVLM_NOTE}`,
                choices: MERGE_POLICIES,
            })
            .default('merge', undefined, DEFAULT_TRANSFORM_OPTIONS.merge)
            .option('key', {
                describe: `Row keys: natural (the identifiers along the row's path) or counter (INCR per collection) ${KVLM_NOTE}`,
                choices: KEY_STRATEGIES,
            })
            .default('key', undefined, DEFAULT_TRANSFORM_OPTIONS.keyStrategy)
            // A bad threshold is bad usage, like an invalid choice: reported with the usage text, exit 2.
            .check(
                (argv) => checkTransformOptions({ threshold: argv.threshold as number | undefined }) ?? true,
            ) as unknown as Argv<T & TransformOptionArgs>
    );
}

/** The options to hand to `transformFiles` (or anything built on it); absent ones take the defaults there. */
export function transformOptionsOf(
    args: TransformOptionArgs,
): Partial<Pick<TransformOptions, 'threshold' | 'merge' | 'keyStrategy'>> {
    return { threshold: args.threshold, merge: args.merge, keyStrategy: args.key };
}

/** The transformation options the user gave, as flags (`--threshold`, …). */
export function givenTransformOptions(args: TransformOptionArgs): string[] {
    const given: string[] = [];
    if (args.threshold !== undefined) given.push('--threshold');
    if (args.merge !== undefined) given.push('--merge');
    if (args.key !== undefined) given.push('--key');
    return given;
}

/** Warns once per `.kvlm` input when transformation options were given: they cannot change a finished design. */
export function warnUnusedTransformOptions(inputs: readonly string[], args: TransformOptionArgs, io: CliIo): void {
    const given = givenTransformOptions(args);
    if (given.length === 0) return;
    for (const input of inputs) {
        if (!input.toLowerCase().endsWith('.kvlm')) continue;
        const options = given.join(', ');
        io.err(
            `kvmod: warning: ${options} ${given.length === 1 ? 'applies' : 'apply'} to .pidm models only; ignored for ${input}\n`,
        );
    }
}
