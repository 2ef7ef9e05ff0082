/**
 * Sample values for exercising generated commands against engines: awkward on purpose (quotes, backslashes,
 * a newline, punctuation RediSearch treats as syntax, non-ASCII text, a stopword), valid for their types.
 */
import type { RedisCollection, RedisLogicalType } from '../../src/generation/index.js';

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
