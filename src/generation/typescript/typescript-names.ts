/**
 * The TypeScript names of the generated client: the one safe spelling of a model name, and the scopes in which two
 * model names spelt alike are refused (`generation.name-collision`).
 */
import { GenerationError } from '../generation-errors.js';

/** Words that cannot name a variable, function or parameter in strict-mode TypeScript modules. */
const RESERVED = new Set(
    (
        'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
        'function if import in instanceof new null return super switch this throw true try typeof var void while with ' +
        'implements interface let package private protected public static yield await arguments eval undefined'
    ).split(' '),
);

/**
 * The safe TypeScript spelling of a model name, the same every time: every character other than a letter, digit,
 * `_` or `$` becomes `_`; a leading digit gets `_` before it; a reserved word gets `_` after it (`class` → `class_`,
 * `1st` → `_1st`, `Origin.city` → `Origin_city`).
 */
export function safeIdentifier(name: string): string {
    let id = name.replace(/[^A-Za-z0-9_$]/g, '_');
    if (id === '' || /^[0-9]/.test(id)) id = `_${id}`;
    if (RESERVED.has(id)) id = `${id}_`;
    return id;
}

/** `q1_flights` → `Q1_flights`: the first letter capitalised, for type names. */
export function typeCase(id: string): string {
    return id.charAt(0).toUpperCase() + id.slice(1);
}

/** A scope of names: the second model name spelt like a first one is an error naming both. */
export class NameScope {
    private readonly owners = new Map<string, string>();

    constructor(
        private readonly what: string,
        fixed: readonly string[] = [],
    ) {
        for (const name of fixed) this.owners.set(name, `the client's own ${name}`);
    }

    claim(name: string, owner: string): string {
        const known = this.owners.get(name);
        if (known !== undefined) {
            throw new GenerationError(
                `${owner} and ${known} would both be named ${name} in the TypeScript client (${this.what}); rename one of them in the model`,
                { code: 'generation.name-collision' },
            );
        }
        this.owners.set(name, owner);
        return name;
    }
}
