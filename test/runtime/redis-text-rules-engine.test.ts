/**
 * The RediSearch 1.2 text rules against the real engine: hostile values are stored in a TAG field the way the
 * generated design stores them, then every servable value is looked up with its bound query text. The engine
 * must return exactly the rows the oracle's collation calls equal, no more, no fewer.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { escapeTagValue } from '../../src/generation/shared/redis-escaping.js';
import { equalityForm, REDIS_TEXT_RULES, TAG_SEPARATOR } from '../../src/generation/shared/redis-text-rules.js';
import { tagForm } from '../../src/runtime/redisearch/redis-collation.js';
import { hostileText } from '../generation/redis-samples.js';
import { redisForFile } from '../support/redis-server.js';

const redis = redisForFile();

/**
 * Indexes `values` (as `stored` writes them) in a new TAG index, looks each of `searched` up by its query text and
 * answers the lookups whose documents are not exactly the values the oracle's tag form calls equal.
 */
async function wronglyFound(
    index: string,
    values: string[],
    searched: string[],
    stored: (value: string) => string,
    queried: (value: string) => string,
): Promise<string[]> {
    await redis.client.sendCommand([
        'FT.CREATE',
        index,
        'STOPWORDS',
        '0',
        'SCHEMA',
        't',
        'TAG',
        'SEPARATOR',
        TAG_SEPARATOR,
    ]);
    for (const [i, value] of values.entries())
        await redis.client.sendCommand(['FT.ADD', index, `d${i}`, '1.0', 'FIELDS', 't', stored(value)]);
    const wrong: string[] = [];
    for (const value of searched) {
        const query = `@t:{${queried(value)}}`;
        const reply = (await redis.client.sendCommand([
            'FT.SEARCH',
            index,
            query,
            'NOCONTENT',
            'LIMIT',
            '0',
            '1000',
        ])) as unknown[];
        const found = reply.slice(1).map(String).sort();
        const expected = values.flatMap((v, i) => (tagForm(v) === tagForm(value) ? [`d${i}`] : [])).sort();
        if (JSON.stringify(found) !== JSON.stringify(expected))
            wrong.push(`${JSON.stringify(value)}: found ${found.join(',')}, expected ${expected.join(',')}`);
    }
    return wrong;
}

describe('RediSearch 1.2 text rules on the real engine', () => {
    test('every servable hostile value is found by its bound query text, together with exactly its equals', async () => {
        const rules = REDIS_TEXT_RULES.redisearch1;
        const values = [
            ...new Set([
                ...fc.sample(hostileText, { numRuns: 400, seed: 9 }),
                ' 49',
                '49',
                '49 ',
                'FRANCE',
                'france',
                '\tFrance\n',
                'a\tb',
                'a\nb',
                'Élan',
                'élan',
                'in',
                'the',
            ]),
        ].filter((v) => rules.unservable(v) === null);
        const searchable = values.filter((v) => tagForm(v) !== '');
        expect(searchable.length).toBeGreaterThan(200);
        expect(
            await wronglyFound(
                'hostile',
                values,
                searchable,
                (v) => v,
                (v) => rules.queryTag(v, 'query-string'),
            ),
        ).toEqual([]);
    });

    test("the redisearch2 equality forms, on an engine that lower-cases ASCII letters byte by byte, find exactly the oracle's equals", async () => {
        // RediSearch 1.2 folds tags as the 2.x builds before 2025 did: the forms the redisearch2 design stores and
        // binds run here for real (escaped into the query string, as 1.2 has no PARAMS).
        const rules = REDIS_TEXT_RULES.redisearch2;
        const values = [
            ...new Set([
                ...fc.sample(hostileText, { numRuns: 300, seed: 27 }),
                ...['ΕΛΛΗΝΙΚΆ', 'ελληνικά', 'Ελληνικά', 'İSTANBUL ABC', 'İstanbul abc', 'İstanbul ABC'],
                ...['Élan', 'élan', 'ÉLAN', 'ẞ', 'ß', 'SS', 'МОСКВА', 'Москва', 'москва', 'Ⱥ', 'ⱥ', '100%', '100%25'],
            ]),
        ].filter(
            (v) =>
                rules.unservable(v) === null &&
                REDIS_TEXT_RULES.redisearch1.unservable(rules.storedTag(v)) === null &&
                tagForm(v) !== '',
        );
        expect(values.length).toBeGreaterThan(150);
        const stored = (v: string) => rules.storedTag(v);
        expect(await wronglyFound('forms2', values, values, stored, (v) => escapeTagValue(equalityForm(v)))).toEqual(
            [],
        );
    });
});
