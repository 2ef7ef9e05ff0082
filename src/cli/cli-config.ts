/**
 * How the config file (`kvmod.config.json`, `.ts`, …) reaches the commands: its settings become each command's option values (yargs'
 * `.config`, which command-line options override), restricted to the options the command declares, and
 * its `models` fill a command's model arguments when none are given. Light: the config itself is loaded
 * by `main` (pipeline/config.ts) only for a command that runs.
 */
import { relative } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { allTargetOptions } from '../generation/generation-targets.js';
import type { KvmodConfig } from '../pipeline/config.js';

/** The commands that read the config file. */
export const CONFIGURED_COMMANDS: ReadonlySet<string> = new Set([
    'validate',
    'transform',
    'generate',
    'load',
    'verify',
    'doctor',
]);

/**
 * Options a command takes from the config only when asked, never by default: `generate --redis` given
 * without a URL uses the config's redis (or REDIS_URL); a config with a server must not make every
 * `generate` connect to it.
 */
export const ASKED_CONFIG_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
    generate: new Set(['redis']),
};

/**
 * The config file named on the command line: its path (`--config <file>`), `false` for `--no-config`, or
 * undefined (the file found upward applies). Read before yargs parses, since the config gives yargs its
 * defaults; yargs then checks the same options (`configFileOptions`).
 */
export function configArgument(argv: readonly string[]): string | false | undefined {
    let file: string | undefined;
    let none = false;
    for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
        const arg = argv[i];
        if (arg === '--no-config') none = true;
        else if (arg.startsWith('--config=')) file = arg.slice('--config='.length);
        else if (arg === '--config' && i + 1 < argv.length && !argv[i + 1].startsWith('-')) file = argv[++i];
    }
    // Both: no config is read, and yargs reports the contradiction as bad usage.
    return none ? false : file;
}

/** `--config <file>` and `--no-config`, for the commands that read the config. */
export function configFileOptions(yargs: Argv): Argv {
    return yargs
        .option('config', {
            describe:
                'The config file to use (default: kvmod.config.* in the working folder or above, up to the project root); --no-config: none',
            type: 'string',
            requiresArg: true,
        })
        .check((argv) =>
            Array.isArray(argv.config) ? 'give --config <file> or --no-config, once and not both' : true,
        );
}

/** The option values the config gives, by option name, with paths relative to the working folder. */
export function configOptionValues(config: KvmodConfig, cwd = process.cwd()): Record<string, unknown> {
    const path = (absolute: string | undefined) =>
        absolute === undefined ? undefined : relative(cwd, absolute) || '.';
    const models = config.models?.map((model) => path(model)!);
    const values: Record<string, unknown> = {
        out: path(config.output),
        target: config.target,
        templates: path(config.templates),
        // The target options under their flags, by the names the targets declare.
        ...Object.fromEntries([...allTargetOptions().values()].map(({ option }) => [option.flag, config[option.name]])),
        threshold: config.threshold,
        merge: config.merge,
        key: config.key,
        redis: config.redis,
        data: path(config.data),
        timeout: config.timeout,
        // The model arguments, under each command's positional name.
        files: models,
        models,
        inputs: models,
        model: models?.length === 1 ? models[0] : undefined,
    };
    return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * A command module that takes its option values from the config: the values of the options it declares,
 * and a model argument that becomes optional when the config supplies it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withConfig(module: CommandModule<any, any>, values: Record<string, unknown>): CommandModule<any, any> {
    const builder = module.builder;
    if (typeof module.command !== 'string' || typeof builder !== 'function') return module;
    const name = module.command.split(' ')[0];
    const asked = ASKED_CONFIG_OPTIONS[name];
    if (asked) values = Object.fromEntries(Object.entries(values).filter(([name]) => !asked.has(name)));
    const given = (name: string) => values[name] !== undefined;
    return {
        ...module,
        // `<inputs..>` → `[inputs..]`, `<model>` → `[model]` when the config names the models.
        command: module.command.replace(/<(\w+)(\.\.)?>/g, (whole, name: string, dots = '') =>
            given(name) ? `[${name}${dots}]` : whole,
        ),
        builder: (yargs: Argv) => {
            let built = (builder(yargs) ?? yargs) as Argv;
            if (CONFIGURED_COMMANDS.has(name)) built = configFileOptions(built);
            // yargs' own list of the options and positionals declared so far (not in its type declarations).
            const declared = (built as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key;
            return built.config(Object.fromEntries(Object.entries(values).filter(([name]) => name in declared)));
        },
    };
}
