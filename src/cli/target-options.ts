/**
 * `--target` and the target options of `generate`, `load` and `verify`, derived from the targets'
 * declarations (src/generation/generation-options.ts): this module names no target's option. An unknown
 * target or value, or an option the chosen target does not declare, is a usage error naming the valid
 * ones (exit 2). Light on purpose: `kvmod --help` loads it.
 */
import type { Argv } from 'yargs';
import { describeOptionType, type RawOptionValues } from '../generation/generation-options.js';
import {
    allTargetOptions,
    checkTargetOptions,
    DEFAULT_TARGET,
    generationTargets,
    getGenerationTarget,
} from '../generation/generation-targets.js';
import { runsOnEngine, runnableTargets } from '../runtime/engine-registry.js';

/** The target and its options as a command receives them (options by name, absent when not given). */
export interface TargetArgs {
    /** The target's name. */
    target: string;
}

/** Which targets a command accepts: every one (`generate`), or those that run on an engine (`load`, `verify`). */
export type TargetScope = 'all' | 'engine';

/**
 * Adds `--target` and one flag per declared target option. Defaults are shown in the help but not filled
 * in, so that an option given to a target that does not declare it can be told from a default.
 */
export function targetOptions<T>(yargs: Argv<T>, scope: TargetScope): Argv<T & TargetArgs> {
    const accepted = [...generationTargets.values()].filter((t) => scope === 'all' || runsOnEngine(t));
    let built = yargs.option('target', {
        alias: 't',
        describe:
            scope === 'all'
                ? 'The target (kvmod templates list describes each)'
                : 'The target whose design is loaded (targets that run on an engine)',
        choices: accepted.map((t) => t.name),
        default: DEFAULT_TARGET,
    }) as unknown as Argv<T & TargetArgs>;
    for (const { option, targets } of allTargetOptions().values()) {
        const { declaration } = option;
        const owners = targets.filter((t) => accepted.includes(t)).map((t) => t.name);
        if (owners.length === 0) continue;
        // Targets that declare the option alike share one description; one that means something else has its own.
        const descriptions = new Map<string, string[]>();
        for (const t of targets.filter((t) => owners.includes(t.name))) {
            const text = t.options.find((o) => o.name === option.name)!.declaration.description;
            descriptions.set(text, [...(descriptions.get(text) ?? []), t.name]);
        }
        const describe = [...descriptions].map(([text, names]) => `${names.join(', ')}: ${text}`).join('; ');
        const choices = [
            ...new Set(
                targets.flatMap((t) =>
                    t.options.flatMap((o) =>
                        o.name === option.name && o.declaration.type === 'choice' ? o.declaration.choices : [],
                    ),
                ),
            ),
        ];
        built = built
            .option(option.flag, {
                describe,
                type: declaration.type === 'boolean' ? 'boolean' : declaration.type === 'integer' ? 'number' : 'string',
                ...(choices.length > 0 ? { choices } : {}),
                requiresArg: declaration.type !== 'boolean',
            })
            .default(option.flag, undefined, String(declaration.default)) as unknown as Argv<T & TargetArgs>;
    }
    return built.check((argv) => {
        const target = getGenerationTarget(String(argv.target));
        return checkTargetOptions(target, givenTargetOptions(argv)) ?? true;
    });
}

/**
 * Adds `--target` alone, for commands that check a server through a target's engine (`doctor`, `conformance`)
 * and take no design options.
 */
export function engineTargetOption<T>(yargs: Argv<T>): Argv<T & Partial<TargetArgs>> {
    return yargs.option('target', {
        alias: 't',
        describe: 'The target whose engine checks the server (targets that run on an engine)',
        choices: runnableTargets().map((t) => t.name),
        default: DEFAULT_TARGET,
    }) as unknown as Argv<T & Partial<TargetArgs>>;
}

/** The target options the user gave, by option name (what `generateModels` and the runtime take). */
export function givenTargetOptions(args: object): RawOptionValues {
    const given: Record<string, string | number | boolean> = {};
    const values = new Map(Object.entries(args));
    for (const name of allTargetOptions().keys()) {
        const value: unknown = values.get(name);
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') given[name] = value;
    }
    return given;
}

/** One line per option of a target, for `kvmod templates list`: `--flag <type> (default …): description`. */
export function describeTargetOptions(targetName: string): string[] {
    return getGenerationTarget(targetName).options.map(
        ({ flag, declaration }) =>
            `--${flag} ${describeOptionType(declaration)} (default ${String(declaration.default)}): ${declaration.description}`,
    );
}
