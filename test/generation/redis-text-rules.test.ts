/**
 * The text rules of both dialects, driven with hostile values. RediSearch 2.x cannot run here, so its side is an
 * executable model of the two engine functions that decide TAG equality, transcribed from the RediSearch source:
 * `TagIndex_SepString` + `tokenizeTagString` (src/tag_index.c: split at the separator, trim C `isspace`, lower-case,
 * cut at 4096 bytes; C strings end at NUL) and `tag_strtolower` (src/query.c: run on the tag text after PARAMS
 * were substituted; drops a backslash before C `ispunct`/`isspace`, lower-cases, never trims). Builds before the
 * 2025 multi-byte fix lower-case ASCII only, later ones every letter: the model runs with both. RediSearch 1.2
 * runs for real in test/runtime/redis-text-rules-engine.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { buildRedisViewModel, queryArgv, RedisEncodingError } from '../../src/generation/index.js';
import {
    MAX_TAG_BYTES,
    REDIS_TEXT_RULES,
    TAG_SEPARATOR,
    trimTagSpace,
} from '../../src/generation/redis/redis-text-rules.js';
import { tagForm } from '../../src/runtime/redis/redis-collation.js';
import { loadKvlmFile } from './generation-fixtures.js';
import { hostileText } from './redis-samples.js';

type Lower = (s: string) => string;
const asciiLower: Lower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const unicodeLower: Lower = (s) => s.toLowerCase();
const isCSpace = (c: string) => ' \t\n\v\f\r'.includes(c);
const isCPunct = (c: string) => /^[!-/:-@[-`{-~]$/.test(c);

/** C strings end at the first NUL. */
const cString = (s: string) => (s.includes('\0') ? s.slice(0, s.indexOf('\0')) : s);

/** Cuts a text to at most `bytes` UTF-8 bytes (the engine cuts bytes; a cut inside a character makes a broken tag). */
function cutBytes(text: string, bytes: number): string {
    const buffer = Buffer.from(text, 'utf8');
    return buffer.length <= bytes ? text : buffer.subarray(0, bytes).toString('latin1') + '\u{fffd}cut';
}

/** The tags RediSearch 2.x indexes for a stored text (model of tokenizeTagString). */
function engineIndexedTags(stored: string, lower: Lower): string[] {
    return cString(stored)
        .split(TAG_SEPARATOR)
        .map((tag) => {
            let start = 0;
            let end = tag.length;
            while (start < end && isCSpace(tag[start]!)) start++;
            while (end > start && isCSpace(tag[end - 1]!)) end--;
            return tag.slice(start, end);
        })
        .filter((tag) => tag !== '')
        .map((tag) => cutBytes(lower(tag), MAX_TAG_BYTES));
}

/** The tag RediSearch 2.x looks up for a PARAMS value in `@f:{$p}` (model of tag_strtolower). */
function engineQueriedTag(param: string, lower: Lower): string {
    const text = cString(param);
    let out = '';
    for (let i = 0; i < text.length; i++) {
        const next = text[i + 1];
        if (text[i] === '\\' && next !== undefined && (isCPunct(next) || isCSpace(next))) i++;
        out += text[i];
    }
    return lower(out);
}

describe('the text rules of the two dialects', () => {
    test('a 2.x parameter " 49" binds to "49", the tag the engine indexed (the binding of a real query)', async () => {
        const view = buildRedisViewModel(await loadKvlmFile('test/fixtures/kvlm/airflights-q4q5.kvlm'));
        const argv = queryArgv(view, 'Q3_passengersOfGivenFlight', { code: ' 49' });
        expect(argv.slice(argv.indexOf('PARAMS'))).toEqual(['PARAMS', '2', 'code', '49', 'DIALECT', '2']);
        const legacy = buildRedisViewModel(await loadKvlmFile('test/fixtures/kvlm/airflights-q4q5.kvlm'), {
            dialect: 'redisearch1',
        });
        expect(queryArgv(legacy, 'Q3_passengersOfGivenFlight', { code: ' 49' })[5]).toBe('@FL_code:{49}');
        expect(REDIS_TEXT_RULES.redisearch2.queryTag('\t 4\\9, x \n', 'params')).toBe('4\\\\9, x');
    });

    test('a parameter that is empty after trimming, or that the design cannot serve, is refused with the reason', () => {
        for (const dialect of ['redisearch1', 'redisearch2'] as const) {
            const rules = REDIS_TEXT_RULES[dialect];
            expect(() => rules.queryTag(' \t', 'params')).toThrow(/cannot match an empty text/);
            expect(() => rules.queryTag(`a${TAG_SEPARATOR}b`, 'params')).toThrow(/U\+001F, the TAG separator/);
            expect(() => rules.queryTag('a\0b', 'params')).toThrow(/NUL byte/);
            expect(() => rules.queryTag('x'.repeat(MAX_TAG_BYTES + 1), 'params')).toThrow(/4097 bytes long/);
        }
        expect(() => REDIS_TEXT_RULES.redisearch1.queryTag('a\\,b', 'query-string')).toThrow(RedisEncodingError);
        expect(REDIS_TEXT_RULES.redisearch2.queryTag('a\\,b', 'params')).toBe('a\\\\,b');
    });

    test('both dialects index a text alike, and the oracle compares with that indexed form', () => {
        fc.assert(
            fc.property(hostileText, (text) => {
                expect(REDIS_TEXT_RULES.redisearch1.indexedTag(text)).toBe(
                    REDIS_TEXT_RULES.redisearch2.indexedTag(text),
                );
                expect(tagForm(text)).toBe(REDIS_TEXT_RULES.redisearch2.indexedTag(text));
            }),
            { numRuns: 2000 },
        );
    });

    for (const [build, lower] of [
        ['ASCII lower-casing (2.x builds before 2025)', asciiLower],
        ['Unicode lower-casing (later builds)', unicodeLower],
    ] as const) {
        test(`2.x with ${build}: a servable value's parameter looks up exactly the tag the engine indexed`, () => {
            fc.assert(
                fc.property(hostileText, (text) => {
                    const rules = REDIS_TEXT_RULES.redisearch2;
                    if (rules.unservable(text) !== null || rules.indexedTag(text) === '') {
                        expect(() => rules.queryTag(text, 'params')).toThrow(RedisEncodingError);
                        return;
                    }
                    const indexed = engineIndexedTags(text, lower);
                    expect(indexed).toHaveLength(1);
                    expect(engineQueriedTag(rules.queryTag(text, 'params'), lower)).toBe(indexed[0]);
                }),
                { numRuns: 3000 },
            );
        });

        test(`2.x with ${build}: the engine finds a stored value for a parameter exactly when the oracle says they are equal`, () => {
            const servable = hostileText.filter(
                (t) => REDIS_TEXT_RULES.redisearch2.unservable(t) === null && tagForm(t) !== '',
            );
            // Pairs that differ only by case or edge white space, and unrelated pairs.
            const pair = fc.oneof(
                fc.tuple(servable, servable),
                servable.chain((t) =>
                    fc.tuple(fc.constant(t), fc.constantFrom(t.toUpperCase(), ` ${t}\t`, asciiLower(t), `\n${t}`)),
                ),
            );
            fc.assert(
                fc.property(pair, ([stored, param]) => {
                    const rules = REDIS_TEXT_RULES.redisearch2;
                    fc.pre(rules.unservable(param) === null && tagForm(param) !== '');
                    const found = engineIndexedTags(stored, lower).includes(
                        engineQueriedTag(rules.queryTag(param, 'params'), lower),
                    );
                    // The oracle folds ASCII only: with Unicode lower-casing, texts differing only by the case of a
                    // non-ASCII letter are the one place the engine and the oracle may part (schemas/instance-data.md).
                    const unicodeEqual = unicodeLower(trimTagSpace(stored)) === unicodeLower(trimTagSpace(param));
                    if (lower === unicodeLower && unicodeEqual && tagForm(stored) !== tagForm(param)) return;
                    expect(found).toBe(tagForm(stored) === tagForm(param));
                }),
                { numRuns: 3000 },
            );
        });
    }
});
