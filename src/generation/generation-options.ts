/**
 * Target options, declared once by the target that owns them (as OpenAPI Generator's `cliOptions()` and
 * graphql-codegen's typed plugin config): name, type, choices, default, one-line description. Every front end
 * derives its flags and settings from the declarations (the CLI's `--db-prefix`, the extension's
 * `kvmod.redis.dbPrefix`), and the values a target receives are typed from them: a target never parses a
 * raw value and a front end never names a target's option. Light on purpose: `kvmod --help` loads it.
 */

/** What every declaration says. */
interface OptionDeclarationBase<T> {
    /** One line for `--help`, `kvmod templates list`, the extension's settings and the README. */
    readonly description: string;
    /** The value when the option is not given. */
    readonly default: T;
}

/** One of a fixed list of strings (`--dialect redisearch1`). */
export interface ChoiceOptionDeclaration<T extends string> extends OptionDeclarationBase<T> {
    readonly type: 'choice';
    /** The allowed values; the default among them. */
    readonly choices: readonly T[];
    /**
     * The chosen value names a folder of its own under `<out>/<database>/<target>/`, so that generating
     * two values into one output root never overwrites (a target's dialects). At most one option per target.
     */
    readonly outputFolder?: boolean;
    /**
     * Values that name a folder of their own, `<out>/<database>/<target>/<value>`, in place of the output-folder
     * option's value: a value that selects another design, which that option does not apply to (the TypeScript
     * client of the redis-core design has no RediSearch dialect).
     */
    readonly folderValues?: readonly T[];
}

/** A switch (`--db-prefix`). */
export interface BooleanOptionDeclaration extends OptionDeclarationBase<boolean> {
    readonly type: 'boolean';
}

/** A whole number from `min` to `max` (`--limit 500`). */
export interface IntegerOptionDeclaration extends OptionDeclarationBase<number> {
    readonly type: 'integer';
    /** The smallest allowed value. */
    readonly min: number;
    /** The largest allowed value. */
    readonly max: number;
}

/** Free text. */
export interface StringOptionDeclaration extends OptionDeclarationBase<string> {
    readonly type: 'string';
}

/** Any option declaration. */
export type OptionDeclaration =
    ChoiceOptionDeclaration<string> | BooleanOptionDeclaration | IntegerOptionDeclaration | StringOptionDeclaration;

/** A target's option declarations, by option name (camelCase; the flag is its kebab-case form). */
export type OptionDeclarations = { readonly [name: string]: OptionDeclaration };

/** The value type of one declaration. */
export type OptionValue<D> =
    D extends ChoiceOptionDeclaration<infer T>
        ? T
        : D extends BooleanOptionDeclaration
          ? boolean
          : D extends IntegerOptionDeclaration
            ? number
            : D extends StringOptionDeclaration
              ? string
              : never;

/** The resolved option values a target receives: every declared option, defaults filled. */
export type OptionValues<D extends OptionDeclarations> = { -readonly [K in keyof D]: OptionValue<D[K]> };

/** Option values as a front end collects them (flags, settings): by option name, absent when not given. */
export type RawOptionValues = Readonly<Record<string, string | number | boolean | undefined>>;

/** Declares a choice option. */
export function choiceOption<const T extends string>(
    choices: readonly T[],
    defaultValue: NoInfer<T>,
    description: string,
    extra: { outputFolder?: boolean; folderValues?: readonly NoInfer<T>[] } = {},
): ChoiceOptionDeclaration<T> {
    return { type: 'choice', choices, default: defaultValue, description, ...extra };
}

/** Declares a switch. */
export function booleanOption(defaultValue: boolean, description: string): BooleanOptionDeclaration {
    return { type: 'boolean', default: defaultValue, description };
}

/** Declares a whole-number option. */
export function integerOption(
    defaultValue: number,
    description: string,
    range: { min: number; max: number },
): IntegerOptionDeclaration {
    return { type: 'integer', default: defaultValue, description, ...range };
}

/** Declares a free-text option. */
export function stringOption(defaultValue: string, description: string): StringOptionDeclaration {
    return { type: 'string', default: defaultValue, description };
}

/** A declared option with its name, as front ends list them. */
export interface NamedOptionDeclaration {
    /** The option's name (camelCase), e.g. `dbPrefix`. */
    readonly name: string;
    /** The command-line flag, without dashes, e.g. `db-prefix`. */
    readonly flag: string;
    readonly declaration: OptionDeclaration;
}

/** The declarations in declaration order, with their names and flags. */
export function listOptions(declarations: OptionDeclarations): NamedOptionDeclaration[] {
    return Object.entries(declarations).map(([name, declaration]) => ({ name, flag: flagOf(name), declaration }));
}

/** `dbPrefix` → `db-prefix`. */
export function flagOf(name: string): string {
    return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** A declaration's type and choices as people read them: `redisearch2|redisearch1`, `boolean`, `integer 1..1000000`. */
export function describeOptionType(declaration: OptionDeclaration): string {
    switch (declaration.type) {
        case 'choice':
            return declaration.choices.join('|');
        case 'integer':
            return `integer ${declaration.min}..${declaration.max}`;
        default:
            return declaration.type;
    }
}

/** An option value that does not fit its declaration, or an option the target does not declare. */
export class OptionValueError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'OptionValueError';
    }
}

/**
 * Checks one given value against its declaration and returns it typed; the message of an `OptionValueError`
 * names the valid values. Strings are accepted for every type (settings and environment give strings).
 */
export function checkOptionValue(
    target: string,
    option: NamedOptionDeclaration,
    value: string | number | boolean,
): string | number | boolean {
    const { declaration } = option;
    const where = `--${option.flag} of target ${target}`;
    switch (declaration.type) {
        case 'choice': {
            const text = String(value);
            if (!declaration.choices.includes(text))
                throw new OptionValueError(
                    `invalid value '${text}' for ${where} (valid: ${declaration.choices.join(', ')})`,
                );
            return text;
        }
        case 'boolean':
            if (typeof value === 'boolean') return value;
            if (value === 'true' || value === 'false') return value === 'true';
            throw new OptionValueError(`invalid value '${String(value)}' for ${where} (valid: true, false)`);
        case 'integer': {
            const number = typeof value === 'number' ? value : Number(String(value).trim() || Number.NaN);
            if (!Number.isInteger(number) || number < declaration.min || number > declaration.max)
                throw new OptionValueError(
                    `invalid value '${String(value)}' for ${where} (valid: a whole number from ${declaration.min} to ${declaration.max})`,
                );
            return number;
        }
        case 'string':
            return String(value);
    }
}

/**
 * The values a target receives: each given value checked against its declaration, every other option at
 * its default. A given option the target does not declare is an `OptionValueError` naming the ones it does.
 */
export function resolveOptions<D extends OptionDeclarations>(
    target: string,
    declarations: D,
    given: RawOptionValues,
): OptionValues<D> {
    const options = listOptions(declarations);
    for (const [name, value] of Object.entries(given)) {
        if (value === undefined || options.some((option) => option.name === name)) continue;
        const declared = options.map((option) => `--${option.flag}`).join(', ') || 'none';
        throw new OptionValueError(`target ${target} has no option --${flagOf(name)} (its options: ${declared})`);
    }
    const values: Record<string, string | number | boolean> = {};
    for (const option of options) {
        const value = given[option.name];
        values[option.name] =
            value === undefined ? option.declaration.default : checkOptionValue(target, option, value);
    }
    // Each value was checked against (or is the default of) the declaration its key names, which is what
    // `OptionValues<D>` says; TypeScript cannot follow a mapped type through a loop, hence this one assertion.
    return values as OptionValues<D>;
}
