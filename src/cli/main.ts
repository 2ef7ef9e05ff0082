/**
 * The `kvmod` command line: the yargs root. Each command lives in its own module (`<name>-command.ts`)
 * whose handler calls an exported action; register a new command by adding its module to `commands`.
 */
import { readFileSync } from 'node:fs';
import yargs, { type CommandModule } from 'yargs';
import { isKvmodError } from '../pipeline/errors.js';
import { processIo, takeExitCode, type CliIo } from './cli-io.js';
import { validateCommand } from './validate-command.js';
import { transformCommand } from './transform-command.js';
import { generateCommand } from './generate-command.js';
import { templatesCommand } from './templates-command.js';
import { dataCommand } from './data-command.js';
import { loadCommand } from './load-command.js';
import { verifyCommand } from './verify-command.js';

/** Every command of `kvmod`, in the order `--help` lists them. Add one line per command module. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [
    validateCommand,
    transformCommand,
    generateCommand,
    templatesCommand,
    dataCommand,
    loadCommand,
    verifyCommand,
];

/** Exit codes: 0 success, 1 errors in the input or a failed run, 2 bad usage. */
export const ExitCode = { Ok: 0, Failure: 1, Usage: 2 } as const;

/** A usage error found by yargs (unknown option, missing argument); printed with the usage text, exit 2. */
class UsageError extends Error {
    constructor(
        message: string,
        readonly usage: string,
    ) {
        super(message);
    }
}

/** Runs `kvmod` with the given arguments (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
    takeExitCode();
    try {
        const cli = yargs(argv)
            .scriptName('kvmod')
            .usage(
                '$0 <command> [options]\n\nModel-driven design of key-value (Redis) databases: PIDM -> KVLM -> Redis scripts.',
            )
            .version(packageVersion())
            .help()
            .alias('h', 'help')
            .alias('v', 'version')
            .strict()
            .demandCommand(1, 'Name a command.')
            .recommendCommands()
            .wrap(Math.min(120, process.stdout.columns || 100))
            .exitProcess(false)
            .fail((message, error, instance) => {
                // yargs also routes a handler's exception here; only its own complaints are usage errors.
                if (error) throw error;
                let usage = '';
                instance.showHelp((text: string) => {
                    usage = text;
                });
                const unknownCommand = message?.startsWith('Did you mean') ? `Unknown command '${argv[0]}'. ` : '';
                throw new UsageError(unknownCommand + (message ?? 'invalid usage'), usage);
            });
        for (const command of commands) cli.command(command);
        await cli.parseAsync();
        return takeExitCode();
    } catch (error) {
        return reportFailure(error, io);
    }
}

/** Prints a failure the way a user should see it: never a stack trace. */
function reportFailure(error: unknown, io: CliIo): number {
    if (error instanceof UsageError) {
        if (error.usage) io.err(error.usage + '\n\n');
        io.err(`kvmod: ${error.message}\nRun 'kvmod --help' for usage.\n`);
        return ExitCode.Usage;
    }
    if (isKvmodError(error)) {
        io.err(`kvmod: ${error.message}\n`);
        return ExitCode.Failure;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`kvmod: internal error: ${message}\n`);
    // A developer chasing the bug can ask for the stack; users never see one.
    if (process.env.KVMOD_DEBUG && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return ExitCode.Failure;
}

/** The version in package.json, found by walking up from this module (works from `src/` and `out/src/`). */
function packageVersion(): string {
    for (const relative of ['../../package.json', '../../../package.json']) {
        try {
            const pkg = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
                name?: string;
                version?: string;
            };
            if (pkg.name === 'kvmod' && pkg.version) return pkg.version;
        } catch {
            // not here; try one level up
        }
    }
    return 'unknown';
}
