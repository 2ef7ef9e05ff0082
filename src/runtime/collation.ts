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
     * What order compares of a value: `compare(type, a, b)` is `compareOrderKeys(type, orderKey(type, a),
     * orderKey(type, b))`. A sort makes each value's key once, not twice per comparison: a text's key is its
     * case-folded form, which costs the text's length to make.
     */
    orderKey(type: LogicalType, value: TypedValue): TypedValue;
    /** Compares two values' `orderKey`s, as `compare` compares the values. */
    compareOrderKeys(type: LogicalType, a: TypedValue, b: TypedValue): number;
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
    /**
     * The form of a text that order compares by code points, when `compare` is that (`compare(a, b)` is then
     * `compareCodePoints(orderForm(a), orderForm(b))`): a sort folds each text once.
     */
    orderForm?(text: string): string;
    /** Whether a text can be looked for (default: every text). */
    searchable?(text: string): boolean;
}

/** A collation from an engine's text rules: numbers numerically, ISO temporal text by its text, false < true. */
export function collationFor(text: TextCollation): Collation {
    const orderForm = text.orderForm;
    const compare = (type: LogicalType, a: TypedValue, b: TypedValue): number => {
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
    };
    return {
        name: text.name,
        equals(type, a, b) {
            if (type === 'text') return text.equals(String(a), String(b));
            if (type === 'int' || type === 'float') return Number(a) === Number(b);
            if (type === 'boolean') return toBoolean(a) === toBoolean(b);
            return String(a) === String(b);
        },
        compare,
        orderKey: (type, value) => (type === 'text' && orderForm ? orderForm(String(value)) : value),
        compareOrderKeys: (type, a, b) =>
            type === 'text' && orderForm ? compareCodePoints(a as string, b as string) : compare(type, a, b),
        searchable: (type, value) => type !== 'text' || (text.searchable?.(String(value)) ?? true),
    };
}

/**
 * Compares two strings by code points (= UTF-8 byte order), not by UTF-16 units; a lone surrogate counts as its own
 * code point. The strings are walked by UTF-16 unit up to their first difference, with no object per character (a
 * sort of 1 MB texts compares long common prefixes); only the code points there are read.
 */
export function compareCodePoints(a: string, b: string): number {
    if (a === b) return 0;
    const shorter = Math.min(a.length, b.length);
    let at = 0;
    while (at < shorter && a.charCodeAt(at) === b.charCodeAt(at)) at++;
    if (at === shorter) return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
    // The code points differ where the units do, or one unit earlier when a high surrogate both strings share
    // there pairs with a low surrogate in one of them.
    if (
        at > 0 &&
        isHighSurrogate(a.charCodeAt(at - 1)) &&
        (isLowSurrogate(a.charCodeAt(at)) || isLowSurrogate(b.charCodeAt(at)))
    )
        at--;
    const x = a.codePointAt(at)!;
    const y = b.codePointAt(at)!;
    return x < y ? -1 : 1;
}

function isHighSurrogate(unit: number): boolean {
    return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
    return unit >= 0xdc00 && unit <= 0xdfff;
}

function toBoolean(value: TypedValue): boolean {
    return value === true || value === 1 || value === 'true' || value === '1';
}
