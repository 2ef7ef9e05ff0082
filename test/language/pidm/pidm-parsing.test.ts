import { describe, expect, test } from '@jest/globals';
import {
    isAttribute,
    isBinaryExpression,
    isBooleanValue,
    isComparison,
    isGroupExpression,
    isIdAttribute,
    isNotExpression,
    isNumberValue,
    isReference,
    isStringValue,
    type Expression,
    type Member,
    type PidmModel,
} from '../../../src/language/generated/ast.js';
import {
    cardinalityKind,
    comparisonOperator,
    parameterName,
    sortDirection,
} from '../../../src/language/pidm/pidm-semantics.js';
import { codeOf, validatePidm } from './pidm-test-helpers.js';

/** A member as one line: `id code:int unique`, `attr name:text`, `ref parent->Text one`. */
function describeMember(member: Member): string {
    if (isIdAttribute(member)) return `id ${member.name}:${member.type ?? '-'}${member.unique ? ' unique' : ''}`;
    if (isAttribute(member)) return `attr ${member.name}:${member.type}`;
    if (isReference(member))
        return `ref ${member.name}->${member.target.$refText} ${cardinalityKind(member.cardinality)}`;
    return '?';
}

/** An expression in prefix form, so that precedence is visible: `(and (= a ?) (or …))`. */
function describeExpression(expression: Expression | undefined): string {
    if (!expression) return '';
    if (isBinaryExpression(expression))
        return `(${expression.operator} ${describeExpression(expression.left)} ${describeExpression(expression.right)})`;
    if (isNotExpression(expression)) return `(not ${describeExpression(expression.operand)})`;
    if (isGroupExpression(expression)) return describeExpression(expression.inner);
    if (isComparison(expression)) {
        const path = expression.path.segments.map((s) => s.element.$refText).join('.');
        const value = expression.value;
        const written = isStringValue(value)
            ? parameterName(value) !== undefined
                ? `?${parameterName(value)}`
                : `'${value.value}'`
            : isNumberValue(value)
              ? `${value.negative ? '-' : ''}${value.value}`
              : isBooleanValue(value)
                ? value.value
                : '?';
        return `(${comparisonOperator(expression.operator)} ${path} ${written})`;
    }
    return '?';
}

async function parseClean(text: string): Promise<PidmModel> {
    const document = await validatePidm(text);
    const syntaxProblems = (document.diagnostics ?? []).filter((d) => codeOf(d).startsWith('syntax.'));
    expect(syntaxProblems.map((d) => d.message)).toEqual([]);
    return document.parseResult.value;
}

const MEMBER_CASES: [string, string, string][] = [
    ['the paper notation `name type`', 'firstname text', 'attr firstname:text'],
    ['the colon notation `name : type`', 'url : string', 'attr url:string'],
    ['the colon notation without spaces', 'url:string', 'attr url:string'],
    ['the Mortadelo notation `type name`', 'number price', 'attr price:number'],
    ['an attribute named like its type', 'text text', 'attr text:text'],
    ['two type words: the paper order wins', 'date time', 'attr date:time'],
    ['a type word in any case (stored lower case)', 'level INT', 'attr level:int'],
    ['a type-first attribute with an upper-case type', 'String name', 'attr name:string'],
    ['keywords usable as attribute names', 'order int', 'attr order:int'],
    ['`database` usable as an attribute name', 'database text', 'attr database:text'],
    ['an untyped identifier', 'id code', 'id code:-'],
    ['a unique identifier', 'id code unique', 'id code:- unique'],
    ['a typed unique identifier', 'id code int unique', 'id code:int unique'],
    ['an identifier typed with a colon', 'id code : long', 'id code:long'],
    ['an identifier named like a type', 'id text', 'id text:-'],
    ['a reference [1]', 'ref T[1] one', 'ref one->T one'],
    ['a reference [*]', 'ref T[*] many', 'ref many->T many'],
    ['a reference [0..1]', 'ref T[0..1] maybe', 'ref maybe->T optional'],
    ['a reference [1..*]', 'ref T[1..*] some', 'ref some->T many'],
    ['a reference [n]', 'ref T[3] three', 'ref three->T many'],
    ['a reference in the prose form (1)', 'ref T(1) prose', 'ref prose->T one'],
    ['keywords in any case', 'REF T[1] upper', 'ref upper->T one'],
    ['a member ending with a semicolon', 'ref T[1] semi;', 'ref semi->T one'],
];

describe('the database declaration', () => {
    test('`database NAME` (or a quoted name, checked by the validation) anywhere among the declarations', async () => {
        const model = await parseClean(
            'database clinic;\nentity Database { id database }\nquery Q: SELECT database FROM Database',
        );
        expect(model.databases.map((d) => d.name)).toEqual(['clinic']);
        expect(model.entities.map((e) => e.name)).toEqual(['Database']);
        const quoted = await parseClean('entity A { id k }\nDATABASE "clinic-v1"\nquery Q: SELECT k FROM A');
        expect(quoted.databases.map((d) => d.name)).toEqual(['clinic-v1']);
    });
});

describe('parsing PIDM entities', () => {
    test.each(MEMBER_CASES)('%s: `%s` parses as %s', async (_, member, expected) => {
        const model = await parseClean(`entity T {\n  id key\n  ${member}\n}`);
        const members = model.entities[0].members.map(describeMember);
        expect(members.at(-1)).toBe(expected);
    });

    test('an identifier without type followed on the next line by type-first attributes keeps them apart', async () => {
        const model = await parseClean('entity A {\n  id code\n  text name\n  number price\n}');
        expect(model.entities[0].members.map(describeMember)).toEqual([
            'id code:-',
            'attr name:text',
            'attr price:number',
        ]);
    });

    test('an identifier typed on its own line followed by name-first attributes keeps its type', async () => {
        const model = await parseClean('entity A {\n  id code int\n  level int\n  nationality text\n}');
        expect(model.entities[0].members.map(describeMember)).toEqual([
            'id code:int',
            'attr level:int',
            'attr nationality:text',
        ]);
    });

    test('an entity may be named like a type or keyword, keeping its spelling', async () => {
        const model = await parseClean('Entity Text { id Date }');
        expect(model.entities[0].name).toBe('Text');
        expect(model.entities[0].members.map(describeMember)).toEqual(['id Date:-']);
    });

    test('line and block comments are ignored', async () => {
        const model = await parseClean('// a comment\nentity A { /* inside */ id k // trailing\n }');
        expect(model.entities[0].members.map(describeMember)).toEqual(['id k:-']);
    });
});

const ENTITIES = `
entity A { id code  name text  price float  flag boolean  day date  ref B[*] bs  ref B[1] b }
entity B { id k  v int }
`;

describe('parsing PIDM queries', () => {
    test.each([
        ['lower-case keywords', 'query q: select name from A'],
        ['upper-case keywords', 'QUERY q: SELECT name FROM A'],
        ['mixed-case keywords', 'Query q: Select name From A'],
        ['no colon after the name', 'query q select name from A'],
        ["the paper's compact commas", 'query q: SELECT name,price,code FROM A'],
    ])('%s: `%s`', async (_, query) => {
        const model = await parseClean(ENTITIES + query);
        expect(model.queries[0].projections.length).toBeGreaterThan(0);
        expect(model.queries[0].from.entity.$refText).toBe('A');
    });

    test('FROM takes an alias with AS or as; SELECT renames with AS', async () => {
        const model = await parseClean(ENTITIES + 'query q: select X.name AS n, price as p from A As X');
        const query = model.queries[0];
        expect(query.from.alias).toBe('X');
        expect(query.projections.map((p) => p.alias)).toEqual(['n', 'p']);
    });

    test.each([['INCLUDE'], ['include'], ['including'], ['Including']])('%s introduces includes', async (keyword) => {
        const model = await parseClean(ENTITIES + `query q: select code from A ${keyword} A.bs as BS, BS.k as K`);
        expect(model.queries[0].includes.map((i) => i.alias)).toEqual(['BS', 'K']);
    });

    test('an include without AS is known by its last step', async () => {
        const model = await parseClean(ENTITIES + 'query q: select b.v from A include A.b');
        expect(model.queries[0].includes[0].alias).toBeUndefined();
    });

    test.each([
        ['"?"', '(= name ?)'],
        ['"?country"', '(= name ?country)'],
        ["'?'", '(= name ?)'],
        ['"Paris"', "(= name 'Paris')"],
    ])('a string value %s reads as %s', async (value, expected) => {
        const model = await parseClean(ENTITIES + `query q: select code from A where name = ${value}`);
        expect(describeExpression(model.queries[0].where)).toBe(expected);
    });

    test.each([
        ['price > 12', '(> price 12)'],
        ['price >= 0.5', '(>= price 0.5)'],
        ['price < -3', '(< price -3)'],
        ['price <= - 2.25', '(<= price -2.25)'],
        ['price != 1', '(!= price 1)'],
        ['price <> 1', '(!= price 1)'],
        ['flag = true', '(= flag true)'],
        ['flag = FALSE', '(= flag false)'],
    ])('the comparison `%s` reads as %s', async (comparison, expected) => {
        const model = await parseClean(ENTITIES + `query q: select code from A where ${comparison}`);
        expect(describeExpression(model.queries[0].where)).toBe(expected);
    });

    test.each([
        ['name = "?" and price > 1 or flag = true', '(or (and (= name ?) (> price 1)) (= flag true))'],
        ['name = "?" or price > 1 and flag = true', '(or (= name ?) (and (> price 1) (= flag true)))'],
        ['(name = "?" or price > 1) and flag = true', '(and (or (= name ?) (> price 1)) (= flag true))'],
        ['not flag = true and name = "?"', '(and (not (= flag true)) (= name ?))'],
        ['NOT (flag = true OR name = "?")', '(not (or (= flag true) (= name ?)))'],
        ['name = "?" AND price > 1 AND day = "?"', '(and (and (= name ?) (> price 1)) (= day ?))'],
    ])('`%s` reads as %s (and binds tighter than or)', async (where, expected) => {
        const model = await parseClean(ENTITIES + `query q: select code from A where ${where}`);
        expect(describeExpression(model.queries[0].where)).toBe(expected);
    });

    test('ORDER BY directions in any casing are stored lower case; ASC is the default', async () => {
        const model = await parseClean(
            ENTITIES + 'query q: select code from A Order By name ASC, price Desc, code asc, day',
        );
        const items = model.queries[0].orderBy;
        expect(items.map((item) => item.direction)).toEqual(['asc', 'desc', 'asc', undefined]);
        expect(items.map(sortDirection)).toEqual(['asc', 'desc', 'asc', 'asc']);
    });

    test('AND and OR are stored lower case', async () => {
        const model = await parseClean(
            ENTITIES + 'query q: select code from A where name = "?" AND price > 1 OR flag = true',
        );
        const where = model.queries[0].where;
        expect(isBinaryExpression(where) && where.operator).toBe('or');
        expect(isBinaryExpression(where) && isBinaryExpression(where.left) && where.left.operator).toBe('and');
    });

    test("the paper's Figure 6 query Q4 parses as written", async () => {
        const model = await parseClean(`
entity Passenger { id idPassport unique  firstname text  lastname text  ref Flight[*] flights }
entity Airport { id codeCAO unique  city text  country text }
entity Flight { id code unique  departureTime time  departureDate date  ref Airport[1] origin  ref Airport[1] destination }
query Q4_passengersDepartingGivenCountry:
SELECT Origin.city,Destination.city,FL.departureTime,
  idPassport,firstName,lastName
FROM Passenger
INCLUDE Passenger.flights as FL,Passenger.flights.Origin as Origin,
  Passenger.flights.Destination as Destination
WHERE FL.departureDate="?" and Origin.country="?"
ORDER BY Origin.city ASC,FL.departureTime ASC`);
        const query = model.queries[0];
        expect(query.projections).toHaveLength(6);
        expect(query.includes.map((i) => i.alias)).toEqual(['FL', 'Origin', 'Destination']);
        expect(describeExpression(query.where)).toBe('(and (= FL.departureDate ?) (= Origin.country ?))');
    });
});

describe('syntax errors say what kind of thing was expected', () => {
    test.each([
        [
            'a missing type',
            'entity A {\n  id k\n  name ref\n}',
            "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'ref'.",
        ],
        [
            'a reference without cardinality',
            'entity A { id k  ref A y }',
            "Expecting a cardinality after 'A' but found 'y': write ref A[1] y (exactly one), [0..1] (at most one) or [*] (many).",
        ],
        ['an unclosed cardinality', 'entity A { id k  ref A[1 y }', "Expecting ']' or ')' but found 'y'."],
        [
            'text after the last declaration',
            'entity A { id k } garbage',
            "Expecting 'entity' or 'query' but found 'garbage'.",
        ],
        ['an empty SELECT list', 'entity A { id k } query q: select from A', "Expecting a name but found 'from'."],
        ['a missing FROM', 'entity A { id k } query q: select k A', "Expecting 'from' but found 'A'."],
        [
            'a comparison without value',
            'entity A { id k } query q: select k from A where k =',
            "Expecting a string, a number, 'true' or 'false' but found the end of the file.",
        ],
    ])('%s', async (_, text, message) => {
        const document = await validatePidm(text);
        const syntax = (document.diagnostics ?? []).filter((d) => codeOf(d) === 'syntax.parser');
        expect(syntax.map((d) => d.message)[0]).toBe(message);
    });
});
