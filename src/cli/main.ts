/**
 * The `kvmod` command line: the yargs root. Each command lives in its own light module (`<name>-command.ts`:
 * the yargs metadata) whose handler loads the action module (`<name>-actions.ts`) only when it runs, so that
 * `kvmod --help` and `kvmod --version` never load Langium, Handlebars or node-redis. Register a new command
 * by adding its module to `commands`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import yargs from 'yargs';
import { packageRoot } from '../generation/generation-paths.js';
import { ExitCode, reportFailure, UsageError, type CliCommand, type CliContext } from './cli-command.js';
import { configArgument, CONFIGURED_COMMANDS, configOptionValues, withConfig } from './cli-config.js';
import { processIo, type CliIo } from './cli-io.js';
import { WATCHABLE_COMMANDS, withoutWatch, withWatch } from './cli-watch.js';
import { completeCommand } from './complete-command.js';
import { conformanceCommand } from './conformance-command.js';
import { dataCommand } from './data-command.js';
import { doctorCommand } from './doctor-command.js';
import { generateCommand } from './generate-command.js';
import { loadCommand } from './load-command.js';
import { migrateCommand } from './migrate-command.js';
import { planCommand } from './plan-command.js';
import { templatesCommand } from './templates-command.js';
import { transformCommand } from './transform-command.js';
import { validateCommand } from './validate-command.js';
import { verifyCommand } from './verify-command.js';
import { workloadCommand } from './workload-command.js';

/** Every command of `kvmod`, in the order `--help` lists them. Add one line per command module. */
export const commands: CliCommand[] = [
    validateCommand,
    transformCommand,
    generateCommand,
    templatesCommand,
    dataCommand,
    loadCommand,
    verifyCommand,
    workloadCommand,
    completeCommand,
    planCommand,
    migrateCommand,
    conformanceCommand,
    doctorCommand,
];

export { ExitCode };

/** Where a run of `main` looks for `kvmod.config.json` and `REDIS_URL` (tests give their own). */
export interface MainOptions {
    /** The folder the config file is looked for from (default: the working folder). */
    cwd?: string;
    /** The environment (default: `process.env`). */
    env?: Record<string, string | undefined>;
    /** Ends a `--watch` run (default: never; Ctrl-C ends the process). */
    signal?: AbortSignal;
}

/** Runs `kvmod` with the given arguments (without `node` and the script); resolves to the exit code. */
export async function main(argv: string[], io: CliIo = processIo, options: MainOptions = {}): Promise<number> {
    const context: CliContext = { io, exitCode: ExitCode.Ok, signal: options.signal };
    try {
        // The config is read only for a command that runs: `--help` and `--version` stay light.
        let configValues: Record<string, unknown> = {};
        if (
            CONFIGURED_COMMANDS.has(argv[0] ?? '') &&
            !argv.some((arg) => ['--help', '-h', '--version'].includes(arg))
        ) {
            const { loadConfig } = await import('../pipeline/config.js');
            const cwd = options.cwd ?? process.cwd();
            const named = configArgument(argv);
            const loaded = await loadConfig(
                cwd,
                options.env,
                named === undefined ? undefined : named && resolve(cwd, named),
            );
            context.config = loaded.config;
            context.configPath = loaded.path;
            configValues = configOptionValues(context.config);
        }
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
                // Handlers never throw (see `runAction`), so what comes here is yargs' complaint about the
                // arguments: unknown options, missing arguments, invalid choices, and `.check()` failures,
                // which arrive with their message also as `error` (a string, or the Error a check threw).
                // An error without a message is none of those: a bug, reported as an internal error.
                if (!message && error instanceof Error) throw error;
                let usage = '';
                instance.showHelp((text: string) => {
                    usage = text;
                });
                const text = message || String(error ?? 'invalid usage');
                throw new UsageError(unknownCommandPrefix(argv, text) + withoutCamelCaseTwins(text), usage);
            });
        // Called by a handler whose action found a bad option value: yargs is then inside the command, so its
        // help is the command's (`kvmod plan <old> [new]` …).
        context.usage = () => {
            let help = '';
            cli.showHelp((text: string) => {
                help = text;
            });
            return help;
        };
        for (const command of commands) {
            const module = withConfig(command(context), configValues);
            const name = typeof module.command === 'string' ? module.command.split(' ')[0] : '';
            // Each run of a watch parses the command line and reads the config file anew.
            const runFresh = () => main(withoutWatch(argv), io, options);
            cli.command(WATCHABLE_COMMANDS.has(name) ? withWatch(module, context, runFresh) : module);
        }
        // With a parse callback yargs hands over its own output (help, version) instead of printing it.
        let output = '';
        await cli.parseAsync(argv, {}, (_error, _parsed, text) => {
            output = text;
        });
        if (output) io.out(output.endsWith('\n') ? output : output + '\n');
        return context.exitCode;
    } catch (error) {
        return reportFailure(error, io);
    }
}

/** `Unknown command 'valdate'. ` before yargs' "Did you mean validate?", which names only the suggestion. */
function unknownCommandPrefix(argv: readonly string[], message: string): string {
    return message.startsWith('Did you mean') ? `Unknown command '${argv[0]}'. ` : '';
}

/**
 * yargs lists an unknown `--key-strategy` twice, as given and camel-cased (`key-strategy, keyStrategy`);
 * the user typed it once.
 */
function withoutCamelCaseTwins(message: string): string {
    const listed = /^Unknown arguments: (.+)$/.exec(message);
    if (!listed) return message;
    const names = listed[1].split(', ');
    const camel = (name: string) => name.replace(/-+([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
    const kept = names.filter((name) => !names.some((other) => other !== name && camel(other) === name));
    return `Unknown argument${kept.length === 1 ? '' : 's'}: ${kept.join(', ')}`;
}

/**
 * The version in the package root's package.json (found by walking up from the module, so from `src/`, `out/src/`
 * and the bundle in `out/cli/` alike).
 */
function packageVersion(): string {
    try {
        const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
            name?: string;
            version?: string;
        };
        if (pkg.name === 'kvmod' && pkg.version) return pkg.version;
    } catch {
        // no package root: an unusual layout
    }
    return 'unknown';
}
