/**
 * Sample values for exercising generated commands against engines: awkward on purpose (quotes, backslashes,
 * a newline, punctuation RediSearch treats as syntax, non-ASCII text, a stopword), valid for their types.
 */
import fc from 'fast-check';
import type { RedisCollection, RedisLogicalType } from '../../src/generation/index.js';
import { MAX_TAG_BYTES, TAG_SEPARATOR } from '../../src/generation/shared/redis-text-rules.js';

/** A text value that needs every kind of quoting and escaping (no leading/trailing spaces: tags are trimmed). */
export const AWKWARD_TEXT = 'He said "hi" \\ back, {x} | y: 100% -5 (in) [a] @b ~c\nnew line ünï 日本 in';

/**
 * The awkward text without its backslash-space: RediSearch 1.2 cannot match a tag with a backslash before a
 * space or punctuation (its query parser unescapes tags twice), so TAG equality on 1.2 is tested with this.
 */
export const AWKWARD_TAG_TEXT = 'He said "hi" a\\b, {x} | y: 100% -5 (in) [a] @b ~c\nnew line ünï 日本 in';

/** The i-th sample value of a type. */
export function sampleValue(type: RedisLogicalType, i: number): unknown {
    switch (type) {
        case 'text':
            return [AWKWARD_TAG_TEXT, 'in', AWKWARD_TEXT][i % 3]!;
        case 'int':
            return [7, -1, 123456789][i % 3]!;
        case 'float':
            return [2.5, 0.0000015, -1e21][i % 3]!;
        case 'boolean':
            return [true, false, true][i % 3]!;
        case 'date':
            return ['2024-02-28', '1999-12-31', '2024-03-01'][i % 3]!;
        case 'time':
            return ['09:00:00', '10:00:00', '00:00:05'][i % 3]!;
        case 'datetime':
            return ['2024-02-28T09:00:00', '1999-12-31T23:59:59', '2024-03-01T00:00:00'][i % 3]!;
    }
}

/** The i-th sample row of a collection: a value for each of its row parameters. */
export function sampleRow(collection: RedisCollection, i: number): Record<string, unknown> {
    return Object.fromEntries(collection.rowParams.map((p) => [p.name, sampleValue(p.type, i)]));
}

/** A query parameter value of a type (text: one RediSearch 1.2 can match as a tag). */
export function sampleParam(type: RedisLogicalType): unknown {
    return type === 'text' ? AWKWARD_TAG_TEXT : sampleValue(type, 0);
}

/** Characters chosen to break a tag: white space of every kind, case pairs, Unicode, separators, query syntax. */
export const HOSTILE_CHARACTERS = [
    ...' \t\n\v\f\r',
    '\u00a0', // no-break space
    '\u2003', // em space
    '\u3000', // ideographic space
    '\u200b', // zero-width space
    '\ufeff', // byte order mark
    '\u0085', // next line
    ...'AaZzÉéßẞİıΣσςK',
    '🎲',
    '日本',
    'e\u0301', // e + combining acute
    TAG_SEPARATOR,
    ...',;|:/.',
    ...'{}()[]@-~*%$"\'`!&^#=<>?+_',
    '\\',
    '\\ ',
    '\\,',
    '\\\\',
    '\0',
    '\x07',
    '\x1b',
    '\x7f',
    '49',
    'in',
    'the',
];

/** Hostile texts: runs of hostile characters, arbitrary strings, and over-long ones. */
export const hostileText = fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.constantFrom(...HOSTILE_CHARACTERS), { maxLength: 8 }).map((a) => a.join('')) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(MAX_TAG_BYTES), 'é'.repeat(MAX_TAG_BYTES / 2 + 1), ' 49 ') },
);
