/**
 * `kvmod complete <model> --target T --redis URL`: finishes the entity changes a writer left half-carried where an
 * operation is not one atomic call (the redis-core design on a Redis Cluster). The yargs metadata only; the handler loads `runCompleteCommand` (complete-actions.ts) when
 * it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { CompleteArgs } from './complete-actions.js';
import { serverCommandOptions } from './load-command.js';

/** The yargs module of `kvmod complete`. */
export function completeCommand(context: CliContext): CommandModule<object, CompleteArgs> {
    return {
        command: 'complete <model>',
        describe:
            'Complete the entity changes a dead writer left pending (redis-core on a Redis Cluster): every row, index entry and reverse reference brought up to its entities',
        builder: (yargs: Argv<object>) =>
            serverCommandOptions(yargs, {
                server: {
                    describe:
                        'The server, or any node of the cluster (redis://host:port); on one server there is nothing to complete',
                    endpoint: false,
                },
            }).example(
                '$0 complete examples/airflights/airflights.pidm --redis redis://127.0.0.1:7000',
                '',
            ) as unknown as Argv<CompleteArgs>,
        handler: (args) =>
            runAction(context, async (io) => (await import('./complete-actions.js')).runCompleteCommand(args, io)),
    };
}
