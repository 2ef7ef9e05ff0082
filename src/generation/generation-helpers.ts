/**
 * Helpers every target's templates can use: small, general, no target escaping (that lives with each target,
 * e.g. `redis/redis-helpers.ts`).
 */
import type { HelperDelegate } from 'handlebars';

/** The helpers registered for every target. */
export const commonHelpers: Readonly<Record<string, HelperDelegate>> = {
    /** `{{json value}}`: JSON text (pretty with `{{json value 2}}`). */
    json(value: unknown, ...rest: unknown[]) {
        const indent = rest.length > 1 && typeof rest[0] === 'number' ? rest[0] : undefined;
        return JSON.stringify(value, null, indent);
    },
    /** `{{join list ", "}}`: the items joined (the separator defaults to `, `). */
    join(list: unknown, ...rest: unknown[]) {
        if (!Array.isArray(list)) throw new Error(`join expects a list, got ${typeof list}`);
        const separator = rest.length > 1 && typeof rest[0] === 'string' ? rest[0] : ', ';
        return list.map(String).join(separator);
    },
    /** `{{#if (eq a b)}}`: strict equality. */
    eq(a: unknown, b: unknown) {
        return a === b;
    },
    /** `{{#if (ne a b)}}`: strict inequality. */
    ne(a: unknown, b: unknown) {
        return a !== b;
    },
    /** `{{#if (not x)}}`: negation (empty lists are false, as in `#if`). */
    not(value: unknown) {
        return Array.isArray(value) ? value.length === 0 : !value;
    },
    /** `{{#if (or a b)}}`: true when either is (empty lists are false). */
    or(a: unknown, b: unknown) {
        const truthy = (v: unknown) => (Array.isArray(v) ? v.length > 0 : Boolean(v));
        return truthy(a) || truthy(b);
    },
    /** `{{#if (and a b)}}`: true when both are (empty lists are false). */
    and(a: unknown, b: unknown) {
        const truthy = (v: unknown) => (Array.isArray(v) ? v.length > 0 : Boolean(v));
        return truthy(a) && truthy(b);
    },
    /** `{{length list}}`: the number of items. */
    length(list: unknown) {
        if (!Array.isArray(list)) throw new Error(`length expects a list, got ${typeof list}`);
        return list.length;
    },
    /** `{{inc @index}}`: the number plus one (1-based numbering). */
    inc(n: unknown) {
        return Number(n) + 1;
    },
};
