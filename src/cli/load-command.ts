/**
 * `kvmod load <model> --data data.json --redis URL`: creates the design's indexes and writes every row.
 * The yargs metadata only (and the options `verify` shares); the handler loads `runLoad` (load-actions.ts)
 * when it runs.
 */
import type { Argv, CommandModule } from 'yargs';
import { DEFAULT_REDIS_TIMEOUT_SECONDS } from '../runtime/redis-connection/redis-url.js';
import { runAction, type CliContext } from './cli-command.js';
import type { LoadArgs } from './load-actions.js';
import { targetOptions } from './target-options.js';
import { transformOptions } from './transform-options.js';

/** `--redis`'s description where the command takes any engine's server (alias `--endpoint` for DynamoDB). */
const SERVER_DESCRIBE =
    'The server: redis://host:port, redis://:password@host:port, redis://user:password@host:port (ACL), rediss://… (TLS); redis: with RediSearch; redis-core: Redis 7 or later, no module, one server or any node of a cluster; dynamodb: the endpoint, http://host:port (--endpoint)';

/**
 * What every command that runs a design on a server takes, in this order: the target and its options exactly as
 * `generate` takes them, `<model>`, `--data` (where asked), `--redis` (with the alias `--endpoint` where DynamoDB
 * can be the engine), `--timeout`, `--pidm`, `--batch` (where asked), and the transformation's options.
 */
export function serverCommandOptions<T>(
    yargs: Argv<T>,
    options: {
        server?: { describe: string; endpoint: boolean };
        data?: { describe: string; required: boolean };
        batch?: boolean;
    } = {},
): Argv<T> {
    const server = options.server ?? { describe: SERVER_DESCRIBE, endpoint: true };
    let built = targetOptions(yargs, 'engine').positional('model', {
        describe: 'The model: .pidm (transformed on the fly) or .kvlm',
        type: 'string',
        demandOption: true,
    }) as unknown as Argv<T>;
    if (options.data !== undefined)
        built = built.option('data', {
            describe: options.data.describe,
            type: 'string',
            demandOption: options.data.required,
        }) as unknown as Argv<T>;
    built = built.option('redis', {
        describe: server.describe,
        ...(server.endpoint ? { alias: 'endpoint' } : {}),
        type: 'string',
        demandOption: true,
    }) as unknown as Argv<T>;
    built = timeoutOption(built).option('pidm', {
        describe: 'The source .pidm of a .kvlm design (default: its `source`)',
        type: 'string',
    }) as unknown as Argv<T>;
    return transformOptions(options.batch === true ? batchOption(built) : built) as unknown as Argv<T>;
}

/**
 * Options shared by `load` and `verify`; `data` describes `--data` where a command can do without it
 * (`verify --live`).
 */
export function runtimeOptions<T>(
    yargs: Argv<T>,
    data = { describe: 'Instance data, JSON (see schemas/instance-data.md)', required: true },
): Argv<T> {
    return serverCommandOptions(yargs, { data, batch: true });
}

/** `--batch`: rows per pipelined batch (load, verify, migrate); anything but a whole number from 1 is bad usage. */
export function batchOption<T>(yargs: Argv<T>): Argv<T> {
    return yargs
        .option('batch', { describe: 'Rows per pipelined batch', type: 'number', default: 2000, requiresArg: true })
        .check((argv) =>
            Number.isSafeInteger(argv.batch) && (argv.batch as number) >= 1
                ? true
                : `--batch must be a whole number of rows from 1, got ${argv.batch}`,
        ) as Argv<T>;
}

/** `--timeout`: seconds to wait for a Redis server (load, verify, generate --redis); not positive is bad usage. */
export function timeoutOption<T>(
    yargs: Argv<T>,
    describe = 'Seconds to wait for the server to accept the connection, and for each reply',
): Argv<T> {
    return (
        yargs
            .option('timeout', { describe, type: 'number', requiresArg: true })
            .default('timeout', undefined, String(DEFAULT_REDIS_TIMEOUT_SECONDS))
            // A bad timeout is bad usage, like an invalid choice: reported with the usage text, exit 2.
            .check((argv) =>
                argv.timeout === undefined || (Number.isFinite(argv.timeout) && (argv.timeout as number) > 0)
                    ? true
                    : `--timeout must be a positive number of seconds, got ${argv.timeout}`,
            ) as Argv<T>
    );
}

/** The yargs module of `kvmod load`. */
export function loadCommand(context: CliContext): CommandModule<object, LoadArgs> {
    return {
        command: 'load <model>',
        describe: 'Create the indexes and write every row of the data into Redis (idempotent with natural keys)',
        builder: (yargs: Argv<object>) =>
            runtimeOptions(yargs)
                .option('recreate', {
                    describe: 'Drop an index whose schema differs, with its rows, and create it anew',
                    type: 'boolean',
                    default: false,
                })
                .option('sync', {
                    describe:
                        'Remove the entities the server holds that the data lacks, with their rows, and say which (without it, load stops on them and writes nothing)',
                    type: 'boolean',
                    default: false,
                })
                .example(
                    '$0 load examples/airflights/airflights.pidm --data data.json --redis redis://127.0.0.1:6379',
                    '',
                ) as unknown as Argv<LoadArgs>,
        handler: (args) => runAction(context, async (io) => (await import('./load-actions.js')).runLoad(args, io)),
    };
}
