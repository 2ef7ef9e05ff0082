import { describe, expect, test } from '@jest/globals';
import { KvlmIssueCodes } from '../../../src/language/kvlm/kvlm-validator.js';
import { fixtureText, issues, parseKvlm } from './kvlm-test-helpers.js';

/** A small valid model: every check below starts from it and changes one thing. */
const BASE = `database d
merge safe threshold 0.8

collection C {
    key C_id natural(P.id, FL.code)
    from Passenger as P
    include FL = P.flights -> Flight many
    include O = FL.origin -> Airport one
    field name: text = P.name label "name" projected(Q)
    field code: text = FL.code label "FL.code" filtered(Q)
    field day: date = FL.day label "FL.day" ranged(Q)
    field city: text = O.city label "O.city" indexed projected(Q) sorted(Q)
    query Q {
        param code: text
        param from: date
        where code = ?code and day >= ?from
        order by city asc
        select name as "name", city as "O.city"
    }
}
`;

/** BASE with one replacement, which must apply. */
function variant(from: string, to: string, base = BASE): string {
    expect(base).toContain(from);
    return base.replace(from, to);
}

async function diagnose(text: string) {
    const document = await parseKvlm(text);
    expect(document.parseResult.parserErrors.map((e) => e.message)).toEqual([]);
    return issues(document);
}

async function codes(text: string): Promise<string[]> {
    return (await diagnose(text)).map((issue) => issue.code);
}

describe('KVLM validation', () => {
    test('the contract fixture and the base model have no diagnostics at all', async () => {
        expect(await diagnose(fixtureText)).toEqual([]);
        expect(await diagnose(BASE)).toEqual([]);
    });

    describe('names', () => {
        test('a collection declared twice is an error on the second one', async () => {
            const second = BASE.slice(BASE.indexOf('collection C'));
            const found = await diagnose(`${BASE}\n${second}`);
            expect(found).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.DuplicateName,
                    message: "Collection 'C' is declared twice in the model.",
                    line: 22,
                },
            ]);
        });

        test('two fields, two nodes or two queries with one name in a collection are errors', async () => {
            expect(
                await diagnose(
                    variant('    field code: text', '    field name: text = P.name projected(Q)\n    field code: text'),
                ),
            ).toContainEqual(
                expect.objectContaining({
                    code: KvlmIssueCodes.DuplicateName,
                    message: "Field 'name' is declared twice in collection 'C'.",
                }),
            );
            expect(
                await diagnose(
                    variant(
                        '    include O = FL.origin -> Airport one',
                        '    include O = FL.origin -> Airport one\n    include P = FL.destination -> Airport one',
                    ),
                ),
            ).toContainEqual(
                expect.objectContaining({
                    code: KvlmIssueCodes.DuplicateName,
                    message: "Node 'P' is declared twice in collection 'C'.",
                }),
            );
            const twice = variant('    }\n}', '    }\n    query Q {\n        select name\n    }\n}');
            expect(await diagnose(twice)).toContainEqual(
                expect.objectContaining({
                    code: KvlmIssueCodes.DuplicateName,
                    message: "Query 'Q' is declared twice in collection 'C'.",
                }),
            );
        });

        test('a parameter declared twice in a query is an error', async () => {
            expect(
                await diagnose(
                    variant('        param from: date', '        param from: date\n        param code: text'),
                ),
            ).toContainEqual(
                expect.objectContaining({
                    severity: 'error',
                    code: KvlmIssueCodes.DuplicateName,
                    message: "Parameter 'code' is declared twice in query 'Q'.",
                }),
            );
        });

        test('the same field name in two collections, or the same parameter name in two queries, is fine', async () => {
            const other = `\ncollection D {\n    key D_id counter\n    from Passenger as P\n    field name: text = P.name projected(R)\n    query R {\n        param code: text\n        where name = ?code\n        select name\n    }\n}\n`;
            expect(await codes(BASE + other.replace('projected(R)', 'projected(R) filtered(R)'))).toEqual([]);
        });
    });

    describe('unresolved references', () => {
        test('an unknown field is an error with its own code and a did-you-mean hint', async () => {
            expect(await diagnose(variant('select name as "name"', 'select nmae as "name"'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.UnresolvedField,
                    message: "Unknown field 'nmae' in collection 'C'. Did you mean 'name'?",
                    line: 18,
                },
            ]);
        });

        test('an unknown node is an error naming the collection', async () => {
            expect(await diagnose(variant('field day: date = FL.day', 'field day: date = Fl.day'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.UnresolvedNode,
                    message: "Unknown node 'Fl' in collection 'C'. Did you mean 'FL'?",
                    line: 11,
                },
            ]);
        });

        test('an unknown query in a role is an error', async () => {
            expect(await diagnose(variant('label "name" projected(Q)', 'label "name" projected(Q, Z)'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.UnresolvedQuery,
                    message: "Unknown query 'Z' in collection 'C'.",
                    line: 9,
                },
            ]);
        });

        test('an unknown parameter is an error naming the query', async () => {
            expect(await diagnose(variant('where code = ?code', 'where code = ?cdoe'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.UnresolvedParameter,
                    message: "Unknown parameter 'cdoe' in query 'Q'. Did you mean 'code'?",
                    line: 16,
                },
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.UnusedParameter,
                    message: "Parameter 'code' of query 'Q' is never used.",
                    line: 14,
                },
            ]);
        });

        test('a parameter of another query does not resolve', async () => {
            const other = `\ncollection D {\n    key D_id counter\n    from Passenger as P\n    field name: text = P.name projected(R) filtered(R)\n    query R {\n        where name = ?code\n        select name\n    }\n}\n`;
            expect(await codes(BASE + other)).toEqual([KvlmIssueCodes.UnresolvedParameter]);
        });
    });

    describe('roles against what the queries do', () => {
        test('projecting a field without projected(Q) is an error', async () => {
            expect(await diagnose(variant('label "name" projected(Q)', 'label "name"'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.MissingRole,
                    message: "Query 'Q' projects field 'name', which has no projected(Q) role.",
                    line: 18,
                },
            ]);
        });

        test('sorting on a field without sorted(Q) is an error', async () => {
            expect(await diagnose(variant('indexed projected(Q) sorted(Q)', 'projected(Q)'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.MissingRole,
                    message: "Query 'Q' sorts on field 'city', which has no sorted(Q) role.",
                    line: 17,
                },
            ]);
        });

        test('filtering on a field with neither filtered(Q) nor ranged(Q) is an error', async () => {
            expect(await diagnose(variant('label "FL.code" filtered(Q)', 'label "FL.code"'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.MissingRole,
                    message: "Query 'Q' filters on field 'code', which has no filtered(Q) role.",
                    line: 16,
                },
            ]);
        });

        test('an equality on a ranged-only field, or a range on a filtered-only field, is a warning', async () => {
            expect(await diagnose(variant('label "FL.code" filtered(Q)', 'label "FL.code" ranged(Q)'))).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.RoleKindMismatch,
                    message:
                        "Query 'Q' compares field 'code' with '=', an equality: expected filtered(Q), found only ranged.",
                    line: 16,
                },
            ]);
            expect(await codes(variant('label "FL.day" ranged(Q)', 'label "FL.day" filtered(Q)'))).toEqual([
                KvlmIssueCodes.RoleKindMismatch,
            ]);
            expect(await codes(variant('label "FL.day" ranged(Q)', 'label "FL.day" filtered(Q) ranged(Q)'))).toEqual(
                [],
            );
        });

        test('a role naming a query that does not use the field that way is a warning at that query name', async () => {
            expect(
                await diagnose(variant('label "FL.code" filtered(Q)', 'label "FL.code" projected(Q) filtered(Q)')),
            ).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.UnusedRole,
                    message: "Field 'code' is projected for query 'Q', but that query does not project it.",
                    line: 10,
                },
            ]);
        });

        test('the indexed flag must match a sorted role', async () => {
            expect(await diagnose(variant('indexed projected(Q) sorted(Q)', 'projected(Q) sorted(Q)'))).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.IndexedFlagMismatch,
                    message:
                        "Field 'city' is sorted on but not marked indexed (the paper's flag for ORDER BY attributes).",
                    line: 12,
                },
            ]);
            expect(await codes(variant('label "name" projected(Q)', 'label "name" indexed projected(Q)'))).toEqual([
                KvlmIssueCodes.IndexedFlagMismatch,
            ]);
        });
    });

    describe('parameters and values', () => {
        test('a parameter compared with a field of another type is a warning', async () => {
            expect(await diagnose(variant('param from: date', 'param from: datetime'))).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.ParameterTypeMismatch,
                    message: "Parameter 'from' is datetime but is compared with field 'day' of type date.",
                    line: 16,
                },
            ]);
        });

        test('a literal that cannot be a value of the field is a warning; an ISO date string is fine', async () => {
            expect(
                await diagnose(
                    variant('where code = ?code and day >= ?from', 'where code = ?code and day >= ?from and name != 3'),
                ),
            ).toContainEqual({
                severity: 'warning',
                code: KvlmIssueCodes.LiteralTypeMismatch,
                message: "Field 'name' of type text is compared with a number.",
                line: 16,
            });
            const dated = variant(
                'where code = ?code and day >= ?from',
                'where code = ?code and day >= ?from and day < "2025-01-01"',
            );
            expect(await codes(dated)).toEqual([]);
        });

        test('a parameter declared but not used is a warning', async () => {
            expect(
                await diagnose(
                    variant('        param from: date', '        param from: date\n        param unused: int'),
                ),
            ).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.UnusedParameter,
                    message: "Parameter 'unused' of query 'Q' is never used.",
                    line: 16,
                },
            ]);
        });
    });

    describe('keys and row grain', () => {
        test('a natural key without a part for a node reached through a multi-valued step is an error: rows would collide', async () => {
            expect(await diagnose(variant('natural(P.id, FL.code)', 'natural(P.id)'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.KeyDoesNotCoverGrain,
                    message:
                        "The natural key of collection 'C' has no part for 'FL', reached through the multi-valued step P.flights: rows would collide.",
                    line: 5,
                },
            ]);
        });

        test('a part on a node below the multi-valued step does not identify it', async () => {
            expect(await codes(variant('natural(P.id, FL.code)', 'natural(P.id, O.code)'))).toEqual([
                KvlmIssueCodes.KeyDoesNotCoverGrain,
            ]);
        });

        test('a natural key without the root is an error', async () => {
            expect(await diagnose(variant('natural(P.id, FL.code)', 'natural(FL.code)'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.KeyDoesNotCoverGrain,
                    message:
                        "The natural key of collection 'C' has no part for the root 'P' (one row per Passenger): rows would collide.",
                    line: 5,
                },
            ]);
        });

        test('a counter key, or extra parts on single-valued nodes, are fine', async () => {
            expect(await codes(variant('natural(P.id, FL.code)', 'counter'))).toEqual([]);
            expect(await codes(variant('natural(P.id, FL.code)', 'natural(P.id, FL.code, O.code)'))).toEqual([]);
        });

        test('a key field named like a field is an error', async () => {
            expect(await diagnose(variant('key C_id', 'key city'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.KeyFieldClash,
                    message:
                        "Key field 'city' has the name of a field of collection 'C'; the key would overwrite that field in every row.",
                    line: 5,
                },
            ]);
        });

        test('an include hanging from a node declared after it is an error', async () => {
            const swapped = variant(
                '    include FL = P.flights -> Flight many\n    include O = FL.origin -> Airport one',
                '    include O = FL.origin -> Airport one\n    include FL = P.flights -> Flight many',
            );
            expect(await diagnose(swapped)).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.NodeOrder,
                    message: "Include 'O' hangs from 'FL', which is declared after it; a node must follow its parent.",
                    line: 7,
                },
            ]);
        });
    });

    describe('the model', () => {
        test('a merge decision naming a result that does not exist is an error', async () => {
            expect(await diagnose(`${BASE}\nmerge A + B -> A_B common 3 of 4 and 4\n`)).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.UnknownMergeResult,
                    message:
                        "Merge result 'A_B' is not a collection of this model, nor merged again by a later decision.",
                    line: 22,
                },
            ]);
        });

        test('a merge result that exists, that was merged again, or a refused merge is fine', async () => {
            const decisions =
                '\nmerge A + B -> A_B common 3 of 4 and 4\nmerge A_B + Q -> C common 3 of 4 and 4\nmerge C + X refused "grain" common 1 of 1 and 1\n';
            expect(await codes(BASE + decisions)).toEqual([]);
        });

        test('a threshold out of (0, 1] is an error; 1 is fine', async () => {
            expect(await diagnose(variant('threshold 0.8', 'threshold 0'))).toEqual([
                {
                    severity: 'error',
                    code: KvlmIssueCodes.ThresholdOutOfRange,
                    message: 'The merge threshold 0 is out of range: it is a share of fields and must be in (0, 1].',
                    line: 2,
                },
            ]);
            expect(await codes(variant('threshold 0.8', 'threshold 1.5'))).toEqual([
                KvlmIssueCodes.ThresholdOutOfRange,
            ]);
            expect(await codes(variant('threshold 0.8', 'threshold 1'))).toEqual([]);
        });

        test('a collection serving no query is a warning', async () => {
            const empty =
                'database d\n\ncollection E {\n    key E_id counter\n    from Passenger as P\n    field name: text = P.name\n}\n';
            expect(await diagnose(empty)).toEqual([
                {
                    severity: 'warning',
                    code: KvlmIssueCodes.CollectionWithoutQuery,
                    message: "Collection 'E' serves no query.",
                    line: 3,
                },
            ]);
        });
    });
});
