/**
 * How values compare, the way the engine compares them, so that the oracle and the engine agree on
 * what "equal" and "before" mean. Measured on Redis 7.0.15 + RediSearch 1.2 (see schemas/instance-data.md,
 * "Collation"):
 * - TAG equality: both sides trimmed of ASCII whitespace, ASCII letters lower-cased; non-ASCII letters keep
 *   their case (`Élan` ≠ `élan`), inner spaces count (`a  b` ≠ `a b`).
 * - SORTABLE text order: full Unicode case folding (`É`→`é`, `Σ`→`σ`, `İ`→`i̇`, `ß`/`ẞ`→`ss`, `ﬀ`→`ff`),
 *   then compared code point by code point (UTF-8 byte order); no trimming, no accents removed.
 * - Numbers numerically; ISO dates, times and datetimes chronologically (their text order); false < true.
 */
import { encodeSortKey } from '../generation/redis/redis-encoding.js';
import { REDIS_TEXT_RULES } from '../generation/redis/redis-text-rules.js';
import type { LogicalType } from '../language/pidm/pidm-semantics.js';

/** A typed value as instance data carries it (ISO strings for temporal types). */
export type TypedValue = string | number | boolean;

/**
 * The form a text takes for TAG equality: the tag the engine indexes (trimmed, ASCII lower-cased), taken from the
 * dialect rules that also bind parameters, so the oracle and the queries cannot disagree. Both dialects index a
 * servable text alike (test/generation/redis-text-rules.test.ts), so the oracle needs no dialect.
 */
export const tagForm: (text: string) => string = REDIS_TEXT_RULES.redisearch2.indexedTag;

/**
 * The form a text takes for sorting: full Unicode case folding (what RediSearch's sorting vector stores). The
 * generator's `encodeSortKey`, so the oracle and the stored sort companions of FT.AGGREGATE fold alike.
 */
export const sortForm: (text: string) => string = encodeSortKey;

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

/** Equality as a filter sees it (`=`): TAG rules for text, exact otherwise. */
export function filterEquals(type: LogicalType, a: TypedValue, b: TypedValue): boolean {
    if (type === 'text') return tagForm(String(a)) === tagForm(String(b));
    if (type === 'int' || type === 'float') return Number(a) === Number(b);
    if (type === 'boolean') return toBoolean(a) === toBoolean(b);
    return String(a) === String(b);
}

/** Order as a sort key sees it: SORTABLE text rules, numbers numerically, ISO text chronologically. */
export function compareTyped(type: LogicalType, a: TypedValue, b: TypedValue): number {
    switch (type) {
        case 'text':
            return compareCodePoints(sortForm(String(a)), sortForm(String(b)));
        case 'int':
        case 'float':
            return Math.sign(Number(a) - Number(b));
        case 'boolean':
            return Number(toBoolean(a)) - Number(toBoolean(b));
        default:
            return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
    }
}

function toBoolean(value: TypedValue): boolean {
    return value === true || value === 1 || value === 'true' || value === '1';
}
