/**
 * `kvmod transform <model.pidm..>`: PIDM → KVLM (Algorithms 1–3), written next to the model or into `--out`.
 * The yargs metadata only; the handler loads `runTransform` (transform-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { TransformArgs } from './transform-actions.js';
import { transformOptions } from './transform-options.js';

/** The yargs module of `kvmod transform`. */
export function transformCommand(context: CliContext): CommandModule<object, TransformArgs> {
    return {
        command: 'transform <models..>',
        describe: 'Transform a PIDM model into a KVLM key-value logical model (Algorithms 1-3 of the paper)',
        builder: (yargs: Argv<object>) =>
            transformOptions(
                yargs
                    .positional('models', {
                        describe: 'PIDM files or globs, loaded as one model (the output is named after the first)',
                        type: 'string',
                        array: true,
                        default: undefined,
                    })
                    .option('out', {
                        alias: 'o',
                        describe: "Output folder (default: the model's folder)",
                        type: 'string',
                    }),
            )
                .option('explain', {
                    describe:
                        'Print the merge decisions, and the closest pairs below the threshold, as tables on stdout',
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
        handler: (args) =>
            runAction(context, async (io) => (await import('./transform-actions.js')).runTransform(args, io)),
    };
}
