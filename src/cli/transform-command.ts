/**
 * `kvmod transform <model.pidm..>`: PIDM → KVLM (Algorithms 1–3), written as `<dir>/<model>.kvlm` (or
 * `.kvlm.json`) after the printed model has been parsed back and validated. `--explain` prints the
 * merge decisions as a table. The yargs module is a thin shell over `runTransform`, which tests call.
 */
import { dirname, join, relative, basename, extname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { kvlmToJson } from '../language/kvlm/kvlm-json.js';
import { formatDiagnostic } from '../pipeline/load.js';
import { explainDecisions, transformFiles, writeFileAtomically } from '../pipeline/transform.js';
import {
    checkTransformOptions,
    KEY_STRATEGIES,
    MERGE_POLICIES,
    type KeyStrategyKind,
    type MergePolicy,
} from '../../transformations/pidm-to-kvlm/index.js';
import { expandFileArguments } from './cli-files.js';
import { processIo, setExitCode, type CliIo } from './cli-io.js';

/** The arguments of `kvmod transform`. */
export interface TransformArgs {
    /** PIDM files or globs, loaded as one model; the output is named after the first. */
    models: string[];
    /** Output folder (default: the first model's folder). */
    out?: string;
    /** Algorithm 3's threshold, in (0, 1]. */
    threshold?: number;
    /** Merge policy. */
    merge?: MergePolicy;
    /** Key strategy. */
    key?: KeyStrategyKind;
    /** Print the merge decisions as a table on stdout. */
    explain?: boolean;
    /** `kvlm` (text, default) or `json`. */
    format?: 'kvlm' | 'json';
}

/** Transforms and writes; resolves to the exit code (0 written, 1 model errors, 2 bad option). */
export async function runTransform(args: TransformArgs, io: CliIo = processIo): Promise<number> {
    const problem = checkTransformOptions({ threshold: args.threshold, merge: args.merge, keyStrategy: args.key });
    if (problem) {
        io.err(`kvmod: ${problem}\n`);
        return 2;
    }
    const paths = await expandFileArguments(args.models);
    const first = paths[0];
    const outDir = args.out ?? dirname(first);
    const format = args.format ?? 'kvlm';
    const target = join(outDir, `${basename(first, extname(first))}.${format === 'json' ? 'kvlm.json' : 'kvlm'}`);
    // `source` is read relative to the .kvlm file (the runtime finds the PIDM through it).
    const sourceName = relative(outDir, first).split('\\').join('/');
    const result = await transformFiles(paths, {
        threshold: args.threshold,
        merge: args.merge,
        keyStrategy: args.key,
        sourceName,
    });
    for (const diagnostic of result.diagnostics) io.err(formatDiagnostic(diagnostic) + '\n');
    if (!result.kvlm || result.kvlmText === undefined) {
        const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
        io.err(`kvmod: ${first} has ${errors} error${errors === 1 ? '' : 's'}; nothing written\n`);
        return 1;
    }
    for (const warning of result.warnings) io.err(`kvmod: warning: ${warning}\n`);
    const text = format === 'json' ? JSON.stringify(kvlmToJson(result.kvlm), null, 2) + '\n' : result.kvlmText;
    await writeFileAtomically(target, text);
    if (args.explain) io.out(explainDecisions(result.decisions, result.options));
    const merges = result.decisions.filter((decision) => decision.result !== undefined).length;
    const refused = result.decisions.length - merges;
    io.err(
        `wrote ${target} (${result.kvlm.collections.length} collection${result.kvlm.collections.length === 1 ? '' : 's'}, ` +
            `${merges} merge${merges === 1 ? '' : 's'}, ${refused} refused)\n`,
    );
    return 0;
}

/** The yargs module of `kvmod transform`. */
export const transformCommand: CommandModule<object, TransformArgs> = {
    command: 'transform <models..>',
    describe: 'Transform a PIDM model into a KVLM key-value logical model (Algorithms 1-3 of the paper)',
    builder: (yargs: Argv<object>) =>
        yargs
            .positional('models', {
                describe: 'PIDM files or globs, loaded as one model (the output is named after the first)',
                type: 'string',
                array: true,
                default: undefined,
            })
            .option('out', { alias: 'o', describe: "Output folder (default: the model's folder)", type: 'string' })
            .option('threshold', {
                describe: 'Merge two collections when common/n1 >= t and common/n2 >= t (non-key fields); t in (0, 1]',
                type: 'number',
                default: 0.8,
            })
            .option('merge', {
                describe:
                    'safe: only pairs whose rows have the same grain; paper: the literal rule (answers may change); none: never',
                choices: MERGE_POLICIES,
                default: 'safe' as MergePolicy,
            })
            .option('key', {
                describe: 'Row keys: natural (identifiers along the row path) or counter (INCR per collection)',
                choices: KEY_STRATEGIES,
                default: 'natural' as KeyStrategyKind,
            })
            .option('explain', {
                describe: 'Print the merge decisions as a table on stdout',
                type: 'boolean',
                default: false,
            })
            .option('format', {
                describe: 'Output: .kvlm text or .kvlm.json',
                choices: ['kvlm', 'json'] as const,
                default: 'kvlm' as const,
            })
            .example(
                '$0 transform examples/airflights/airflights.pidm --explain',
                'Write examples/airflights/airflights.kvlm and show the merges',
            )
            .example(
                '$0 transform model.pidm -o out --merge paper --threshold 0.9',
                "The paper's literal merge rule at 90%",
            ) as unknown as Argv<TransformArgs>,
    handler: async (args) => {
        setExitCode(await runTransform(args));
    },
};
