/**
 * `kvmod generate <inputs..> --target <name>`: generate a target's files for each model (`.kvlm`, or `.pidm`
 * transformed first). The target options' flags come from the targets' declarations (target-options.ts).
 * The yargs metadata only; the handler loads `runGenerate` (generate-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_TARGET } from '../generation/generation-targets.js';
import { runAction, type CliContext } from './cli-command.js';
import type { GenerateArgs } from './generate-actions.js';
import { timeoutOption } from './load-command.js';
import { targetOptions } from './target-options.js';
import { transformOptions } from './transform-options.js';

/** The yargs module of `kvmod generate`. */
export function generateCommand(context: CliContext): CommandModule<object, GenerateArgs> {
    return {
        command: 'generate <inputs..>',
        describe: "Generate a target's files from .kvlm models, or .pidm models through the transformation",
        builder: (yargs: Argv<object>) =>
            transformOptions(
                timeoutOption(
                    targetOptions(yargs, 'all')
                        .positional('inputs', {
                            describe: 'Model files or globs (.kvlm, .pidm; quote globs)',
                            type: 'string',
                            array: true,
                            default: undefined,
                        })
                        .option('out', {
                            alias: 'o',
                            describe:
                                'Output root: files go to <out>/<database>/<target>/, and into a subfolder per value for an option that names one (kvmod templates list)',
                            type: 'string',
                            default: 'generated',
                        })
                        .option('templates', {
                            describe: 'A folder of templates overriding the built-ins by relative file name',
                            type: 'string',
                        })
                        .option('dump-view-model', {
                            describe:
                                'Print the view model the templates receive (one JSON document per model) instead of generating',
                            type: 'boolean',
                        })
                        .option('redis', {
                            describe:
                                "Generate for the dialect this Redis server speaks (asked with MODULE LIST; a target option given that differs is an error); without a URL: the config's redis or REDIS_URL",
                            type: 'string',
                        })
                        .option('format', {
                            describe:
                                'text: diagnostics, progress and a summary; json: one JSON object on standard output (per model: files written, diagnostics, error)',
                            choices: ['text', 'json'] as const,
                            default: 'text' as const,
                        })
                        .check((argv) =>
                            argv.dumpViewModel && argv.format === 'json'
                                ? '--dump-view-model prints JSON already: give it without --format json'
                                : true,
                        ),
                    'Seconds to wait for the --redis server to accept the connection, and for each reply',
                ),
            )
                .example(
                    `$0 generate examples/airflights/airflights.pidm --target ${DEFAULT_TARGET} -o out`,
                    "The default target's files, with its defaults",
                )
                .example('$0 generate "models/*.kvlm" --templates my-templates', 'Every model, with own templates')
                .example(
                    '$0 generate ride.pidm --redis redis://127.0.0.1:6379',
                    'For the dialect that server speaks',
                ) as unknown as Argv<GenerateArgs>,
        handler: (args) =>
            runAction(context, async (io) =>
                (await import('./generate-actions.js')).runGenerate(args, io, undefined, context.config?.redis),
            ),
    };
}
