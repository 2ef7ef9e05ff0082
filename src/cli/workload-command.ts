/**
 * `kvmod workload <model> --redis URL`: random sequences of entity operations through the generated client against
 * a scratch server, checked against the oracle and the live check; exit 1 with the shrunk sequence on a difference.
 * The yargs metadata only; the handler loads `runWorkloadCommand` (workload-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import { serverCommandOptions } from './load-command.js';
import { checkNumberOptions } from './number-options.js';
import type { WorkloadArgs } from './workload-actions.js';

/** The yargs module of `kvmod workload`. */
export function workloadCommand(context: CliContext): CommandModule<object, WorkloadArgs> {
    return {
        command: 'workload <model>',
        describe:
            "Apply random entity operations through the generated client and check every outcome against the oracle and the server's rows against its entities (empties the server: use a scratch one)",
        builder: (yargs: Argv<object>) =>
            checkNumberOptions(
                serverCommandOptions(yargs, {
                    server: {
                        describe:
                            'The scratch server (FLUSHALL before the run and before every replay of a shrink): redis://host:port; redis: with RediSearch; redis-core: Redis 7 or later, one server; dynamodb: the endpoint, http://host:port (--endpoint; its design tables are created anew)',
                        endpoint: true,
                    },
                }),
                { ops: 'count', seed: 'whole', 'check-every': 'count', ids: 'count' },
            )
                .option('ops', {
                    describe: 'Operations in all (shared between the writers)',
                    type: 'number',
                    default: 1000,
                    requiresArg: true,
                })
                .option('seed', {
                    describe: 'Seed of the operations (the same seed draws the same sequences)',
                    type: 'number',
                    default: 1,
                    requiresArg: true,
                })
                .option('writers', {
                    describe:
                        '1: every outcome compared with the oracle; 2: two connections on the same entities, the live check only',
                    type: 'number',
                    choices: [1, 2],
                    default: 1,
                    requiresArg: true,
                })
                .option('check-every', {
                    describe: 'Operations between two live checks (and one after the last)',
                    type: 'number',
                    default: 50,
                    requiresArg: true,
                })
                .option('ids', {
                    describe: 'Identifiers per entity (at most 9): few, so that operations collide',
                    type: 'number',
                    default: 4,
                    requiresArg: true,
                })
                .option('shrink', {
                    describe:
                        'On a failure, shrink the sequence by replaying it on the emptied server (--no-shrink: report every operation that ran)',
                    type: 'boolean',
                    default: true,
                })
                .option('format', {
                    describe:
                        'text: a summary, and the shrunk sequence on a failure; json: one JSON object on standard output',
                    choices: ['text', 'json'] as const,
                    default: 'text' as const,
                })
                .check((argv) =>
                    argv.ids === undefined || (argv.ids as number) <= 9
                        ? true
                        : `--ids must be a whole number from 1 to 9, got ${argv.ids}`,
                )
                .example(
                    '$0 workload examples/airflights/airflights.pidm --redis redis://127.0.0.1:6379 --ops 2000 --seed 7 --writers 2',
                    '',
                ) as unknown as Argv<WorkloadArgs>,
        handler: (args) =>
            runAction(context, async (io) => (await import('./workload-actions.js')).runWorkloadCommand(args, io)),
    };
}
