/**
 * SQL habits in a PIDM query get one error each, with the PIDM way to say it and a stable code — in the
 * language services (what the editor shows) and on the command line. The parser's echoes of the same
 * mistake are not reported; the next query is checked as usual.
 */
import { describe, expect, it } from '@jest/globals';
import { loadTexts } from '../../../src/pipeline/load.js';
import { URI } from 'langium';
import { codeOf, services, validatePidm } from './pidm-test-helpers.js';

const ENTITIES = `entity Ride {
  id code
  city text
  fare float
  ref Driver[1] driver
}
entity Driver { id name }
query Q0: SELECT code, D.name FROM Ride INCLUDE Ride.driver AS D
`;

/** The query as the modeler wrote it, the code, the message, and the column the error points at. */
const HABITS: [query: string, code: string, message: string, column: number][] = [
    [
        'SELECT code FROM Ride WHERE city = ?city',
        'syntax.sql-parameter',
        'Write a parameter as "?city" (a string starting with ?), not ?city.',
        36,
    ],
    [
        'SELECT code FROM Ride WHERE city = $city',
        'syntax.sql-parameter',
        'Write a parameter as "?city" (a string starting with ?), not $city.',
        36,
    ],
    [
        'SELECT code FROM Ride WHERE city = :city',
        'syntax.sql-parameter',
        'Write a parameter as "?city" (a string starting with ?), not :city.',
        36,
    ],
    [
        'SELECT code FROM Ride LIMIT 10',
        'syntax.sql-limit',
        "'LIMIT' is SQL, not PIDM: queries are not limited in PIDM; see --limit / pagination.",
        23,
    ],
    [
        'SELECT code FROM Ride ORDER BY fare limit 5 offset 10',
        'syntax.sql-limit',
        "'limit' is SQL, not PIDM: queries are not limited in PIDM; see --limit / pagination.",
        37,
    ],
    [
        'SELECT code FROM Ride WHERE fare BETWEEN 10 AND 20',
        'syntax.sql-between',
        "'BETWEEN' is SQL, not PIDM: write a >= and a <= (fare >= 10 and fare <= 20).",
        34,
    ],
    [
        'SELECT code FROM Ride WHERE city IN ("Lyon", "Paris")',
        'syntax.sql-in',
        '\'IN\' is SQL, not PIDM: use or (city = "Lyon" or city = "Paris").',
        34,
    ],
    [
        'SELECT code FROM Ride WHERE city LIKE "Ly%"',
        'syntax.sql-like',
        "'LIKE' is SQL, not PIDM: PIDM compares whole values; use = (or >= and < for a prefix).",
        34,
    ],
    [
        'SELECT * FROM Ride',
        'syntax.sql-select-star',
        "'SELECT *' is SQL, not PIDM: list the attributes (SELECT code, city FROM Ride).",
        8,
    ],
    [
        'SELECT COUNT(*) FROM Ride',
        'syntax.sql-aggregate',
        "'COUNT(…)' is SQL, not PIDM: a query returns rows, not aggregates; list the attributes and count in the application.",
        13,
    ],
    [
        'SELECT city FROM Ride GROUP BY city',
        'syntax.sql-aggregate',
        "'GROUP BY' is SQL, not PIDM: a query returns rows, not groups; list the attributes and group in the application.",
        23,
    ],
    [
        'SELECT code FROM Ride JOIN Driver ON driver = name',
        'syntax.sql-join',
        "'JOIN' is SQL, not PIDM: use INCLUDE with a reference path (FROM Ride INCLUDE Ride.driver AS D).",
        23,
    ],
    [
        'SELECT code FROM Ride LEFT OUTER JOIN Driver ON driver = name',
        'syntax.sql-join',
        "'LEFT JOIN' is SQL, not PIDM: use INCLUDE with a reference path (FROM Ride INCLUDE Ride.driver AS D).",
        23,
    ],
];

/** A model whose query Q is the habit, followed by a query with a plain syntax error. */
function modelWith(query: string): string {
    return `${ENTITIES}query Q: ${query}\nquery Q9: SELECT code FROM Ride WHERE city ==\n`;
}

describe('SQL habits', () => {
    it.each(HABITS)('%s -> %s (the editor)', async (query, code, message, column) => {
        const document = await validatePidm(modelWith(query));
        const syntax = (document.diagnostics ?? []).filter((d) => codeOf(d).startsWith('syntax.'));
        expect(syntax.map((d) => [d.range.start.line + 1, d.range.start.character + 1, codeOf(d), d.message])).toEqual([
            [9, column + 'query Q: '.length, code, message],
            [10, 45, 'syntax.parser', "Expecting a string, a number, 'true' or 'false' but found '='."],
        ]);
    });

    it.each(HABITS)('%s -> %s (the command line)', async (query, code, message, column) => {
        const workspace = await loadTexts([{ path: 'ride.pidm', text: modelWith(query) }]);
        expect(workspace.diagnostics.filter((d) => d.code.startsWith('syntax.'))).toEqual([
            expect.objectContaining({ line: 9, column: column + 'query Q: '.length, code, message }),
            expect.objectContaining({ line: 10, code: 'syntax.parser' }),
        ]);
    });

    it('says SELECT * once: no "selects nothing" beside it, in the editor and on the command line', async () => {
        const text = `${ENTITIES}query Q: SELECT * FROM Ride\n`;
        const document = await validatePidm(text);
        const errors = (document.diagnostics ?? []).filter((d) => d.severity === 1);
        expect(errors.map((d) => codeOf(d))).toEqual(['syntax.sql-select-star']);
        const workspace = await loadTexts([{ path: 'ride.pidm', text }]);
        expect(workspace.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code)).toEqual([
            'syntax.sql-select-star',
        ]);
    });

    it('leaves SQL words alone where they are names, and in a correct query', async () => {
        const document = await validatePidm(`entity Limit { id in  like text  join int }
query Q: SELECT in, like FROM Limit WHERE join >= "?low" and join <= "?high" and like = "?like"
`);
        expect((document.diagnostics ?? []).filter((d) => d.severity === 1).map((d) => d.message)).toEqual([]);
    });

    it('says what is wrong with an unexpected character in words, not offsets', async () => {
        const document = await validatePidm(
            'entity A { id k  name text }\nquery Q: SELECT name FROM A WHERE name = ? and k = "x\nentity B { id k ~ }\n',
        );
        expect((document.diagnostics ?? []).filter((d) => codeOf(d) === 'syntax.lexer').map((d) => d.message)).toEqual([
            'Unexpected character \'?\': a parameter is a string starting with ?, with its name ("?city").',
            "Unexpected character '\"': a string ends on the line it starts.",
            "Unexpected character '~': it has no meaning here; names are letters, digits and _.",
        ]);
    });

    it('gives every syntax error a code, in PIDM as in KVLM', async () => {
        const pidm = await validatePidm('entity A { id k } garbage ~');
        expect((pidm.diagnostics ?? []).filter((d) => d.severity === 1).map((d) => d.code)).toEqual([
            'syntax.lexer',
            'syntax.parser',
        ]);
        const kvlm = services.shared.workspace.LangiumDocumentFactory.fromString(
            'database d { collection ~ }',
            URI.file('/test/broken.kvlm'),
        );
        services.shared.workspace.LangiumDocuments.addDocument(kvlm);
        await services.shared.workspace.DocumentBuilder.build([kvlm], { validation: true });
        const codes = (kvlm.diagnostics ?? []).map((d) => d.code);
        expect(codes).toContain('syntax.lexer');
        expect(codes).toContain('syntax.parser');
        expect(codes.every((code) => typeof code === 'string' && code !== '')).toBe(true);
    });
});
