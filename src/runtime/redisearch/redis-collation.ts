/**
 * RediSearch's collation, measured on Redis 7.0.15 + RediSearch 1.2 (see schemas/instance-data.md, "Collation"):
 * - TAG equality: both sides trimmed of ASCII whitespace, ASCII letters lower-cased; non-ASCII letters keep
 *   their case (`Élan` ≠ `élan`), inner spaces count (`a  b` ≠ `a b`); a text blank once trimmed is no tag.
 * - SORTABLE text order: full Unicode case folding (`É`→`é`, `Σ`→`σ`, `İ`→`i̇`, `ß`/`ẞ`→`ss`, `ﬀ`→`ff`),
 *   then compared code point by code point (UTF-8 byte order); no trimming, no accents removed.
 * - Numbers numerically; ISO dates, times and datetimes chronologically (their text order); false < true.
 */
import { encodeSortKey } from '../../generation/shared/redis-encoding.js';
import { REDIS_TEXT_RULES } from '../../generation/shared/redis-text-rules.js';
import { collationFor, compareCodePoints, type Collation } from '../collation.js';

/**
 * The form a text takes for TAG equality: the tag the engine indexes (trimmed, ASCII lower-cased), taken from the
 * dialect rules that also bind parameters, so the oracle and the queries cannot disagree. Both dialects index a
 * servable text alike (test/generation/redis-text-rules.test.ts), so the collation needs no dialect.
 */
export const tagForm: (text: string) => string = REDIS_TEXT_RULES.redisearch2.indexedTag;

/**
 * The form a text takes for sorting: full Unicode case folding (what RediSearch's sorting vector stores). The
 * generator's `encodeSortKey`, so the oracle and the stored sort companions of FT.AGGREGATE fold alike.
 */
export const sortForm: (text: string) => string = encodeSortKey;

/** RediSearch's collation (both dialects). */
export const redisearchCollation: Collation = collationFor({
    name: 'redisearch',
    equals: (a, b) => tagForm(a) === tagForm(b),
    compare: (a, b) => compareCodePoints(sortForm(a), sortForm(b)),
    orderForm: sortForm,
    searchable: (text) => tagForm(text) !== '',
});
