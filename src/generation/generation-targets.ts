/**
 * The registry of generation targets: the CLI, the extension, the runtime and the build scripts (the examples'
 * goldens, the view-model validators, the settings, the config schema) find targets here, by name. Adding a target
 * is one folder (`src/generation/<name>/` and `templates/<name>/`) and one line in `generationTargets`; nothing
 * else names a target (test/generation/target-contract.test.ts). Light on purpose (front ends derive their flags from it at start-up): a target's
 * module must not load heavy packages at import time.
 */
import { GenerationError } from './generation-errors.js';
import {
    listOptions,
    OptionValueError,
    resolveOptions,
    type NamedOptionDeclaration,
    type OptionDeclarations,
    type RawOptionValues,
} from './generation-options.js';
import type { GenerationTarget } from './generation-target.js';
import { dynamoTarget } from './dynamodb/dynamodb-target.js';
import { redisCoreTarget } from './redis-core/redis-core-target.js';
import { redisTarget } from './redis/redis-target.js';
import { reportTarget } from './report/report-target.js';
import { typescriptTarget } from './typescript/typescript-target.js';

/**
 * A registered target, its types hidden: what front ends read (name, options) and a way back to the typed
 * target (`use`) for the code that runs it, so no cast is needed on either side.
 */
export interface RegisteredTarget {
    readonly name: string;
    readonly description: string;
    /** The engine family its design runs on; absent when it runs nowhere. */
    readonly engine?: string;
    /** The option naming the target whose design it describes (see `GenerationTarget.describesTargetOption`). */
    readonly describesTargetOption?: string;
    /** Its options, in declaration order. */
    readonly options: readonly NamedOptionDeclaration[];
    /** The option whose value names a subfolder of the output (a dialect), if any. */
    readonly outputFolderOption?: NamedOptionDeclaration;
    /** Whether it renders templates (which `kvmod templates` lists and ejects). */
    readonly hasTemplates: boolean;
    /** Its view model's JSON Schema, relative to the package root, if it renders templates. */
    readonly viewModelSchema?: string;
    /** Whether its design reads the source PIDM too (see `GenerationTarget.usesSourceModel`). */
    readonly usesSourceModel: boolean | 'entities';
    /** Runs `use` on the typed target. */
    use<R>(use: <O extends OptionDeclarations, D>(target: GenerationTarget<O, D>) => R): R;
}

/** Registers a typed target. */
export function registerTarget<O extends OptionDeclarations, D>(target: GenerationTarget<O, D>): RegisteredTarget {
    const options = listOptions(target.options);
    const folders = options.filter((o) => o.declaration.type === 'choice' && o.declaration.outputFolder);
    if (folders.length > 1) throw new Error(`target ${target.name}: more than one option names an output folder`);
    return {
        name: target.name,
        description: target.description,
        engine: target.engine,
        describesTargetOption: target.describesTargetOption,
        options,
        outputFolderOption: folders[0],
        hasTemplates: target.templates !== undefined,
        viewModelSchema: target.templates?.viewModelSchema,
        usesSourceModel: target.usesSourceModel ?? false,
        use: (use) => use(target),
    };
}

/** All targets, by name, in the order `--help` lists them (the default first). */
export const generationTargets: ReadonlyMap<string, RegisteredTarget> = new Map(
    [
        registerTarget(redisTarget),
        registerTarget(redisCoreTarget),
        registerTarget(reportTarget),
        registerTarget(typescriptTarget),
        registerTarget(dynamoTarget),
    ].map((target) => [target.name, target]),
);

/** The target used when none is named. */
export const DEFAULT_TARGET = 'redis';

/** The target of that name; a `GenerationError` listing the known ones otherwise. */
export function getGenerationTarget(name: string): RegisteredTarget {
    const target = generationTargets.get(name);
    if (!target) {
        throw new GenerationError(`unknown target '${name}' (known: ${[...generationTargets.keys()].join(', ')})`, {
            code: 'generation.target',
        });
    }
    return target;
}

/**
 * Checks the given target options against the target's declarations (values, and options it does not
 * declare); returns the message of the first problem, naming the valid values, or undefined.
 */
export function checkTargetOptions(target: RegisteredTarget, given: RawOptionValues): string | undefined {
    try {
        target.use((typed) => resolveOptions(typed.name, typed.options, given));
        return undefined;
    } catch (error) {
        if (error instanceof OptionValueError) return error.message;
        throw error;
    }
}

/**
 * The output folder of a target below `<out>/<database>/`: `<target>`, or `<target>/<value>` for a target
 * with an output-folder option (the dialect), so that generating both dialects into one root never overwrites.
 */
export function targetOutputFolder(target: RegisteredTarget, given: RawOptionValues): string[] {
    const own = ownFolderValue(target, given);
    if (own !== undefined) return [target.name, own];
    const option = target.outputFolderOption;
    if (!option) return [target.name];
    const value = given[option.name] ?? option.declaration.default;
    return [target.name, String(value)];
}

/** The value of an option that names a folder of its own (`ChoiceOptionDeclaration.folderValues`), if one is given. */
function ownFolderValue(target: RegisteredTarget, given: RawOptionValues): string | undefined {
    for (const option of target.options) {
        if (option.declaration.type !== 'choice' || !option.declaration.folderValues) continue;
        const value = String(given[option.name] ?? option.declaration.default);
        if (option.declaration.folderValues.includes(value)) return value;
    }
    return undefined;
}

/** One output of a target: the option values that select it and its folder below `<out>/<database>/`. */
export interface TargetVariant {
    readonly options: RawOptionValues;
    readonly folder: readonly string[];
}

/**
 * Every output folder a target can write, with the option values that select it: one per value of its
 * output-folder option (`redis/redisearch2`, `redis/redisearch1`), else its own folder with the defaults, then one
 * per value that names a folder of its own (`typescript/redis-core`). The
 * examples' goldens hold exactly these (scripts/regenerate-examples.mjs).
 */
export function targetVariants(target: RegisteredTarget): TargetVariant[] {
    const option = target.outputFolderOption;
    const variants: RawOptionValues[] =
        option && option.declaration.type === 'choice'
            ? option.declaration.choices.map((choice) => ({ [option.name]: choice }))
            : [{}];
    // Then one per value that names a folder of its own (`folderValues`), the output-folder option at its default.
    for (const own of target.options)
        if (own.declaration.type === 'choice')
            for (const value of own.declaration.folderValues ?? []) variants.push({ [own.name]: value });
    return variants.map((options) => ({ options, folder: targetOutputFolder(target, options) }));
}

/** Every option any target declares, by name, with the targets that declare it (front ends build flags from it). */
export function allTargetOptions(): Map<string, { option: NamedOptionDeclaration; targets: RegisteredTarget[] }> {
    const all = new Map<string, { option: NamedOptionDeclaration; targets: RegisteredTarget[] }>();
    for (const target of generationTargets.values()) {
        for (const option of target.options) {
            const known = all.get(option.name);
            if (known && known.option.declaration.type !== option.declaration.type)
                throw new Error(
                    `option ${option.name} has different types in targets ${known.targets[0].name} and ${target.name}`,
                );
            if (known) known.targets.push(target);
            else all.set(option.name, { option, targets: [target] });
        }
    }
    return all;
}
