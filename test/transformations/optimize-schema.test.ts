import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import { loadTexts } from '../../src/pipeline/load.js';
import { transformPidmToKvlm, type TransformOptions } from '../../transformations/pidm-to-kvlm/index.js';
import { grainConflict } from '../../transformations/pidm-to-kvlm/grain.js';
import { partnerSizeRange } from '../../transformations/pidm-to-kvlm/optimize-schema.js';
import { passesThreshold, type CollectionModel } from '../../transformations/pidm-to-kvlm/collection-model.js';
import { loadAirflights, loadPidm } from './transformation-test-helpers.js';

const ENTITIES = `
entity Person {
  id pid
  a text  b text  c text  d text  e text  f text  g text  h text  i text  j text
  ref Address[1] home
  ref Address[0..1] office
  ref Phone[*] phones
}
entity Address { id aid  street text  city text }
entity Phone { id number  kind text }
entity Company {
  id cid
  a text  b text  c text  d text  e text  f text  g text  h text  i text  j text
}
`;

/** Transforms a model of ENTITIES plus the given queries, printing the KVLM. */
async function transform(queries: string, options: Partial<TransformOptions> = {}) {
    const models = await loadPidm(ENTITIES + queries);
    const result = transformPidmToKvlm(models, { databaseName: 'test', ...options });
    return { ...result, text: printKvlm(result.model), names: result.model.collections.map((c) => c.name) };
}

/** Nine attributes of Person (or Company): `${NINE}, j` selects ten. */
const NINE = 'a, b, c, d, e, f, g, h, i';

describe('Algorithm 3: merging at a threshold', () => {
    test('Q4 and Q5 of the running example merge: 10 common non-key fields of 11 and 11', async () => {
        const result = transformPidmToKvlm(await loadAirflights());
        expect(result.decisions).toEqual([
            {
                left: 'Q4_passengersDepartingGivenCountry',
                right: 'Q5_passengersDepartingGivenPeriod',
                result: 'Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod',
                common: 10,
                leftSize: 11,
                rightSize: 11,
            },
        ]);
        expect(result.model.collections.map((c) => c.name)).toEqual([
            'Q1_aircraftsCapacityWithin',
            'Q2_airportsGivenCountrySortedByCities',
            'Q3_passengersOfGivenFlight',
            'Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod',
            'Q6_websitesAccessedOnGivenFlight',
            'Q7_aircraftsDepartedFromAirportDuringPeriod',
            'Q8_localizationsOfFlightAircraft',
            'Q9_flightsOnGivenDateByLevel',
        ]);
        expect(result.warnings).toEqual([]);
    });

    test("the merged Q4+Q5 collection is the contract fixture's: Figure 8's fields plus Q5's FL.code, both queries' sort fields indexed", async () => {
        const text = printKvlm(transformPidmToKvlm(await loadAirflights()).model);
        const fixture = readFileSync(new URL('../fixtures/kvlm/airflights-q4q5.kvlm', import.meta.url), 'utf8');
        const section = (source: string) => {
            const start = source.indexOf(
                'collection Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod {',
            );
            return source.slice(start, source.indexOf('\n}\n', start) + 3);
        };
        expect(section(text)).toBe(section(fixture));
        expect(text.endsWith(fixture.slice(fixture.indexOf('merge Q4_')))).toBe(true);
    });

    test('a pair below the threshold in either direction stays apart and is not recorded', async () => {
        // 9 common of 10 and 12: 0.9 and 0.75.
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, home.street, home.city, P.kind FROM Person INCLUDE Person.phones AS P`);
        expect(result.names).toEqual(['A', 'B']);
        expect(result.decisions).toEqual([]);
    });

    test('merges chain: a merged collection replaces both and is compared again until no pair qualifies', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query X: SELECT street FROM Address
            query B: SELECT ${NINE}, j, home.street FROM Person
            query C: SELECT ${NINE}, home.street, home.city FROM Person`);
        expect(result.names).toEqual(['A_B_C', 'X']);
        expect(result.decisions.map((d) => [d.left, d.right, d.result, d.common, d.leftSize, d.rightSize])).toEqual([
            ['A', 'B', 'A_B', 10, 10, 11],
            ['A_B', 'C', 'A_B_C', 10, 11, 11],
        ]);
        expect(result.text).toContain(
            'merge A + B -> A_B common 10 of 10 and 11\nmerge A_B + C -> A_B_C common 10 of 11 and 11\n',
        );
    });

    test('a merged name that is already taken gets a suffix', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j FROM Person
            query A_B: SELECT street FROM Address`);
        expect(result.names).toEqual(['A_B_2', 'A_B']);
    });

    test('same input, same output: the transformation is deterministic', async () => {
        const queries = `
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j, P.kind FROM Person INCLUDE Person.phones AS P
            query C: SELECT ${NINE}, home.street FROM Person`;
        const first = await transform(queries);
        const second = await transform(queries);
        expect(second.text).toBe(first.text);
        expect(second.decisions).toEqual(first.decisions);
    });
});

describe('the safe policy refuses merges that would change answers', () => {
    test('an extra multi-valued path is refused: it would repeat the other query’s rows', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j, P.kind FROM Person INCLUDE Person.phones AS P`);
        expect(result.names).toEqual(['A', 'B']);
        expect(result.decisions).toEqual([
            {
                left: 'A',
                right: 'B',
                refusedBecause: 'B has the extra multi-valued path Person.phones: it would repeat the rows of A',
                common: 10,
                leftSize: 10,
                rightSize: 11,
            },
        ]);
        expect(result.text).toContain(
            'merge A + B refused "B has the extra multi-valued path Person.phones: it would repeat the rows of A" common 10 of 10 and 11\n',
        );
    });

    test('an extra optional path is refused: rows without it would be lost', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, office.city FROM Person
            query B: SELECT ${NINE}, j FROM Person`);
        expect(result.names).toEqual(['A', 'B']);
        expect(result.decisions[0].refusedBecause).toBe(
            'A has the extra optional path Person.office: the rows of B without one would be lost',
        );
    });

    test('an extra [1] path is grain-compatible and merges', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j, home.city FROM Person`);
        expect(result.names).toEqual(['A_B']);
        expect(result.text).toContain('include home = Person.home -> Address one');
    });

    test('a shared multi-valued path is no grain difference', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, P.kind FROM Person INCLUDE Person.phones AS P
            query B: SELECT ${NINE}, Ph.number FROM Person INCLUDE Person.phones AS Ph`);
        expect(result.names).toEqual(['A_B']);
        expect(result.text).toContain('key A_B_id natural(Person.pid, P.number)');
    });

    test('different FROM entities never share a field (identity is the path from the FROM entity), so they never pass the threshold', async () => {
        const result = await transform(
            `
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j FROM Company`,
            { merge: 'paper' },
        );
        expect(result.names).toEqual(['A', 'B']);
        expect(result.decisions).toEqual([]);
    });

    test('the grain rule itself refuses different FROM entities', () => {
        const collection = (name: string, rootEntity: string): CollectionModel => ({
            name,
            rootEntity,
            nodes: [{ key: rootEntity, name: rootEntity, entity: rootEntity, identifier: 'id', cardinality: 'one' }],
            fields: [],
            fieldIds: new Int32Array(0),
            queries: [],
        });
        expect(grainConflict(collection('A', 'Person'), collection('B', 'Company'))).toBe(
            'different FROM entities: A reads Person, B reads Company',
        );
        expect(grainConflict(collection('A', 'Person'), collection('B', 'Person'))).toBeUndefined();
    });

    test('a refused pair is recorded once, and the printed model with refusals parses and validates', async () => {
        const result = await transform(`
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j, P.kind FROM Person INCLUDE Person.phones AS P
            query C: SELECT ${NINE}, j FROM Person`);
        expect(result.names).toEqual(['A_C', 'B']);
        expect(result.decisions.map((d) => [d.left, d.right, d.result ?? 'refused'])).toEqual([
            ['A', 'C', 'A_C'],
            ['A', 'B', 'refused'],
            ['B', 'C', 'refused'],
            ['A_C', 'B', 'refused'],
        ]);
        const reparsed = await loadTexts([{ path: 'test.kvlm', text: result.text }]);
        expect(reparsed.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    });
});

describe('the paper and none policies', () => {
    test('the paper policy merges grain-incompatible pairs, with a warning that answers may change', async () => {
        const result = await transform(
            `
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j, P.kind FROM Person INCLUDE Person.phones AS P
            query C: SELECT ${NINE}, office.city FROM Person`,
            { merge: 'paper' },
        );
        expect(result.names).toEqual(['A_B_C']);
        expect(result.warnings).toEqual([
            'A and B were merged under the paper policy although B has the extra multi-valued path Person.phones: it would repeat the rows of A; the answers of their queries may change',
            'A_B and C were merged under the paper policy although A_B has the extra multi-valued path Person.phones: it would repeat the rows of C; the answers of their queries may change',
        ]);
        expect(result.text).toContain('merge paper threshold 0.8\n');
    });

    test('the none policy merges nothing and records no decision', async () => {
        const result = transformPidmToKvlm(await loadAirflights(), { merge: 'none' });
        expect(result.model.collections).toHaveLength(9);
        expect(result.decisions).toEqual([]);
        expect(printKvlm(result.model)).not.toMatch(/^merge .* -> /m);
    });

    test('a threshold of 1 merges only collections with the same fields', async () => {
        const result = await transform(
            `
            query A: SELECT ${NINE}, j FROM Person
            query B: SELECT ${NINE}, j FROM Person ORDER BY a DESC
            query C: SELECT ${NINE}, j, home.city FROM Person`,
            { threshold: 1 },
        );
        expect(result.names).toEqual(['A_B', 'C']);
    });

    test('an invalid option is rejected with the reason', async () => {
        const models = await loadPidm(ENTITIES);
        expect(() => transformPidmToKvlm(models, { threshold: 0 })).toThrow(
            'the threshold must be a number in (0, 1], got 0',
        );
        expect(() => transformPidmToKvlm(models, { threshold: 1.5 })).toThrow(
            'the threshold must be a number in (0, 1], got 1.5',
        );
        expect(() => transformPidmToKvlm(models, { merge: 'always' as never })).toThrow(
            'the merge policy must be one of safe, paper, none, cost, got always',
        );
    });
});

describe('size filtering', () => {
    test('the partner size range holds exactly the sizes for which a full overlap would pass', () => {
        const wrong: string[] = [];
        for (const threshold of [0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1]) {
            for (let size = 1; size <= 60; size++) {
                const [smallest, largest] = partnerSizeRange(size, threshold);
                for (let other = 1; other <= 700; other++) {
                    const inRange = other >= smallest && other <= largest;
                    if (inRange !== passesThreshold(Math.min(size, other), size, other, threshold))
                        wrong.push(`${threshold} ${size} ${other}`);
                }
            }
        }
        expect(wrong).toEqual([]);
    });
});
