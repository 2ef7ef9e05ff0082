/**
 * `kvmod data generate|check|schema`: synthetic instance data for a model, checking a data file against a
 * model, and the JSON Schema of a model's data. The yargs metadata only; the handlers load data-actions.ts
 * when they run.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { DataCheckArgs, DataGenerateArgs } from './data-actions.js';
import { checkNumberOptions } from './number-options.js';
import { targetOptions } from './target-options.js';

const generate = (context: CliContext): CommandModule<object, DataGenerateArgs> => ({
    command: 'generate <model>',
    describe: 'Generate consistent synthetic instance data (deterministic for a seed)',
    builder: (yargs: Argv<object>) =>
        checkNumberOptions(yargs, { scale: 'count', seed: 'whole' })
            .positional('model', { describe: 'The .pidm model', type: 'string', demandOption: true })
            .option('scale', {
                describe:
                    "Objects per entity (default: the spec's scale, else 100); written as they are made, any scale whose value pools fit in memory",
                type: 'number',
                requiresArg: true,
            })
            .option('seed', {
                describe: "Seed of the generator (default: the spec's seed, else 1)",
                type: 'number',
                requiresArg: true,
            })
            .option('spec', {
                describe:
                    'A data spec (JSON): objects per entity, allowed values or ranges per attribute (docs/verify.md: Data spec)',
                type: 'string',
            })
            .option('output', { alias: 'o', describe: 'Output file (default: standard output)', type: 'string' })
            .example('$0 data generate examples/airflights/airflights.pidm --scale 200 --seed 7 -o data.json', '')
            .example(
                '$0 data generate ride.pidm --spec ride.data-spec.json -o data.json',
                '',
            ) as unknown as Argv<DataGenerateArgs>,
    handler: (args) => runAction(context, async (io) => (await import('./data-actions.js')).runDataGenerate(args, io)),
});

const check = (context: CliContext): CommandModule<object, DataCheckArgs> => ({
    command: 'check <model>',
    describe:
        'Check a data file against a model (schema, dangling and duplicate identifiers, values no query could find)',
    builder: (yargs: Argv<object>) =>
        // The target's design decides which values a query can find (schemas/instance-data.md).
        targetOptions(yargs, 'engine')
            .positional('model', { describe: 'The .pidm model', type: 'string', demandOption: true })
            .option('data', {
                describe: 'The JSON data file',
                type: 'string',
                demandOption: true,
            }) as unknown as Argv<DataCheckArgs>,
    handler: (args) => runAction(context, async (io) => (await import('./data-actions.js')).runDataCheck(args, io)),
});

const schema = (context: CliContext): CommandModule<object, { model: string }> => ({
    command: 'schema <model>',
    describe: "Print the JSON Schema of a model's instance data",
    builder: (yargs: Argv<object>) =>
        yargs.positional('model', {
            describe: 'The .pidm model',
            type: 'string',
            demandOption: true,
        }) as unknown as Argv<{ model: string }>,
    handler: (args) => runAction(context, async (io) => (await import('./data-actions.js')).runDataSchema(args, io)),
});

/** The yargs module of `kvmod data`. */
export function dataCommand(context: CliContext): CommandModule<object, object> {
    return {
        command: 'data <action>',
        describe: 'Instance data: generate synthetic data, check a data file, print the data schema',
        builder: (yargs: Argv<object>) =>
            yargs
                .command(generate(context))
                .command(check(context))
                .command(schema(context))
                .demandCommand(1, 'Name an action: generate, check or schema.'),
        handler: () => undefined,
    };
}
