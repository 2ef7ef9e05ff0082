import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
    escapeQueryFieldName,
    escapeTagValue,
    formatCliCommand,
    quoteCliArgument,
    splitCliLine,
} from '../../src/generation/index.js';

describe('redis-cli quoting', () => {
    test('a plain word stays bare, anything else is double-quoted with backslash escapes', () => {
        expect(quoteCliArgument('FT.CREATE')).toBe('FT.CREATE');
        expect(quoteCliArgument('@FL_code:{$code}')).toBe('@FL_code:{$code}');
        expect(quoteCliArgument('')).toBe('""');
        expect(quoteCliArgument('a b')).toBe('"a b"');
        expect(quoteCliArgument('say "hi"')).toBe('"say \\"hi\\""');
        expect(quoteCliArgument("it's")).toBe('"it\'s"');
        expect(quoteCliArgument('line\nbreak\r\ttab')).toBe('"line\\nbreak\\r\\ttab"');
        expect(quoteCliArgument('\u001f')).toBe('"\\x1f"');
        expect(quoteCliArgument('\u0000\u007f')).toBe('"\\x00\\x7f"');
        expect(quoteCliArgument('ünï 日本 🙂')).toBe('"ünï 日本 🙂"');
    });

    test('a backslash stays bare outside quotes (redis-cli takes it literally there) and is doubled inside them', () => {
        expect(quoteCliArgument('@c:{a\\-b}')).toBe('@c:{a\\-b}');
        expect(quoteCliArgument('a\\ b')).toBe('"a\\\\ b"');
    });

    test('splitting a formatted line gives back the arguments, for any strings', () => {
        fc.assert(
            fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 6 }), (args) => {
                expect(splitCliLine(formatCliCommand(args))).toEqual(args);
            }),
            { numRuns: 500 },
        );
    });

    test('the line splitter follows redis-cli: single quotes, \\x escapes, and a closing quote glued to text is an error', () => {
        expect(splitCliLine(`SET 'it\\'s' "\\x41\\x1f" bare`)).toEqual(['SET', "it's", 'A\u001f', 'bare']);
        expect(() => splitCliLine('SET "a"b')).toThrow(/closing quote/);
        expect(() => splitCliLine('SET "unbalanced')).toThrow(/unbalanced/);
    });
});

describe('RediSearch query escaping', () => {
    test('a TAG value gets a backslash before every ASCII character that is not a letter, digit or underscore', () => {
        expect(escapeTagValue('Paris')).toBe('Paris');
        expect(escapeTagValue('snake_case_9')).toBe('snake_case_9');
        expect(escapeTagValue('New York')).toBe('New\\ York');
        expect(escapeTagValue('a,b.c-d:e')).toBe('a\\,b\\.c\\-d\\:e');
        expect(escapeTagValue('{x} | "y" \\ $z @w')).toBe('\\{x\\}\\ \\|\\ \\"y\\"\\ \\\\\\ \\$z\\ \\@w');
        expect(escapeTagValue('line\nbreak')).toBe('line\\\nbreak');
    });

    test('non-ASCII characters are left alone (RediSearch 1.2 matches nothing after a backslash before one)', () => {
        expect(escapeTagValue('Zürich 日本')).toBe('Zürich\\ 日本');
    });

    test('a field name is escaped with the same rule for use after @', () => {
        expect(escapeQueryFieldName('Origin.city')).toBe('Origin\\.city');
        expect(escapeQueryFieldName('Origin_city')).toBe('Origin_city');
    });
});
