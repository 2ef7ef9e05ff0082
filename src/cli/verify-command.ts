/**
 * `kvmod verify <model> --data data.json --redis URL`: loads the data with the generated design and checks
 * every query against the oracle; exit 0 only when all match. The yargs metadata only; the handler loads
 * `runVerify` (verify-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import { runtimeOptions } from './load-command.js';
import { checkNumberOptions } from './number-options.js';
import type { VerifyArgs } from './verify-actions.js';

/** The yargs module of `kvmod verify`. */
export function verifyCommand(context: CliContext): CommandModule<object, VerifyArgs> {
    return {
        command: 'verify <model>',
        describe:
            "Load the data and check every query's generated command against the oracle (drops and recreates the design's indexes: use a scratch server); --live checks a server as it is, read-only",
        builder: (yargs: Argv<object>) =>
            checkNumberOptions(
                runtimeOptions(yargs, {
                    describe: 'Instance data, JSON (see schemas/instance-data.md); not with --live',
                    required: false,
                }),
                { samples: 'count', seed: 'whole' },
            )
                .option('live', {
                    describe:
                        'Check the server as it is, read-only: read the entities back, compare every row, index entry and reverse reference with what they imply, key for key, and run every query against the oracle over them (no data file, no load, no drop)',
                    type: 'boolean',
                    default: false,
                })
                .check((argv) =>
                    argv.live
                        ? argv.data === undefined
                            ? true
                            : '--live reads the entities from the server: give no --data'
                        : argv.data !== undefined
                          ? true
                          : 'Missing required argument: data (or --live to check the server as it is)',
                )
                .option('samples', {
                    describe: 'Parameter sets per query drawn from the data',
                    type: 'number',
                    default: 10,
                    requiresArg: true,
                })
                .option('seed', {
                    describe: 'Seed of the parameter sampling',
                    type: 'number',
                    default: 1,
                    requiresArg: true,
                })
                .option('strict', {
                    describe: 'Fail (exit 1) when a query is untested: no parameter set gave a row to compare',
                    type: 'boolean',
                    default: false,
                })
                .option('format', {
                    describe: 'text: one table line per query; json: one JSON object on standard output',
                    choices: ['text', 'json'] as const,
                    default: 'text' as const,
                })
                .example(
                    '$0 verify examples/airflights/airflights.pidm --data data.json --redis redis://127.0.0.1:6379 --merge safe',
                    '',
                )
                .example(
                    '$0 verify examples/airflights/airflights.pidm --live --redis redis://127.0.0.1:6379',
                    '',
                ) as unknown as Argv<VerifyArgs>,
        handler: (args) => runAction(context, async (io) => (await import('./verify-actions.js')).runVerify(args, io)),
    };
}
