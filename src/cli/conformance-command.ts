/**
 * `kvmod conformance --redis URL`: verify for every example × merge safe/none × key natural/counter × data seed
 * on one server, one table, exit 0 only when every run matches. The yargs metadata only; the handler loads
 * `runConformanceCommand` (conformance-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { runAction, type CliContext } from './cli-command.js';
import type { ConformanceArgs } from './conformance-actions.js';
import { checkNumberOptions } from './number-options.js';
import { engineTargetOption } from './target-options.js';

/** The yargs module of `kvmod conformance`. */
export function conformanceCommand(context: CliContext): CommandModule<object, ConformanceArgs> {
    return {
        command: 'conformance',
        describe:
            "Check an engine: verify every example (merge safe/none, key natural/counter, three data seeds) on a server, one table; exit 0 only if all match (drops and recreates the examples' indexes: use a scratch server)",
        builder: (yargs: Argv<object>) =>
            checkNumberOptions(engineTargetOption(yargs), {
                scale: 'count',
                seeds: 'whole',
                samples: 'count',
                timeout: 'seconds',
            })
                .option('redis', {
                    describe:
                        'The server (with RediSearch): redis://host:port, redis://user:password@host:port, rediss://…',
                    type: 'string',
                    demandOption: true,
                })
                .option('scale', { describe: 'Objects per entity of the generated data', type: 'number', default: 40 })
                .option('seeds', {
                    describe: 'Data seeds (one run per seed)',
                    type: 'number',
                    array: true,
                    default: [1, 2, 3],
                })
                .option('samples', {
                    describe: 'Parameter sets per query drawn from the data',
                    type: 'number',
                    default: 8,
                })
                .option('timeout', {
                    describe: 'Seconds to wait for the server to accept the connection, and for each reply',
                    type: 'number',
                    requiresArg: true,
                })
                .example('$0 conformance --redis redis://127.0.0.1:6379', '') as unknown as Argv<ConformanceArgs>,
        handler: (args) =>
            runAction(context, async (io) =>
                (await import('./conformance-actions.js')).runConformanceCommand(args, io),
            ),
    };
}
