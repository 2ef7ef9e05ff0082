import { describe, expect, test } from '@jest/globals';
import { isAttribute, isReference } from '../../../src/language/generated/ast.js';
import { PidmIssueCodes } from '../../../src/language/pidm/pidm-validator.js';
import { resolvePath } from '../../../src/language/pidm/pidm-semantics.js';
import { codeOf, coveredText, errors, issuesWithCode, loadPidm, validatePidm } from './pidm-test-helpers.js';

const MODEL = `
entity Passenger { id idPassport  firstname text  lastname text  ref Flight[*] flights  ref Flight[1] current }
entity Flight { id code  departureTime time  ref Airport[1] origin  ref Airport[1] destination }
entity Airport { id codeCAO  city text  country text }
`;

async function query(text: string) {
    const document = await validatePidm(MODEL + text);
    return { document, query: document.parseResult.value.queries[0] };
}

describe('resolving paths', () => {
    test('a path resolves through an INCLUDE alias and further references to the declared attribute', async () => {
        const { document, query: q } = await query(
            'query Q: select FL.origin.city from Passenger include Passenger.flights as FL, FL.origin as O',
        );
        expect(errors(document)).toEqual([]);
        const resolved = resolvePath(q.projections[0].path)!;
        expect(resolved.key).toBe('Passenger.flights.origin.city');
        expect(resolved.steps.map((s) => s.name)).toEqual(['flights', 'origin']);
    });

    test('the FROM alias, the FROM entity name and a bare attribute all resolve', async () => {
        const { document, query: q } = await query(
            'query Q: select P.firstname, Passenger.lastname, idPassport from Passenger as P',
        );
        expect(errors(document)).toEqual([]);
        expect(q.projections.map((p) => resolvePath(p.path)?.key)).toEqual([
            'Passenger.firstname',
            'Passenger.lastname',
            'Passenger.idPassport',
        ]);
    });

    test('an INCLUDE without AS is known by its last step', async () => {
        const { document, query: q } = await query(
            'query Q: select origin.city from Passenger include Passenger.current.origin',
        );
        expect(errors(document)).toEqual([]);
        expect(resolvePath(q.projections[0].path)?.key).toBe('Passenger.current.origin.city');
    });

    test('an INCLUDE path may start at an earlier INCLUDE alias but not at a later one', async () => {
        const ok = await query('query Q: select O.city from Passenger include Passenger.flights as FL, FL.origin as O');
        expect(errors(ok.document)).toEqual([]);
        const later = await query(
            'query Q: select O.city from Passenger include FL.origin as O, Passenger.flights as FL',
        );
        expect(
            issuesWithCode(later.document, PidmIssueCodes.UnknownName).map((d) => coveredText(later.document, d)),
        ).toEqual(['FL']);
    });

    test('an alias shadows a member of the same name', async () => {
        const { query: q } = await query(
            'query Q: select flights.city from Passenger include Passenger.flights.origin as flights',
        );
        expect(resolvePath(q.projections[0].path)?.key).toBe('Passenger.flights.origin.city');
    });

    test('entities resolve across the files of one workspace', async () => {
        const [entities, queries] = await loadPidm(MODEL, 'query Q: select firstname from Passenger');
        expect(errors(entities)).toEqual([]);
        expect(errors(queries)).toEqual([]);
        expect(queries.parseResult.value.queries[0].from.entity.ref?.name).toBe('Passenger');
    });
});

describe('the case-insensitive fallback', () => {
    test('a name matching one declaration only ignoring case resolves to it, with a case-mismatch warning', async () => {
        const { document, query: q } = await query(
            'query Q: select FIRSTNAME, FL.Origin.City from Passenger include Passenger.flights as FL',
        );
        expect(errors(document)).toEqual([]);
        expect(isAttribute(q.projections[0].path.segments[0].element.ref)).toBe(true);
        expect(isReference(q.projections[1].path.segments[1].element.ref)).toBe(true);
        const warnings = issuesWithCode(document, PidmIssueCodes.CaseMismatch);
        expect(warnings.map((d) => d.message)).toEqual([
            "'FIRSTNAME' is declared as 'firstname': names are case-sensitive; write 'firstname'.",
            "'Origin' is declared as 'origin': names are case-sensitive; write 'origin'.",
            "'City' is declared as 'city': names are case-sensitive; write 'city'.",
        ]);
        expect(warnings.map((d) => d.severity)).toEqual([2, 2, 2]);
    });

    test('entity names fall back too: FROM and reference targets', async () => {
        const document = await validatePidm(
            'entity A { id k  ref b[1] other }  entity B { id x }  query Q: select k, other.x from a include a.other',
        );
        expect(errors(document)).toEqual([]);
        expect(issuesWithCode(document, PidmIssueCodes.CaseMismatch).map((d) => coveredText(document, d))).toEqual([
            'b',
            'a',
        ]);
    });

    test('an exact match wins over a case-insensitive one', async () => {
        const document = await validatePidm(
            'entity A { id k  name text  Name text }  query Q: select Name, name from A',
        );
        expect(document.diagnostics?.map(codeOf)).toEqual([]);
        const [upper, lower] = document.parseResult.value.queries[0].projections.map(
            (p) => p.path.segments[0].element.ref,
        );
        expect(upper).not.toBe(lower);
    });

    test('a name matching several declarations ignoring case and none exactly is ambiguous', async () => {
        const document = await validatePidm('entity A { id k  name text  Name text }  query Q: select NAME from A');
        const [ambiguous] = issuesWithCode(document, PidmIssueCodes.AmbiguousName);
        expect(ambiguous.message).toBe(
            "Ambiguous name 'NAME' of entity A: it matches 'name' and 'Name' ignoring case; write one of them exactly.",
        );
        expect((ambiguous.data as { suggestions: string[] }).suggestions).toEqual(['name', 'Name']);
    });
});

describe('unknown names', () => {
    test.each([
        [
            'an attribute in SELECT',
            'query Q: select frstname from Passenger',
            'frstname',
            "Unknown attribute 'frstname' of entity Passenger. Did you mean 'firstname'?",
        ],
        [
            'an attribute after an alias',
            'query Q: select FL.departureTim from Passenger include Passenger.flights as FL',
            'departureTim',
            "Unknown attribute 'departureTim' of entity Flight. Did you mean 'departureTime'?",
        ],
        [
            'a reference in an INCLUDE path',
            'query Q: select idPassport from Passenger include Passenger.flihgts as FL',
            'flihgts',
            "Unknown reference 'flihgts' of entity Passenger. Did you mean 'flights'?",
        ],
        [
            'an alias',
            'query Q: select FLL.code from Passenger include Passenger.flights as FL',
            'FLL',
            "Unknown alias or reference 'FLL' in query Q: it is neither an alias nor a reference of entity Passenger. Did you mean 'FL'?",
        ],
        [
            'the FROM entity',
            'query Q: select code from Fligth',
            'Fligth',
            "Unknown entity 'Fligth'. Did you mean 'Flight'?",
        ],
        [
            'a name with nothing close',
            'query Q: select zzz from Passenger',
            'zzz',
            "Unknown attribute 'zzz' of entity Passenger.",
        ],
    ])('%s is an error with a did-you-mean hint', async (_, text, name, message) => {
        const { document } = await query(text);
        const unknown = issuesWithCode(document, PidmIssueCodes.UnknownName);
        expect(unknown.map((d) => [coveredText(document, d), d.message, d.severity])).toEqual([[name, message, 1]]);
    });

    test('a reference to an unknown entity is an error with a did-you-mean hint', async () => {
        const document = await validatePidm('entity A { id k  ref Airprot[1] airport }  entity Airport { id c }');
        const [unknown] = issuesWithCode(document, PidmIssueCodes.UnknownName);
        expect(unknown.message).toBe("Unknown entity 'Airprot'. Did you mean 'Airport'?");
        expect((unknown.data as { suggestions: string[] }).suggestions).toEqual(['Airport']);
    });

    test("Langium's generic linking error never appears", async () => {
        const { document } = await query('query Q: select frstname, FLL.x, a.b.c from Nope include Nope.x');
        expect(document.diagnostics?.map(codeOf)).not.toContain('linking-error');
        expect(document.diagnostics?.map((d) => d.message).join('\n')).not.toContain('Could not resolve reference');
    });

    test('a step after an unknown one is not reported again', async () => {
        const { document } = await query(
            'query Q: select FLL.origin.city from Passenger include Passenger.flights as FL',
        );
        expect(issuesWithCode(document, PidmIssueCodes.UnknownName).map((d) => coveredText(document, d))).toEqual([
            'FLL',
        ]);
    });

    test('paths of a query whose FROM entity is unknown are not reported one by one', async () => {
        const { document } = await query('query Q: select a, b.c from Nobody include Nobody.x as X where y = "?"');
        expect(issuesWithCode(document, PidmIssueCodes.UnknownName).map((d) => coveredText(document, d))).toEqual([
            'Nobody',
        ]);
    });

    test('a step after an attribute is reported as that attribute not being a reference', async () => {
        const { document } = await query('query Q: select firstname.length from Passenger');
        expect(issuesWithCode(document, PidmIssueCodes.UnknownName)).toEqual([]);
        const [error] = issuesWithCode(document, PidmIssueCodes.AttributeNotReference);
        expect(error.message).toBe(
            "'firstname' is an attribute of entity Passenger, not a reference: a path cannot continue after it.",
        );
        expect(coveredText(document, error)).toBe('firstname');
    });
});

describe('ambiguous first steps', () => {
    test('an alias matching two INCLUDE aliases ignoring case names the query', async () => {
        const document = await validatePidm(
            MODEL + 'query Q: select fl.code from Passenger include Passenger.flights as FL, Passenger.current as Fl',
        );
        expect(issuesWithCode(document, PidmIssueCodes.AmbiguousName).map((d) => d.message)).toEqual([
            "Ambiguous name 'fl' in query Q: it matches 'FL' and 'Fl' ignoring case; write one of them exactly.",
        ]);
    });
});
