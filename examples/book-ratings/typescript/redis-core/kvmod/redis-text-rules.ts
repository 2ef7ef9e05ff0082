// Copied by kvmod from its src/generation/shared/redis-text-rules.ts: the rules of the Redis design have one source. Do not edit.
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
 *
 * How 2.x lower-cases depends on the build: up to v2.6.26 byte by byte (ASCII letters only); from v2.6.27, v2.8.24,
 * v2.10.13 and in every Redis 8 release with Unicode rules, except that a text holding a character whose lower case
 * takes more bytes (`İ`, `Ⱥ`, `Ⱦ`) is not lower-cased at all. So the redisearch2 design never lets the engine fold:
 * a compared text is stored and bound in its equality form (`equalityForm`), which neither behaviour changes.
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
    /**
     * The text the design stores in the TAG field that equality clauses search: on 1.2 the text itself (the engine
     * folds ASCII letters only, as the oracle does), on 2.x its `equalityForm`, held in the field's equality companion.
     */
    storedTag(text: string): string;
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

/** A character outside ASCII, or `%` (the escape character itself): what `equalityForm` writes as hex. */
const ESCAPED_IN_EQUALITY_FORM = /[^\x00-\x24\x26-\x7f]/gu;

/** A UTF-16 code unit that is half of a surrogate pair without its other half: UTF-8 cannot write it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const UTF8 = new TextEncoder();

/**
 * The equality form of a text (redisearch2): its indexed tag (trimmed, ASCII letters lower-cased), then `%` and every
 * character outside ASCII written as `%` and the lower-case hex digits of each of its UTF-8 bytes (`Élan` →
 * `%c3%89lan`, `ß` → `%c3%9f`). It is plain ASCII without an upper-case letter, so lower-casing it byte by byte or
 * with Unicode rules leaves it as it is, and two texts have the same form exactly when their indexed tags are equal,
 * which is the oracle's equality.
 */
export function equalityForm(text: string): string {
    return indexedTag(text).replace(ESCAPED_IN_EQUALITY_FORM, (char) => {
        let hex = '';
        for (const byte of UTF8.encode(char)) hex += `%${byte.toString(16).padStart(2, '0')}`;
        return hex;
    });
}

/** The reasons that hold in every dialect: separator, NUL, length (of what the TAG field holds: `stored`). */
function commonUnservable(text: string, stored: (text: string) => string): string | null {
    if (text.includes(TAG_SEPARATOR))
        return 'it holds the character U+001F, the TAG separator: the engine would index it as several tags';
    if (text.includes('\0'))
        return 'it holds a NUL byte: the engine cuts a tag at a NUL, so it would equal a shorter text';
    const bytes = Buffer.byteLength(trimTagSpace(stored(text)), 'utf8');
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
    storedTag: (text) => text,
    unsortable,
    unservable(text) {
        const common = commonUnservable(text, (stored) => stored);
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
    storedTag: equalityForm,
    unservable(text) {
        if (LONE_SURROGATE.test(text))
            return 'it holds half of a surrogate pair, which UTF-8 cannot write: the engine would store U+FFFD instead';
        return commonUnservable(text, equalityForm);
    },
    unsortable,
    queryTag(text, via) {
        // The equality form is trimmed, as the engine trims a tag when it indexes it but not a parameter: ' 49' finds
        // '49'. The engine drops one backslash before punctuation or white space of the substituted value, so every
        // backslash is doubled.
        const trimmed = checkedQueryText(RS2_TEXT_RULES, text);
        const form = equalityForm(trimmed);
        if (via === 'params') return form.replace(/\\/g, '\\\\');
        if (/[\x00-\x08\x0e-\x1f\x7f]/.test(trimmed)) {
            throw new RedisEncodingError(
                `the text ${JSON.stringify(trimmed)} holds a control character, which a query string cannot carry; compare with a parameter instead`,
            );
        }
        return form.replace(/[ \t\n\v\f\r!-/:-@[-^`{-~]/g, (char) => `\\${char}`);
    },
};

/** The text rules of each dialect. */
export const REDIS_TEXT_RULES: Readonly<Record<RedisDialect, RedisTextRules>> = {
    redisearch1: RS1_TEXT_RULES,
    redisearch2: RS2_TEXT_RULES,
};
