/**
 * What equality and order mean for an engine: its collation, which the oracle, the in-memory design check and
 * the parameter sampler take as a parameter, so that the oracle and the engine agree on what "equal" and
 * "before" mean. Each engine declares its own (RediSearch's is in redis/redis-collation.ts); this module
 * holds the contract and the rules most engines share (numbers numerically, ISO dates, times and datetimes by
 * their text, false < true).
 */
import type { LogicalType } from '../language/pidm/pidm-semantics.js';

/** A typed value as instance data carries it (ISO strings for temporal types). */
export type TypedValue = string | number | boolean;

/** An engine's collation: equality as a filter sees it (`=`), and order as a sort key sees it. */
export interface Collation {
    /** A name for messages and tests (`redisearch`, `bytewise`). */
    readonly name: string;
    /** Whether `a = b` holds for values of a type. */
    equals(type: LogicalType, a: TypedValue, b: TypedValue): boolean;
    /** Negative when `a` sorts before `b`, 0 when their order is free, positive after. */
    compare(type: LogicalType, a: TypedValue, b: TypedValue): number;
    /**
     * Whether an equality filter can look for the value at all (RediSearch: a text blank once trimmed makes no
     * tag); the parameter sampler draws only such values, since the engine is never asked for the others.
     */
    searchable(type: LogicalType, value: TypedValue): boolean;
}

/** How an engine treats text; the other types follow the shared rules (`collationFor`). */
export interface TextCollation {
    /** The collation's name. */
    name: string;
    /** Text equality. */
    equals(a: string, b: string): boolean;
    /** Text order. */
    compare(a: string, b: string): number;
    /** Whether a text can be looked for (default: every text). */
    searchable?(text: string): boolean;
}

/** A collation from an engine's text rules: numbers numerically, ISO temporal text by its text, false < true. */
export function collationFor(text: TextCollation): Collation {
    return {
        name: text.name,
        equals(type, a, b) {
            if (type === 'text') return text.equals(String(a), String(b));
            if (type === 'int' || type === 'float') return Number(a) === Number(b);
            if (type === 'boolean') return toBoolean(a) === toBoolean(b);
            return String(a) === String(b);
        },
        compare(type, a, b) {
            switch (type) {
                case 'text':
                    return text.compare(String(a), String(b));
                case 'int':
                case 'float':
                    return Math.sign(Number(a) - Number(b));
                case 'boolean':
                    return Number(toBoolean(a)) - Number(toBoolean(b));
                default:
                    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
            }
        },
        searchable: (type, value) => type !== 'text' || (text.searchable?.(String(value)) ?? true),
    };
}

/** Compares two strings by code points (= UTF-8 byte order), not by UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
    const left = a[Symbol.iterator]();
    const right = b[Symbol.iterator]();
    for (;;) {
        const x = left.next();
        const y = right.next();
        if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
        const cx = x.value.codePointAt(0)!;
        const cy = y.value.codePointAt(0)!;
        if (cx !== cy) return cx < cy ? -1 : 1;
    }
}

function toBoolean(value: TypedValue): boolean {
    return value === true || value === 1 || value === 'true' || value === '1';
}
