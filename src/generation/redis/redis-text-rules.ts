/**
 * How each RediSearch dialect indexes a text held in a TAG field, and how a text must be written into a query so
 * that the engine looks up exactly what it indexed. One function per job and dialect, used by the writes (which
 * values can be stored at all), the parameter binding (`redis-commands.ts`), the literals of generated queries and
 * the oracle's collation (`runtime/collation.ts`). The rules are documented, with their sources, in the generated
 * README and in schemas/instance-data.md ("Text values in TAG fields").
 *
 * RediSearch 1.2 was measured (Redis 7.0.15, module version 10200). RediSearch 2.x cannot be installed here; its
 * rules come from its documentation and source: `TagIndex_SepString` / `tokenizeTagString` (src/tag_index.c) trim
 * and split at index time, and `tag_strtolower` (src/query.c) runs at query time on the tag text *after* PARAMS
 * were substituted: it drops a backslash before punctuation or white space and lower-cases, but never trims.
 */
import { escapeTagValue } from './redis-escaping.js';
import { RedisEncodingError } from './redis-encoding.js';
import type { RedisDialect } from './redis-dialects.js';

export type { RedisDialect } from './redis-dialects.js';

/** The TAG separator of every generated TAG field: ASCII unit separator, a character real values do not hold. */
export const TAG_SEPARATOR = '\u001f';

/** The longest tag the engine indexes, in UTF-8 bytes (`MAX_TAG_LEN`); a longer one is cut to this length. */
export const MAX_TAG_BYTES = 4096;

/** C's `isspace` in the C locale: what the engine trims from both ends of a tag. */
const EDGE_SPACE = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

/**
 * A backslash before an ASCII character that is not a letter or digit: RediSearch 1.2 unescapes a tag twice (in
 * the lexer, then in the tag clause), so such a pair never survives into the lookup (measured).
 */
const RS1_BACKSLASH_PAIR = /\\[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/;

/** Control characters other than white space: RediSearch 1.2 matches none of them in a tag, escaped or not (measured). */
const RS1_CONTROL = /[\x01-\x08\x0e-\x1e\x7f]/;

/** How one dialect indexes texts in TAG fields and how queries must write them. */
export interface RedisTextRules {
    /** The dialect. */
    dialect: RedisDialect;
    /**
     * The tag the engine indexes for a stored text: trimmed of ASCII white space, ASCII letters lower-cased. Two
     * texts are equal for a TAG clause when their indexed tags are equal. Empty: the engine indexes nothing.
     */
    indexedTag(text: string): string;
    /** Why the engine cannot find this stored text by TAG equality, or null when it can (see the README's table). */
    unservable(text: string): string | null;
    /** Why the engine cannot sort this stored text as the oracle does (SORTABLE), or null when it can. */
    unsortable(text: string): string | null;
    /**
     * The text a query carries for a TAG comparison with `text`: `params` for a value passed as a PARAMS argument
     * (2.x), `query-string` for a value written into the query string (every 1.2 value, and 2.x literals). Throws
     * a RedisEncodingError for a text no TAG clause can match (empty, or unservable).
     */
    queryTag(text: string, via: 'params' | 'query-string'): string;
}

/** Trims what the engine trims from both ends of a tag. */
export function trimTagSpace(text: string): string {
    return text.replace(EDGE_SPACE, '');
}

/** The indexed tag of a text: the same in both dialects (a property test keeps them equal). */
function indexedTag(text: string): string {
    return trimTagSpace(text).replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** The reasons that hold in every dialect: separator, NUL, length. */
function commonUnservable(text: string): string | null {
    if (text.includes(TAG_SEPARATOR))
        return 'it holds the character U+001F, the TAG separator: the engine would index it as several tags';
    if (text.includes('\0'))
        return 'it holds a NUL byte: the engine cuts a tag at a NUL, so it would equal a shorter text';
    const bytes = Buffer.byteLength(trimTagSpace(text), 'utf8');
    if (bytes > MAX_TAG_BYTES)
        return `it is ${bytes} bytes long: the engine indexes only the first ${MAX_TAG_BYTES} bytes of a tag`;
    return null;
}

/** Sorting copies the text into a C string: a NUL ends it. The same in both dialects. */
function unsortable(text: string): string | null {
    return text.includes('\0') ? 'it holds a NUL byte: the engine cuts a sort key at a NUL' : null;
}

/** The query text of a comparison, after the checks every dialect makes. */
function checkedQueryText(rules: RedisTextRules, text: string): string {
    const trimmed = trimTagSpace(text);
    if (trimmed === '')
        throw new RedisEncodingError('a TAG clause cannot match an empty text (the engine indexes none)');
    const why = rules.unservable(trimmed);
    if (why !== null) throw new RedisEncodingError(`no TAG clause can match ${JSON.stringify(trimmed)}: ${why}`);
    return trimmed;
}

/** RediSearch 1.2: no PARAMS, every value is escaped into the query string. */
const RS1_TEXT_RULES: RedisTextRules = {
    dialect: 'redisearch1',
    indexedTag,
    unsortable,
    unservable(text) {
        const common = commonUnservable(text);
        if (common !== null) return common;
        const trimmed = trimTagSpace(text);
        if (RS1_BACKSLASH_PAIR.test(trimmed))
            return 'it holds a backslash before a space, punctuation or another backslash, which RediSearch 1.2 cannot match; use the redisearch2 dialect';
        if (RS1_CONTROL.test(trimmed))
            return 'it holds a control character, which RediSearch 1.2 cannot match; use the redisearch2 dialect';
        return null;
    },
    queryTag(text) {
        // A backslash before every ASCII character that is not a letter, digit or underscore, spaces included.
        return escapeTagValue(checkedQueryText(RS1_TEXT_RULES, text));
    },
};

/** RediSearch 2.x and later: values travel as PARAMS (DIALECT 2); literals are escaped into the query string. */
const RS2_TEXT_RULES: RedisTextRules = {
    dialect: 'redisearch2',
    indexedTag,
    unservable: commonUnservable,
    unsortable,
    queryTag(text, via) {
        const trimmed = checkedQueryText(RS2_TEXT_RULES, text);
        // The engine trims a tag when it indexes it, not a parameter: trimming here makes ' 49' find '49'. It drops
        // one backslash before punctuation or white space of the substituted value, so every backslash is doubled.
        if (via === 'params') return trimmed.replace(/\\/g, '\\\\');
        if (/[\x00-\x08\x0e-\x1f\x7f]/.test(trimmed)) {
            throw new RedisEncodingError(
                `the text ${JSON.stringify(trimmed)} holds a control character, which a query string cannot carry; compare with a parameter instead`,
            );
        }
        return trimmed.replace(/[ \t\n\v\f\r!-/:-@[-^`{-~]/g, (char) => `\\${char}`);
    },
};

/** The text rules of each dialect. */
export const REDIS_TEXT_RULES: Readonly<Record<RedisDialect, RedisTextRules>> = {
    redisearch1: RS1_TEXT_RULES,
    redisearch2: RS2_TEXT_RULES,
};
