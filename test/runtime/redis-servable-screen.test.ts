/**
 * The quick answer a load gives the usual text before asking a dialect's text rule (runtime/redisearch/
 * redis-servable-screen.ts): every answer, reason and message must be the rule's. Hostile texts (property-based) and
 * the edges of the screen: the length at which a text may exceed 4096 bytes of UTF-8, each character a reason looks
 * for, at each end and inside.
 */
import { describe, expect, jest, test } from '@jest/globals';
import fc from 'fast-check';
import { MAX_TAG_BYTES, REDIS_TEXT_RULES, TAG_SEPARATOR } from '../../src/generation/shared/redis-text-rules.js';
import { DEFAULT_REDIS_OPTIONS } from '../../src/generation/redis/redis-view-model-types.js';
import { redisEngine } from '../../src/runtime/redisearch/redis-engine.js';
import { screenedUnservable } from '../../src/runtime/redisearch/redis-servable-screen.js';
import { HOSTILE_CHARACTERS, hostileText } from '../generation/redis-samples.js';

const DIALECTS = ['redisearch1', 'redisearch2'] as const;
const long = (bytes: number) => `it is ${bytes} bytes long: the engine indexes only the first 4096 bytes of a tag`;

/** Texts at the screen's edges: around 4096 / 3 characters and 4096 bytes, each suspect character placed three ways. */
function edgeTexts(): string[] {
    const texts = [
        '\u20ac'.repeat(1365), // 4095 bytes
        '\u20ac'.repeat(1366), // 4098 bytes
        `a${'\u20ac'.repeat(1365)}`, // 4096 bytes
        `ab${'\u20ac'.repeat(1365)}`, // 4097 bytes
        '\ud800'.repeat(1366), // lone surrogates: U+FFFD, 3 bytes each
        '\ud83d\ude00'.repeat(1024), // pairs: 4 bytes for 2 characters, 4096 bytes
        `x${'\ud83d\ude00'.repeat(1024)}`,
        'x'.repeat(MAX_TAG_BYTES),
        'x'.repeat(MAX_TAG_BYTES + 1),
        ` ${'x'.repeat(MAX_TAG_BYTES)}\t`,
        'x'.repeat(1365),
        'x'.repeat(1366),
        // The 2.x equality form writes each byte of a non-ASCII character as 3: 9 bytes a euro sign, 12 an emoji.
        '\u20ac'.repeat(455),
        '\u20ac'.repeat(456),
        '\u{1f600}'.repeat(341),
        '\u{1f600}'.repeat(342),
        '',
        ' ',
    ];
    const characters = [...HOSTILE_CHARACTERS];
    for (let code = 0; code < 0x80; code++) characters.push(String.fromCharCode(code));
    for (const character of characters)
        for (const text of [`${character}ab`, `a${character}b`, `ab${character}`, `${character}\\`, `\\${character}`])
            texts.push(text, text + 'x'.repeat(1365 - text.length), text + 'x'.repeat(1366 - text.length));
    return texts;
}

describe("the servable screen gives the dialect rule's answer", () => {
    for (const dialect of DIALECTS) {
        test(`${dialect}: the same answer as the rule for the texts at the screen's edges`, () => {
            const screened = screenedUnservable(dialect);
            const rule = REDIS_TEXT_RULES[dialect];
            for (const text of edgeTexts()) expect([text, screened(text)]).toEqual([text, rule.unservable(text)]);
        });

        test(`${dialect}: the same answer as the rule for every UTF-16 code unit, at each end and inside`, () => {
            // A rule that comes to look for a character the screen's classes do not list fails here.
            const screened = screenedUnservable(dialect);
            const rule = REDIS_TEXT_RULES[dialect];
            const differing: string[] = [];
            for (let code = 0; code <= 0xffff; code++) {
                const c = String.fromCharCode(code);
                for (const text of [`${c}ab`, `a${c}b`, `ab${c}`, `${c}\\`, `\\${c}`])
                    if (screened(text) !== rule.unservable(text)) differing.push(JSON.stringify(text));
            }
            expect(differing).toEqual([]);
        });

        test(`${dialect}: the same answer as the rule for hostile texts`, () => {
            const screened = screenedUnservable(dialect);
            const rule = REDIS_TEXT_RULES[dialect];
            const longer = fc
                .tuple(hostileText, fc.integer({ min: 1300, max: 1400 }))
                .map(([text, n]) => text + 'é'.repeat(n));
            fc.assert(
                fc.property(fc.oneof(hostileText, longer), (text) => screened(text) === rule.unservable(text)),
                { numRuns: 5000 },
            );
        });

        test(`${dialect}: the engine's text rules for a load use the screen, with the rule's reasons`, () => {
            const rules = redisEngine.textRules({ ...DEFAULT_REDIS_OPTIONS, dialect });
            expect(rules.name).toBe(dialect);
            expect(rules.unservable('Paris')).toBeNull();
            // The screen answers the usual text itself: the rule is not asked (the engine's rules would pass the
            // answers above without the screen; this does not).
            const rule = REDIS_TEXT_RULES[dialect];
            const asked = jest.spyOn(rule, 'unservable');
            try {
                expect(rules.unservable('Lyon')).toBeNull();
                expect(asked).not.toHaveBeenCalled();
                rules.unservable('a\0b');
                expect(asked).toHaveBeenCalledTimes(1);
            } finally {
                asked.mockRestore();
            }
            // 1.2 stores the text (3 bytes a euro sign), 2.x its equality form (`%e2%82%ac`, 9 bytes).
            expect(rules.unservable('\u20ac'.repeat(1366))).toBe(long(dialect === 'redisearch1' ? 4098 : 12294));
            if (dialect === 'redisearch2') expect(rules.unservable('\u20ac'.repeat(456))).toBe(long(4104));
            expect(rules.unservable(`a${TAG_SEPARATOR}b`)).toMatch(/U\+001F, the TAG separator/);
            expect(rules.unservable('a\0b')).toMatch(/NUL byte/);
            expect(rules.unservable('a\\,b')).toBe(REDIS_TEXT_RULES[dialect].unservable('a\\,b'));
            expect(rules.unsortable('a\0b')).toBe('it holds a NUL byte: the engine cuts a sort key at a NUL');
        });
    }
});
