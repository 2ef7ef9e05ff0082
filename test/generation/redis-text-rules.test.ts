/**
 * The text rules of both dialects, driven with hostile values. RediSearch 2.x cannot run here, so its side is an
 * executable model of the two engine functions that decide TAG equality, transcribed from the RediSearch source:
 * `TagIndex_SepString` + `tokenizeTagString` (src/tag_index.c: split at the separator, trim C `isspace`, lower-case,
 * cut at 4096 bytes; C strings end at NUL) and `tag_strtolower` (src/query.c: run on the tag text after PARAMS
 * were substituted; drops a backslash before C `ispunct`/`isspace`, lower-cases, never trims). Builds before the
 * 2025 multi-byte fix lower-case ASCII only, later ones with Unicode rules, except that a text holding a letter whose
 * lower case takes more bytes (`İ`, `Ⱥ`, `Ⱦ`) is left as it is: the model runs with both. RediSearch 1.2 runs for real
 * in test/runtime/redis-text-rules-engine.test.ts (with the 2.x forms too: it lower-cases ASCII letters only).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { buildRedisViewModel, queryArgv, RedisEncodingError } from '../../src/generation/index.js';
import {
    equalityForm,
    MAX_TAG_BYTES,
    REDIS_TEXT_RULES,
    TAG_SEPARATOR,
} from '../../src/generation/shared/redis-text-rules.js';
import { tagForm } from '../../src/runtime/redisearch/redis-collation.js';
import { loadKvlmFile } from './generation-fixtures.js';
import { hostileText } from './redis-samples.js';

type Lower = (s: string) => string;
const asciiLower: Lower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
/**
 * The later builds: every character lower-cased on its own (Unicode simple mapping, as the engine's per-code-point
 * call does), unless one of them would take more UTF-8 bytes lowered; then the text is not lower-cased at all.
 */
const unicodeLower: Lower = (s) => {
    const chars = [...s];
    if (chars.some((c) => Buffer.byteLength(c.toLowerCase()) > Buffer.byteLength(c))) return s;
    return chars.map((c) => c.toLowerCase()).join('');
};
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

    /** Case pairs in several scripts, and the texts a Unicode build leaves unlowered (measured on 2.6.37). */
    const CASE_PAIRS: readonly string[][] = [
        ['ΕΛΛΗΝΙΚΆ', 'ελληνικά', 'Ελληνικά'],
        ['İSTANBUL ABC', 'İstanbul abc', 'İstanbul ABC', 'istanbul abc'],
        ['Élan', 'élan', 'ÉLAN', 'elan'],
        ['ẞ', 'ß', 'SS', 'ss'],
        ['МОСКВА', 'Москва', 'москва'],
        ['Ⱥ ab', 'ⱥ AB', 'Ⱦ', 'ⱦ'],
        ['Straße', 'STRASSE', 'STRAẞE'],
    ];

    for (const [build, lower] of [
        ['ASCII lower-casing (2.x builds before 2025)', asciiLower],
        ['Unicode lower-casing (later builds)', unicodeLower],
    ] as const) {
        test(`2.x with ${build}: the equality form of any text is what the engine indexes, and a parameter looks it up`, () => {
            fc.assert(
                fc.property(hostileText, (text) => {
                    const rules = REDIS_TEXT_RULES.redisearch2;
                    expect(lower(equalityForm(text))).toBe(equalityForm(text));
                    if (rules.unservable(text) !== null || rules.indexedTag(text) === '') {
                        expect(() => rules.queryTag(text, 'params')).toThrow(RedisEncodingError);
                        return;
                    }
                    const indexed = engineIndexedTags(rules.storedTag(text), lower);
                    expect(indexed).toEqual([equalityForm(text)]);
                    expect(engineQueriedTag(rules.queryTag(text, 'params'), lower)).toBe(indexed[0]);
                }),
                { numRuns: 3000 },
            );
        });

        test(`2.x with ${build}: the engine finds a stored value for a parameter or literal exactly when the oracle says they are equal`, () => {
            const servable = hostileText.filter(
                (t) => REDIS_TEXT_RULES.redisearch2.unservable(t) === null && tagForm(t) !== '',
            );
            // Pairs that differ only by case (ASCII, or of any script) or edge white space, and unrelated pairs.
            const pair = fc.oneof(
                fc.tuple(servable, servable),
                servable.chain((t) =>
                    fc.tuple(
                        fc.constant(t),
                        fc.constantFrom(t.toUpperCase(), t.toLowerCase(), ` ${t}\t`, asciiLower(t), `\n${t}`),
                    ),
                ),
                fc
                    .constantFrom(...CASE_PAIRS)
                    .chain((group) => fc.tuple(fc.constantFrom(...group), fc.constantFrom(...group))),
            );
            fc.assert(
                fc.property(pair, ([stored, param]) => {
                    const rules = REDIS_TEXT_RULES.redisearch2;
                    fc.pre(rules.unservable(param) === null && tagForm(param) !== '');
                    const tags = engineIndexedTags(rules.storedTag(stored), lower);
                    const equal = tagForm(stored) === tagForm(param);
                    expect(tags.includes(engineQueriedTag(rules.queryTag(param, 'params'), lower))).toBe(equal);
                    if (!/[\x00-\x08\x0e-\x1f\x7f]/.test(param)) {
                        // A literal of the model, escaped into the query string: the query parser unescapes it.
                        const literal = engineQueriedTag(rules.queryTag(param, 'query-string'), lower);
                        expect(tags.includes(literal)).toBe(equal);
                    }
                }),
                { numRuns: 3000 },
            );
        });
    }

    test('the measured 2.x cases: a Unicode build folds a raw tag unlike the oracle, never the equality form', () => {
        const rules = REDIS_TEXT_RULES.redisearch2;
        // What a design that let the engine fold would have seen: each of these differs from the oracle.
        const raw = (a: string, b: string) => unicodeLower(a) === unicodeLower(b);
        expect(raw('ΕΛΛΗΝΙΚΆ', 'ελληνικά')).toBe(true);
        expect(raw('ẞ', 'ß')).toBe(true);
        expect(raw('İSTANBUL ABC', 'İstanbul ABC')).toBe(false);
        expect(tagForm('ΕΛΛΗΝΙΚΆ') === tagForm('ελληνικά')).toBe(false);
        expect(tagForm('ẞ') === tagForm('ß')).toBe(false);
        expect(tagForm('İSTANBUL ABC') === tagForm('İstanbul ABC')).toBe(true);
        for (const group of CASE_PAIRS) {
            for (const a of group) {
                for (const b of group) {
                    for (const lower of [asciiLower, unicodeLower]) {
                        const tags = engineIndexedTags(rules.storedTag(a), lower);
                        const found = tags.includes(engineQueriedTag(rules.queryTag(b, 'params'), lower));
                        expect([a, b, found]).toEqual([a, b, tagForm(a) === tagForm(b)]);
                    }
                }
            }
        }
        expect(equalityForm('  Élan 100% ')).toBe('%c3%89lan 100%25');
        expect(equalityForm('İSTANBUL')).toBe('%c4%b0stanbul');
        expect(rules.queryTag('Élan', 'query-string')).toBe('\\%c3\\%89lan');
    });
});
