/**
 * Small builders the Redis view model is made of: parameter slots, commands (argv of parts), and the lookups of
 * the KVLM AST every builder needs.
 */
import type { Collection, Field, Node, ServedQuery } from '../../language/generated/ast.js';
import { GenerationError } from '../generation-errors.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import type { RedisArgPart, RedisCommand, RedisParamSlot, RedisSlotUse } from './redis-view-model-types.js';

/** A parameter slot. */
export function slot(param: string, type: RedisLogicalType, use: RedisSlotUse, nullable = false): RedisParamSlot {
    return { param, type, use, nullable };
}

/** A command from its arguments: adjacent literals merged, the distinct parameters listed in order of use. */
export function command(argv: RedisArgPart[][]): RedisCommand {
    // A set beside the list: a write of a thousand fields has a thousand parameters (a list lookup was quadratic).
    const seen = new Set<string>();
    const params: string[] = [];
    for (const arg of argv) {
        for (const part of arg) {
            if (typeof part !== 'string' && !seen.has(part.param)) {
                seen.add(part.param);
                params.push(part.param);
            }
        }
    }
    return { argv: argv.map(mergeLiterals), params };
}

/** Adjacent literal parts become one, so a literal argument is always a single string part. */
export function mergeLiterals(arg: RedisArgPart[]): RedisArgPart[] {
    // Most arguments are one part already (a field name, a slot): nothing to merge.
    if (arg.length === 1 && arg[0] !== '') return arg;
    const out: RedisArgPart[] = [];
    for (const part of arg) {
        const last = out[out.length - 1];
        if (typeof part === 'string' && typeof last === 'string') out[out.length - 1] = last + part;
        else if (part !== '') out.push(part);
    }
    return out.length > 0 ? out : [''];
}

/** Literal arguments, one per word. */
export function lit(...words: string[]): RedisArgPart[][] {
    return words.map((w) => [w]);
}

/** A field of a collection by reference (or, unresolved, by name); a GenerationError when there is none. */
export function fieldOf(ref: { ref?: Field; $refText: string }, collection: Collection): Field {
    const field = ref.ref ?? collection.fields.find((f) => f.name === ref.$refText);
    if (!field) {
        throw new GenerationError(`collection '${collection.name}': unknown field '${ref.$refText}'`, {
            code: 'generation.model',
        });
    }
    return field;
}

/** The name a reference is written with. */
export function refName(ref: { ref?: Node | ServedQuery | Field; $refText: string }): string {
    return ref.$refText || ref.ref?.name || '';
}
