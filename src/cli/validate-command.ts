/**
 * `kvmod validate <files..>`: parse, link and validate PIDM and KVLM files as one workspace and print
 * every diagnostic. The yargs metadata only; the handler loads `runValidate` (validate-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { ValidateArgs } from './validate-actions.js';

/** The yargs module of `kvmod validate`. */
export function validateCommand(context: CliContext): CommandModule<object, ValidateArgs> {
    return {
        command: 'validate <files..>',
        describe: 'Check .pidm and .kvlm files (loaded together: references across files resolve)',
        builder: (yargs: Argv<object>) =>
            yargs
                .positional('files', {
                    describe: 'Files or globs (quote globs: "models/**/*.pidm")',
                    type: 'string',
                    array: true,
                    default: undefined,
                })
                .option('format', {
                    describe: 'Output format: text lines, or a JSON array of diagnostics on stdout',
                    choices: ['text', 'json'] as const,
                    default: 'text' as const,
                })
                .example('$0 validate examples/airflights/airflights.pidm', 'Check the bundled example')
                .example(
                    '$0 validate "models/*.pidm" --format json',
                    'All models of a folder, as JSON',
                ) as unknown as Argv<ValidateArgs>,
        handler: (args) =>
            runAction(context, async (io) => (await import('./validate-actions.js')).runValidate(args, io)),
    };
}
