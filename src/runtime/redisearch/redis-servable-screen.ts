/**
 * A quick answer for the usual text, before a dialect's text rule (generation/shared/redis-text-rules.ts) is asked why
 * the engine could not serve it: a load asks for every searched value of its data (40,000 on the airflights data at
 * scale 10,000). The rules trim the text twice, count its UTF-8 bytes and search it three times; most texts are short
 * and hold none of the characters a reason looks for, which one regular expression tells. Any other text gets the
 * rule's answer, so every answer and message is the rule's. (The rules module itself is shipped verbatim inside
 * every generated TypeScript client: the screen stays out of it.)
 */
import { MAX_TAG_BYTES, REDIS_TEXT_RULES, type RedisDialect } from '../../generation/shared/redis-text-rules.js';

/**
 * The longest text whose tag cannot exceed `MAX_TAG_BYTES`, whatever it holds. 1.2 stores the text: a UTF-16 code unit
 * is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4 bytes; a lone surrogate is written as U+FFFD, 3 bytes).
 * 2.x stores its equality form, which writes each byte of a non-ASCII character as 3 (`%c3`): at most 9 per unit.
 */
const ALWAYS_SHORT_ENOUGH: Readonly<Record<RedisDialect, number>> = {
    redisearch1: Math.floor(MAX_TAG_BYTES / 3),
    redisearch2: Math.floor(MAX_TAG_BYTES / 9),
};

/**
 * The characters some reason of each dialect looks for. Both: NUL and the TAG separator U+001F. RediSearch 1.2 also:
 * a backslash (before punctuation, space or another backslash) and the control characters other than white space. 2.x
 * also: a surrogate (half of a pair when alone).
 */
const SUSPECT: Readonly<Record<RedisDialect, RegExp>> = {
    redisearch1: /[\x00-\x08\x0e-\x1f\x7f\\]/,
    redisearch2: /[\x00\x1f\ud800-\udfff]/,
};

/** `REDIS_TEXT_RULES[dialect].unservable`, answering null at once for a short text without a suspect character. */
export function screenedUnservable(dialect: RedisDialect): (text: string) => string | null {
    const rules = REDIS_TEXT_RULES[dialect];
    const suspect = SUSPECT[dialect];
    const short = ALWAYS_SHORT_ENOUGH[dialect];
    return (text) => (text.length <= short && !suspect.test(text) ? null : rules.unservable(text));
}
