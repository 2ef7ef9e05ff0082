/**
 * `kvmod generate <inputs..> --target redis`: generate a target's files for each model (`.kvlm`, or `.pidm`
 * transformed first). The yargs metadata only; the handler loads `runGenerate` (generate-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { generationTargets } from '../generation/generation-targets.js';
import { runAction, type CliContext } from './cli-command.js';
import type { GenerateArgs } from './generate-actions.js';
import { transformOptions } from './transform-options.js';

/** The yargs module of `kvmod generate`. */
export function generateCommand(context: CliContext): CommandModule<object, GenerateArgs> {
    return {
        command: 'generate <inputs..>',
        describe: 'Generate target files (Redis scripts) from .kvlm models, or .pidm models through the transformation',
        builder: (yargs: Argv<object>) =>
            transformOptions(
                yargs
                    .positional('inputs', {
                        describe: 'Model files or globs (.kvlm, .pidm; quote globs)',
                        type: 'string',
                        array: true,
                        default: undefined,
                    })
                    .option('target', {
                        alias: 't',
                        describe: 'The target',
                        choices: [...generationTargets.keys()],
                        default: 'redis',
                    })
                    .option('out', {
                        alias: 'o',
                        describe: 'Output root: files go to <out>/<model>/<target>/',
                        type: 'string',
                        default: 'generated',
                    })
                    .option('dialect', {
                        describe:
                            'Redis: redisearch2 (RediSearch 2.x+, Redis Stack, Redis 8) or redisearch1 (RediSearch 1.2)',
                        type: 'string',
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
                    .option('db-prefix', {
                        describe: 'Prefix index names and keys with the database name (<db>_<collection>)',
                        type: 'boolean',
                    })
                    .option('limit', {
                        describe: "The page size: the default count of every query's LIMIT $offset $count",
                        type: 'number',
                    }),
            )
                .example(
                    '$0 generate examples/airflights/airflights.pidm --target redis -o out',
                    'Redis scripts for RediSearch 2.x+',
                )
                .example(
                    '$0 generate "models/*.kvlm" --dialect redisearch1 --templates my-templates',
                    'RediSearch 1.2, own templates',
                ) as unknown as Argv<GenerateArgs>,
        handler: (args) =>
            runAction(context, async (io) => (await import('./generate-actions.js')).runGenerate(args, io)),
    };
}
