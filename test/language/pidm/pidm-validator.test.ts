import { describe, expect, test } from '@jest/globals';
import { PidmIssueCodes } from '../../../src/language/pidm/pidm-validator.js';
import { coveredText, issuesWithCode, loadPidm, validatePidm } from './pidm-test-helpers.js';
import { BASE, CASES, SEVERITY } from './pidm-issue-cases.js';

describe('each PIDM issue code', () => {
    test.each(CASES)('%s (%s) fires on its case', async (code, severity, firing, marked) => {
        const document = await validatePidm(BASE + firing);
        const issues = issuesWithCode(document, code);
        expect(issues.length).toBeGreaterThan(0);
        expect(issues.map((d) => d.severity)).toContain(SEVERITY[severity]);
        expect(issues.map((d) => coveredText(document, d))).toContain(marked);
        expect(issues.every((d) => d.code === code && (d.data as { code: string }).code === code)).toBe(true);
    });

    test.each(CASES)('%s does not fire on the corrected model', async (code, _severity, _firing, _marked, clean) => {
        const document = await validatePidm(BASE + clean);
        expect(issuesWithCode(document, code).map((d) => d.message)).toEqual([]);
    });

    test('the base model of these cases raises nothing', async () => {
        const document = await validatePidm(BASE);
        expect(document.diagnostics).toEqual([]);
    });
});

describe('messages a modeler understands', () => {
    test('an entity without id gets the surrogate identifier _id', async () => {
        const document = await validatePidm(
            BASE + 'entity Localization { latitude float }  query L: select latitude from Localization',
        );
        expect(issuesWithCode(document, PidmIssueCodes.MissingId).map((d) => d.message)).toEqual([
            "Entity 'Localization' has no 'id' attribute: it gets the surrogate identifier '_id'.",
        ]);
    });

    test('the case-mismatch warning names the declared spelling and carries it for the quick fix', async () => {
        const document = await validatePidm(BASE + 'query C: select FirstName from Passenger');
        const [warning] = issuesWithCode(document, PidmIssueCodes.CaseMismatch);
        expect(warning.message).toBe(
            "'FirstName' is declared as 'firstname': names are case-sensitive; write 'firstname'.",
        );
        expect(warning.data).toEqual({ code: PidmIssueCodes.CaseMismatch, expected: 'firstname' });
    });

    test('a path through an INCLUDE-less single-valued reference is included implicitly, once per reference', async () => {
        const document = await validatePidm(
            BASE + 'query J: select current.code, current.origin.city from Passenger order by current.code',
        );
        expect(issuesWithCode(document, PidmIssueCodes.ImplicitInclude).map((d) => d.message)).toEqual([
            "'current.code' goes through the reference 'current', which no INCLUDE names: it is included implicitly (write 'INCLUDE Passenger.current AS …' to make it explicit).",
            "'current.origin.city' goes through the references 'current' and 'origin', which no INCLUDE names: they are included implicitly (write 'INCLUDE Passenger.current.origin AS …' to make it explicit).",
        ]);
    });

    test('a path through an INCLUDE-less multi-valued reference is an error naming the INCLUDE to add', async () => {
        const document = await validatePidm(
            BASE + 'query J: select FL.stops.city from Passenger include Passenger.flights as FL',
        );
        expect(issuesWithCode(document, PidmIssueCodes.PathNotIncluded).map((d) => d.message)).toEqual([
            "'FL.stops.city' goes through the multi-valued reference 'stops', which no INCLUDE names: add 'INCLUDE Passenger.flights.stops AS …' so that the query says it returns one row per Airport.",
        ]);
    });

    test('a prefix of an INCLUDE path covers the paths through it', async () => {
        const document = await validatePidm(
            BASE + 'query J: select flights.code, O.city from Passenger include Passenger.flights.origin as O',
        );
        expect(issuesWithCode(document, PidmIssueCodes.PathNotIncluded)).toEqual([]);
        expect(issuesWithCode(document, PidmIssueCodes.ImplicitInclude)).toEqual([]);
    });

    test('SELECT of a reference asks for one of its attributes', async () => {
        const document = await validatePidm(BASE + 'query R: select FL from Passenger include Passenger.flights as FL');
        expect(issuesWithCode(document, PidmIssueCodes.ReferenceNotAttribute).map((d) => d.message)).toEqual([
            "'FL' stands for entity Flight, not an attribute: SELECT needs one of its attributes, e.g. 'FL.code'.",
        ]);
    });

    test('an INCLUDE of the FROM entity alone names a reference to follow', async () => {
        const document = await validatePidm(BASE + 'query I: select age from Passenger include Passenger as Again');
        expect(issuesWithCode(document, PidmIssueCodes.IncludeNotReference).map((d) => d.message)).toEqual([
            "INCLUDE needs a path through at least one reference, e.g. 'Passenger.flights'.",
        ]);
    });

    test.each([
        ['age = 3', []],
        ['age = -2.5', []],
        ['age = "?"', []],
        ['age = "x"', ['error']],
        ['age = true', ['error']],
        ['height < 1.8', []],
        ['vip = TRUE', []],
        ['vip = 1', ['error']],
        ['vip = "yes"', ['error']],
        ['birthdate = "2001-09-11"', []],
        ['birthdate = "11/09/2001"', ['error']],
        ['birthdate = 20010911', ['error']],
        ['birthdate = "2001-02-29"', ['error']],
        ['birthdate = "0001-01-01"', []],
        ['birthdate = "0000-12-31"', ['error']],
        ['seen < "2023-02-29T10:30:00"', ['error']],
        ['arrival >= "10:30"', []],
        ['arrival >= "10:30:15"', []],
        ['arrival >= "half past ten"', ['error']],
        ['seen < "2024-01-05T10:30:00"', []],
        ['seen < "2024-01-05"', ['error']],
        ['firstname = "Ann"', []],
        ['firstname = 3', ['warning']],
        ['firstname = "?name"', []],
    ])('comparing `%s` gives %j', async (comparison, severities) => {
        const document = await validatePidm(BASE + `query T: select age from Passenger where ${comparison}`);
        const names: Record<number, string> = { 1: 'error', 2: 'warning' };
        expect(issuesWithCode(document, PidmIssueCodes.TypeMismatch).map((d) => names[d.severity ?? 1])).toEqual(
            severities,
        );
    });

    test('an entity declared again in a file of the same model is a duplicate in both', async () => {
        // The second file uses Flight, declared only in the first: one model (model-sets.ts).
        const [first, second] = await loadPidm(BASE, 'entity Passenger { id other  ref Flight[1] flight }');
        expect(issuesWithCode(first, PidmIssueCodes.DuplicateEntity)).toHaveLength(1);
        expect(issuesWithCode(second, PidmIssueCodes.DuplicateEntity)).toHaveLength(1);
    });

    test('an entity declared again in a file that needs nothing of the other is another model, not a duplicate', async () => {
        const [first, second] = await loadPidm(BASE, 'entity Passenger { id other }');
        expect(issuesWithCode(first, PidmIssueCodes.DuplicateEntity)).toEqual([]);
        expect(issuesWithCode(second, PidmIssueCodes.DuplicateEntity)).toEqual([]);
    });

    test('an entity reached only by a query in another file is reached', async () => {
        const [entities] = await loadPidm('entity Crew { id badge }', 'query K: select badge from Crew');
        expect(issuesWithCode(entities, PidmIssueCodes.UnreachableEntity)).toEqual([]);
    });

    test('every issue code is a distinct pidm.* string', () => {
        const codes = Object.values(PidmIssueCodes);
        expect(new Set(codes).size).toBe(codes.length);
        expect(codes.every((code) => /^pidm\.[a-z-]+$/.test(code))).toBe(true);
    });
});
