/**
 * `kvmod plan <old> <new>`: the migration plan between two designs, and the options `migrate` shares. The yargs
 * metadata only; the handler loads `runPlan` (plan-actions.ts) when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_REDIS_TIMEOUT_SECONDS } from '../runtime/redis-connection/redis-url.js';
import { runAction, type CliContext } from './cli-command.js';
import type { PlanArgs } from './plan-actions.js';
import { targetOptions } from './target-options.js';
import { transformOptions } from './transform-options.js';

/** Options shared by `plan` and `migrate`: the two designs, how they are made, the data and the server. */
export function migrationOptions<T>(yargs: Argv<T>, needsServer: boolean): Argv<T> {
    return transformOptions(
        targetOptions(yargs, 'engine')
            .positional('old', {
                describe:
                    'The design the server holds now: .pidm (transformed on the fly) or .kvlm; given alone with --redis, the design to move to, from the one the server records',
                type: 'string',
                demandOption: true,
            })
            .positional('new', {
                describe: 'The design to move to: .pidm or .kvlm',
                type: 'string',
            })
            .check((argv) =>
                argv.new !== undefined || argv.redis !== undefined
                    ? true
                    : 'give two designs, or one design and --redis (the old design is then read back from the server)',
            )
            .option('data', {
                describe: needsServer
                    ? "The new design's instance data, JSON (see schemas/instance-data.md), for a server whose entities kvmod does not keep: every row of a rebuilt collection is written from it. Without it the rows come from the entities the server holds, and the entity operations the application makes meanwhile reach the new design too"
                    : "The new design's instance data: counts the rows each step writes and checks that the data fits the new design",
                type: 'string',
            })
            .option('redis', {
                describe: needsServer
                    ? 'The server (with RediSearch): redis://host:port, redis://:password@host:port, rediss://… (TLS)'
                    : 'A server to take the dialect from, and the old design when only one is given (nothing is written)',
                type: 'string',
                demandOption: needsServer,
            })
            .option('timeout', {
                describe: 'Seconds to wait for the server to accept the connection, and for each reply',
                type: 'number',
                requiresArg: true,
            })
            .default('timeout', undefined, String(DEFAULT_REDIS_TIMEOUT_SECONDS))
            .check((argv) =>
                argv.timeout === undefined || (Number.isFinite(argv.timeout) && (argv.timeout as number) > 0)
                    ? true
                    : `--timeout must be a positive number of seconds, got ${argv.timeout}`,
            )
            .option('pidm', {
                describe: 'The source .pidm of .kvlm designs (default: their `source`)',
                type: 'string',
            })
            .option('renamed', {
                describe:
                    'An attribute the new design names otherwise, <Entity>.<old>=<new> (repeatable): the entities keep its values under the new name, and entity operations write both names until the switch',
                type: 'string',
                array: true,
                requiresArg: true,
            }),
    ) as unknown as Argv<T>;
}

/** The yargs module of `kvmod plan`. */
export function planCommand(context: CliContext): CommandModule<object, PlanArgs> {
    return {
        command: 'plan <old> [new]',
        describe:
            'Show how the Redis design changes from one model to another: collections, fields, keys, and the online steps with their cost (writes nothing)',
        builder: (yargs: Argv<object>) =>
            migrationOptions(yargs, false)
                .option('format', {
                    describe: 'text: the readable plan; json: one JSON object on standard output',
                    choices: ['text', 'json'] as const,
                    default: 'text' as const,
                })
                .example('$0 plan old.pidm new.pidm --data data.json --redis redis://127.0.0.1:6379', '')
                .example('$0 plan new.pidm --redis redis://127.0.0.1:6379', '')
                .example(
                    '$0 plan old.pidm new.pidm --renamed Book.title=name --redis redis://127.0.0.1:6379',
                    '',
                ) as unknown as Argv<PlanArgs>,
        handler: (args) => runAction(context, async (io) => (await import('./plan-actions.js')).runPlan(args, io)),
    };
}
