import { describe, expect, test } from '@jest/globals';
import type { Collection, KvlmModel } from '../../src/language/generated/ast.js';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import fc from 'fast-check';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { sortedIds } from '../../transformations/pidm-to-kvlm/query-to-collection.js';
import { loadAirflights, loadPidm } from './transformation-test-helpers.js';

function collection(model: KvlmModel, name: string): Collection {
    const found = model.collections.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no collection ${name} in ${model.collections.map((c) => c.name).join(', ')}`);
    return found;
}

/** The printed lines of one collection. */
function collectionText(model: KvlmModel, name: string): string {
    const text = printKvlm(model);
    const start = text.indexOf(`collection ${name} {`);
    return text.slice(start, text.indexOf('\n}\n', start) + 2);
}

const ENTITIES = `
entity Passenger {
  id idPassport unique
  firstname text
  age int
  ref Flight[*] flights
  ref Seat[0..1] seat
}
entity Flight {
  id code unique
  departureTime time
  level int
  ref Airport[1] origin
}
entity Airport {
  id codeCAO
  city text
  country text
}
entity Seat { row int }
`;

describe('Algorithm 1: one collection per query', () => {
    test("Q4 gives Figure 8's fields in order: SELECT, then WHERE, then ORDER BY, each once, sort fields indexed", async () => {
        const { model } = transformPidmToKvlm(await loadAirflights(), { merge: 'none' });
        const q4 = collection(model, 'Q4_passengersDepartingGivenCountry');
        expect(q4.fields.map((field) => [field.label, field.type, field.indexed])).toEqual([
            ['Origin.city', 'text', true],
            ['Destination.city', 'text', false],
            ['FL.departureTime', 'time', true],
            ['idPassport', 'text', false],
            ['firstName', 'text', false],
            ['lastName', 'text', false],
            ['birthdate', 'date', false],
            ['sex', 'text', false],
            ['nationality', 'text', false],
            ['FL.departureDate', 'date', false],
            ['Origin.country', 'text', false],
        ]);
        expect(q4.keyField).toBe('Q4_passengersDepartingGivenCountry_id');
    });

    test("fields are named after the query's spelling and point at the declared attribute of their node", async () => {
        const { model } = transformPidmToKvlm(await loadAirflights(), { merge: 'none' });
        expect(collectionText(model, 'Q4_passengersDepartingGivenCountry')).toContain(
            'field firstName: text = Passenger.firstname label "firstName" projected(Q4_passengersDepartingGivenCountry)',
        );
        expect(collectionText(model, 'Q4_passengersDepartingGivenCountry')).toContain(
            'field Origin_country: text = Origin.country label "Origin.country" filtered(Q4_passengersDepartingGivenCountry)',
        );
    });

    test('the row grain lists the FROM entity and every include with its cardinality, and the natural key follows the multi-valued steps', async () => {
        const { model } = transformPidmToKvlm(await loadAirflights(), { merge: 'none' });
        expect(collectionText(model, 'Q8_localizationsOfFlightAircraft')).toContain(
            [
                'key Q8_localizationsOfFlightAircraft_id natural(Flight.code, L._id)',
                '    from Flight as Flight',
                '    include L = Flight.registeredPositions -> Localization many',
                '    include A = Flight.usedAircraft -> Aircraft one',
            ].join('\n'),
        );
    });

    test('the counter key strategy gives every collection a counter key', async () => {
        const { model } = transformPidmToKvlm(await loadAirflights(), { keyStrategy: 'counter' });
        expect(model.collections.every((c) => c.strategy.$type === 'CounterKey')).toBe(true);
        expect(printKvlm(model)).toContain('key Q1_aircraftsCapacityWithin_id counter');
    });

    test('a field is identified by its resolved path: an alias spelling and the full path are one field', async () => {
        const [pidm] = await loadPidm(
            ENTITIES +
                `query Q: SELECT FL.departureTime, Passenger.flights.departureTime AS again
                 FROM Passenger INCLUDE Passenger.flights AS FL
                 WHERE Passenger.flights.departureTime > "?" ORDER BY FL.departureTime DESC`,
        );
        const { model } = transformPidmToKvlm([pidm], { databaseName: 'test' });
        expect(collectionText(model, 'Q')).toBe(
            [
                'collection Q {',
                '    key Q_id natural(Passenger.idPassport, FL.code)',
                '    from Passenger as Passenger',
                '    include FL = Passenger.flights -> Flight many',
                '    field FL_departureTime: time = FL.departureTime label "FL.departureTime" indexed projected(Q) ranged(Q) sorted(Q)',
                '    query Q {',
                '        param departureTime: time',
                '        where FL_departureTime > ?departureTime',
                '        order by FL_departureTime desc',
                '        select FL_departureTime as "FL.departureTime", FL_departureTime as "again"',
                '    }',
                '}',
            ].join('\n'),
        );
    });

    test('a path walking a reference beyond its include is an implicit include named by the reference names', async () => {
        const [pidm] = await loadPidm(
            ENTITIES +
                `query Q: SELECT FL.origin.city FROM Passenger INCLUDE Passenger.flights AS FL WHERE FL.origin.country = "?"`,
        );
        const { model } = transformPidmToKvlm([pidm], { databaseName: 'test' });
        const text = collectionText(model, 'Q');
        expect(text).toContain(
            '    include FL = Passenger.flights -> Flight many\n    include flights_origin = FL.origin -> Airport one\n',
        );
        expect(text).toContain('field FL_origin_city: text = flights_origin.city label "FL.origin.city" projected(Q)');
        expect(text).toContain('param country: text');
    });

    test('parameters: "?" is named after the attribute, repeats get _2, named ones keep their name; literals stay; <> is !=', async () => {
        const [pidm] = await loadPidm(
            ENTITIES +
                `query Q: SELECT firstname FROM Passenger
                 WHERE (age >= "?" and age <= "?") or (firstname <> "?who" and firstname != 'Bob' and age > 30 and not age = "?who2")`,
        );
        const { model } = transformPidmToKvlm([pidm], { databaseName: 'test' });
        const text = collectionText(model, 'Q');
        expect(text).toContain(
            [
                '        param age: int',
                '        param age_2: int',
                '        param who: text',
                '        param who2: int',
                '        where (age >= ?age and age <= ?age_2) or (firstname != ?who and firstname != "Bob" and age > 30 and not age = ?who2)',
            ].join('\n'),
        );
        expect(text).toContain(
            'field firstname: text = Passenger.firstname label "firstname" projected(Q) filtered(Q)',
        );
        expect(text).toContain('field age: int = Passenger.age label "age" filtered(Q) ranged(Q)');
    });

    test('an include with no field still shapes the grain: an optional include is kept as a node', async () => {
        const [pidm] = await loadPidm(
            ENTITIES + `query Q: SELECT firstname FROM Passenger INCLUDE Passenger.seat AS S`,
        );
        const { model } = transformPidmToKvlm([pidm], { databaseName: 'test' });
        expect(collectionText(model, 'Q')).toContain('include S = Passenger.seat -> Seat optional');
    });

    test('an AS alias names the projection column, the FROM alias names the root node', async () => {
        const [pidm] = await loadPidm(
            ENTITIES + `query Q: SELECT P.firstname AS name FROM Passenger AS P ORDER BY P.age ASC`,
        );
        const { model } = transformPidmToKvlm([pidm], { databaseName: 'test' });
        const text = collectionText(model, 'Q');
        expect(text).toContain('from Passenger as P');
        expect(text).toContain('field P_firstname: text = P.firstname label "P.firstname" projected(Q)');
        expect(text).toContain('select P_firstname as "name"');
    });
});

describe("a collection's field ids, sorted (radix sort below 2^22, TypedArray sort above)", () => {
    const sortedLike = (ids: number[], count: number) => Array.from(Int32Array.from(ids.slice(0, count)).sort());
    test.each([
        ['a thousand ids across both digits', 1000, (1 << 22) - 1],
        ['ids above 2^22 (the sort it falls back on)', 200, 2 ** 30],
        ['fewer than 64 ids', 10, (1 << 22) - 1],
    ] as const)('%s: the first count ids, ascending, in a new array', (_, length, max) => {
        fc.assert(
            fc.property(
                fc.array(fc.integer({ min: 0, max }), { minLength: length, maxLength: length + 50 }),
                fc.integer({ min: 0, max: 50 }),
                (ids, extra) => {
                    const count = Math.max(0, ids.length - extra);
                    const input = Int32Array.from(ids);
                    const sorted = sortedIds(input, count);
                    expect(Array.from(sorted)).toEqual(sortedLike(ids, count));
                    expect(Array.from(input)).toEqual(ids);
                },
            ),
            { numRuns: 50 },
        );
    });
});
