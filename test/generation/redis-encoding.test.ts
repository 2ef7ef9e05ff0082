import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
    decodeRedisValue,
    encodeRedisValue,
    encodeSortKey,
    escapeKeyPart,
    naturalKeySuffix,
    RedisEncodingError,
    toPlainDecimal,
} from '../../src/generation/index.js';

describe('value encoding for Redis', () => {
    test('dates, times and datetimes become order-preserving integers and read back as ISO strings', () => {
        expect(encodeRedisValue('date', '2024-05-01')).toBe('20240501');
        expect(encodeRedisValue('time', '08:30:00')).toBe('83000');
        expect(encodeRedisValue('time', '00:00')).toBe('0');
        expect(encodeRedisValue('datetime', '2024-05-01T08:30:05')).toBe('20240501083005');
        expect(encodeRedisValue('datetime', '2024-05-01 08:30')).toBe('20240501083000');
        expect(decodeRedisValue('date', '20240501')).toBe('2024-05-01');
        expect(decodeRedisValue('time', '83000')).toBe('08:30:00');
        expect(decodeRedisValue('datetime', '20240501083005')).toBe('2024-05-01T08:30:05');
    });

    test('an impossible date or a wrongly written one is an encoding error naming the expected form', () => {
        expect(() => encodeRedisValue('date', '2023-02-29')).toThrow(RedisEncodingError);
        expect(() => encodeRedisValue('date', '01/05/2024')).toThrow(/YYYY-MM-DD/);
        expect(() => encodeRedisValue('time', '24:00:00')).toThrow(/time of day/);
        expect(encodeRedisValue('date', '2024-02-29')).toBe('20240229');
    });

    test('years 0001-9999 are encoded and read back as ISO allows; year 0000 is no calendar date', () => {
        expect(encodeRedisValue('date', '0001-01-01')).toBe('10101');
        expect(decodeRedisValue('date', '10101')).toBe('0001-01-01');
        expect(encodeRedisValue('date', '0099-12-31')).toBe('991231');
        expect(decodeRedisValue('date', '991231')).toBe('0099-12-31');
        expect(encodeRedisValue('datetime', '0004-02-29T00:00:00')).toBe('40229000000');
        expect(encodeRedisValue('date', '9999-12-31')).toBe('99991231');
        expect(() => encodeRedisValue('date', '0000-01-01')).toThrow(/not a calendar date/);
        expect(() => encodeRedisValue('date', '0100-02-29')).toThrow(/not a calendar date/);
    });

    test('numbers are plain decimals without an exponent; booleans are 0 and 1', () => {
        expect(encodeRedisValue('int', 42)).toBe('42');
        expect(encodeRedisValue('int', '007')).toBe('7');
        expect(encodeRedisValue('float', 1e21)).toBe('1000000000000000000000');
        expect(encodeRedisValue('float', 1.5e-7)).toBe('0.00000015');
        expect(encodeRedisValue('float', -0.5)).toBe('-0.5');
        expect(encodeRedisValue('float', '2.50')).toBe('2.5');
        expect(encodeRedisValue('boolean', true)).toBe('1');
        expect(encodeRedisValue('boolean', 'false')).toBe('0');
        expect(() => encodeRedisValue('int', 1.5)).toThrow(/integer/);
        expect(() => encodeRedisValue('float', Number.NaN)).toThrow(/finite/);
        expect(() => encodeRedisValue('boolean', 'yes')).toThrow(/true or false/);
    });

    test('any finite double keeps its value through the plain decimal form', () => {
        fc.assert(
            fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
                const plain = encodeRedisValue('float', n);
                expect(plain).toMatch(/^-?\d+(\.\d+)?$/);
                expect(Number(plain)).toBe(n === 0 ? 0 : n);
            }),
            { numRuns: 500 },
        );
        expect(toPlainDecimal('-1.25e2')).toBe('-125');
    });

    test('the sort form of a text is its full Unicode case folding, untrimmed and with accents kept', () => {
        expect(encodeSortKey('ÉVORA Straße')).toBe('évora strasse');
        expect(encodeSortKey('ﬀ ẞ K ΟΔΟΣ İ')).toBe('ff ss k οδοσ i\u0307');
        expect(encodeSortKey('ı')).toBe('ı');
        expect(encodeSortKey('  Ab\t')).toBe('  ab\t');
        expect(encodeSortKey('')).toBe('');
    });

    test('the sort form folds each character as it would alone, whatever surrounds it (a final Σ too)', () => {
        // The definition, one character at a time; the encoder maps whole runs where that gives the same text.
        const foldEach = (text: string) =>
            Array.from(text, (c) =>
                c === 'ı' ? c : Array.from(c.toLowerCase().toUpperCase(), (u) => u.toLowerCase()).join(''),
            ).join('');
        const tricky = fc.constantFrom(
            'Σ',
            'σ',
            'ς',
            'ı',
            'İ',
            'ẞ',
            'ß',
            'ﬀ',
            '\u0345',
            'ΐ',
            'K',
            'A',
            'z',
            ' ',
            '.',
            '😀',
            '\ud800',
            '\udc00',
        );
        const texts = fc.oneof(
            fc.array(tricky, { maxLength: 12 }).map((parts) => parts.join('')),
            fc.string({ unit: 'binary', maxLength: 12 }),
        );
        fc.assert(
            fc.property(texts, (text) => {
                expect(encodeSortKey(text)).toBe(foldEach(text));
            }),
            { numRuns: 3000 },
        );
        expect(encodeSortKey('ΟΔΟΣ ΟΔΟΣ.')).toBe('οδοσ οδοσ.');
    });

    test('natural key parts escape % and : so that different part lists never make the same key', () => {
        expect(escapeKeyPart('a:b%c')).toBe('a%3Ab%25c');
        const a = naturalKeySuffix([
            { type: 'text', value: 'a:b' },
            { type: 'text', value: 'c' },
        ]);
        const b = naturalKeySuffix([
            { type: 'text', value: 'a' },
            { type: 'text', value: 'b:c' },
        ]);
        expect(a).toBe('a%3Ab:c');
        expect(b).toBe('a:b%3Ac');
        expect(
            naturalKeySuffix([
                { type: 'date', value: '2024-05-01' },
                { type: 'int', value: 3 },
            ]),
        ).toBe('20240501:3');
    });
});
