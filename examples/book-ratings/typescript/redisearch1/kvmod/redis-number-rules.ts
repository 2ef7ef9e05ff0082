// Copied by kvmod from its src/generation/shared/redis-number-rules.ts: the rules of the Redis design have one source. Do not edit.
/**
 * Which numbers a RediSearch dialect's NUMERIC index keeps exactly. RediSearch 1.2 writes a number that is not whole
 * into its inverted index as the nearest 32-bit float whenever that float lies less than 0.01 from it (`encodeNumeric`,
 * src/inverted_index.c: `fabs(absVal - f32Num) < 0.01`), so 0.1, 19.99, 323.55, 1e-7 and every denormal are indexed
 * as another number, while its range tree keeps the exact value: a range on such a value answers by the exact value
 * in some leaves and by the float in others (measured on module version 10200: of 3,000 stored doubles, every such
 * value missed `[v v]` and every other value was found, with exactly its equals). Its query parser reads a plain
 * decimal exactly. RediSearch 2.x keeps the double unless the index is told to compress (`numericCompress`, off by
 * default), so it serves every finite number.
 */
import type { RedisDialect } from './redis-dialects.js';

/** The number RediSearch 1.2's NUMERIC index keeps of a stored finite number. */
export function rs1IndexedNumber(value: number): number {
    if (Number.isInteger(value)) return value;
    const single = Math.fround(value);
    return Math.abs(value - single) < 0.01 ? single : value;
}

/** Why a dialect's NUMERIC index cannot find a stored number by comparison, or null when it can. */
export function unservableNumber(dialect: RedisDialect, value: number): string | null {
    if (dialect !== 'redisearch1' || !Number.isFinite(value)) return null;
    const indexed = rs1IndexedNumber(value);
    if (indexed === value) return null;
    return (
        `RediSearch 1.2 indexes it as the 32-bit float ${indexed}, so comparisons with it answer wrongly; ` +
        'use a value a 32-bit float holds exactly (a whole number, 0.25, 19.75) or the redisearch2 dialect'
    );
}
