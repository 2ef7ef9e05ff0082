/**
 * The oracle's collation reproduces what RediSearch 1.2 was measured to do (schemas/instance-data.md).
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { encodeSortKey } from '../../src/generation/shared/redis-encoding.js';
import { compareCodePoints } from '../../src/runtime/collation.js';
import { redisearchCollation, sortForm, tagForm } from '../../src/runtime/redisearch/redis-collation.js';

const compareTyped = redisearchCollation.compare;
const filterEquals = redisearchCollation.equals;

const sorted = (values: string[]) => [...values].sort((a, b) => compareTyped('text', a, b));

describe('collation', () => {
    test('text sorts like FT.SEARCH SORTBY on a SORTABLE field (measured order)', () => {
        const measured = ['\\x', 'aa', 'Ab', 'i̇a', 'İb', 'ßa', 'ẞb', 'éa', 'Éb', 'σa', 'Σb', '😀b'];
        expect(sorted([...measured].reverse())).toEqual(measured);
        expect(sorted(['sta', 'ßa', 'sra', 'fg', 'a🎲', 'Zulu', '  spaced', ''])).toEqual([
            '',
            '  spaced',
            'a🎲',
            'fg',
            'sra',
            'ßa',
            'sta',
            'Zulu',
        ]);
    });

    test('full case folding makes ligatures, sharp s and the Kelvin sign equal to their spelled-out forms', () => {
        expect(sortForm('ﬀ')).toBe('ff');
        expect(sortForm('ẞ')).toBe('ss');
        expect(sortForm('K')).toBe('k');
        expect(sortForm('ΟΔΟΣ')).toBe('οδοσ');
        expect(sortForm('ı')).toBe('ı');
    });

    test("the oracle folds with the generator's encodeSortKey, so byte order of the stored sort companions is the oracle's text order", () => {
        expect(sortForm).toBe(encodeSortKey);
        const texts = ['Ab', 'aa', 'ÉLAN', 'zed', 'Straße', 'strasbourg', '😀', '\uffe0', ''];
        const byCompanionBytes = [...texts].sort((a, b) =>
            Buffer.compare(Buffer.from(encodeSortKey(a), 'utf8'), Buffer.from(encodeSortKey(b), 'utf8')),
        );
        expect(byCompanionBytes).toEqual(sorted(texts));
        expect(compareCodePoints(encodeSortKey('Ab'), encodeSortKey('aa'))).toBe(1);
    });

    test('code points above the BMP sort after every BMP character, unlike UTF-16 order', () => {
        expect(compareTyped('text', '😀', '\uffe0')).toBe(1);
    });

    test('texts compare by their code points, a lone surrogate being one, wherever the first difference is', () => {
        const byDefinition = (a: string, b: string) => {
            const [x, y] = [Array.from(a, (c) => c.codePointAt(0)!), Array.from(b, (c) => c.codePointAt(0)!)];
            for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
            return Math.sign(x.length - y.length);
        };
        const unit = fc.constantFrom(
            'a',
            'b',
            '\ud83d',
            '\ude00',
            '\ude01',
            '\ud800',
            '\udfff',
            '\ue000',
            '\uffff',
            'é',
        );
        const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(''));
        // A shared prefix, then each its own end: the difference falls anywhere, inside a pair too.
        const pair = fc.tuple(text, text, text).map(([prefix, a, b]) => [prefix + a, prefix + b] as const);
        fc.assert(
            fc.property(
                fc.oneof(pair, fc.tuple(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }))),
                ([a, b]) => {
                    expect(compareCodePoints(a, b)).toBe(byDefinition(a, b));
                },
            ),
            { numRuns: 5000 },
        );
    });

    test('order keys compare as the values do: a sort folds each text once (Collation.orderKey)', () => {
        const texts = ['b', 'B', 'ß', 'ss', 'Σb', 'σa', '😀', '\uffe0', '', 'İ', 'i\u0307', 'z'];
        for (const a of texts) {
            for (const b of texts) {
                const keys = redisearchCollation.compareOrderKeys(
                    'text',
                    redisearchCollation.orderKey('text', a),
                    redisearchCollation.orderKey('text', b),
                );
                expect([a, b, Math.sign(keys)]).toEqual([a, b, Math.sign(compareTyped('text', a, b))]);
            }
        }
        expect(redisearchCollation.orderKey('int', 7)).toBe(7);
        expect(redisearchCollation.compareOrderKeys('int', 10, 9)).toBe(1);
    });

    test('TAG equality trims and lower-cases ASCII only', () => {
        expect(tagForm('  Hello World\t')).toBe('hello world');
        expect(filterEquals('text', 'FRANCE', 'france ')).toBe(true);
        expect(filterEquals('text', 'Élan', 'élan')).toBe(false);
        expect(filterEquals('text', 'a  b', 'a b')).toBe(false);
    });

    test('dates, times and numbers compare chronologically and numerically', () => {
        expect(compareTyped('date', '1999-12-31', '2000-01-01')).toBe(-1);
        expect(compareTyped('int', 90, 800)).toBe(-1);
        expect(compareTyped('boolean', false, true)).toBe(-1);
    });
});
