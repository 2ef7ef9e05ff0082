/**
 * A new user's stumbles (a clinic model of their own), each answered with one error in the user's own names — in
 * the editor (Langium's parser and the language services) and on the command line (the batch parser, which hands
 * a text with a syntax error to Langium's parser) alike: same line, column, code and message.
 */
import { describe, expect, it } from '@jest/globals';
import { loadTexts } from '../../../src/pipeline/load.js';
import { codeOf, validatePidm } from './pidm-test-helpers.js';

const CLINIC = `entity Clinic { id code  city text }
entity Patient {
  id pid
  name text
  born date
  ref Clinic[1] clinic
}
entity Prescription { id rx  dosage text }
entity Appointment {
  id num
  at datetime
  ref Patient[1] patient
  ref Prescription[0..1] prescription
}
query Visits: SELECT num, at FROM Appointment INCLUDE Appointment.patient AS P
`;

/** A stumble: the model as written, and the one error it should get: [line, column, code, message]. */
type Case = [title: string, text: string, expected: [line: number, column: number, code: string, message: string]];

const CASES: Case[] = [
    [
        'a reference without cardinality says the cardinality is missing',
        CLINIC.replace('ref Clinic[1] clinic', 'ref Clinic clinic'),
        [
            6,
            14,
            'syntax.parser',
            "Expecting a cardinality after 'Clinic' but found 'clinic': write ref Clinic[1] clinic (exactly one), [0..1] (at most one) or [*] (many).",
        ],
    ],
    [
        'an attribute of an included alias points at the alias',
        `${CLINIC}query Q1: SELECT num, dosage FROM Appointment INCLUDE Appointment.prescription AS RX\n`,
        [
            16,
            23,
            'pidm.unknown-name',
            "Unknown attribute 'dosage' of entity Appointment: Prescription has it, included as RX; write RX.dosage.",
        ],
    ],
    [
        'a reference walked backwards says references go one way and where the reverse one is declared',
        `${CLINIC}query Q2: SELECT pid FROM Patient INCLUDE Patient.appointments AS A\n`,
        [
            16,
            51,
            'pidm.unknown-name',
            "Unknown reference 'appointments' of entity Patient: references go one way, from the entity that declares them; Appointment declares ref Patient[1] patient, to Patient. Query FROM Appointment, or declare ref Appointment[*] appointments in Patient.",
        ],
    ],
    [
        'a slip of a reference name is a did-you-mean, not a one-way lesson',
        `${CLINIC}query Q8: SELECT num FROM Appointment INCLUDE Appointment.patinet AS P2\n`,
        [16, 59, 'pidm.unknown-name', "Unknown reference 'patinet' of entity Appointment. Did you mean 'patient'?"],
    ],
    [
        'a wrong type word is one error, on that word (not again on the next line)',
        CLINIC.replace('name text', 'name txt'),
        [
            4,
            8,
            'syntax.parser',
            "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'txt'.",
        ],
    ],
    [
        'a wrong type word before a semicolon is one error too',
        CLINIC.replace('name text', 'name txt;'),
        [
            4,
            8,
            'syntax.parser',
            "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'txt'.",
        ],
    ],
    [
        "BETWEEN is answered with the query's own attribute and bounds",
        `${CLINIC}query Q3: SELECT pid FROM Patient WHERE born BETWEEN "?from" AND "?to"\n`,
        [
            16,
            46,
            'syntax.sql-between',
            '\'BETWEEN\' is SQL, not PIDM: write a >= and a <= (born >= "?from" and born <= "?to").',
        ],
    ],
    [
        "IN is answered with the query's own attribute and values",
        `${CLINIC}query Q4: SELECT pid FROM Patient WHERE name IN ("Ann", "Bo")\n`,
        [16, 46, 'syntax.sql-in', '\'IN\' is SQL, not PIDM: use or (name = "Ann" or name = "Bo").'],
    ],
    [
        "JOIN is answered with the FROM entity's own reference and the alias written",
        `${CLINIC}query Q5: SELECT pid FROM Patient JOIN Clinic C ON clinic = code\n`,
        [
            16,
            35,
            'syntax.sql-join',
            "'JOIN' is SQL, not PIDM: use INCLUDE with a reference path (FROM Patient INCLUDE Patient.clinic AS C).",
        ],
    ],
    [
        'a parameter compared as a date and as a text is an error at the second use',
        `${CLINIC}query Q7: SELECT pid FROM Patient WHERE born >= "?x" and name = "?x"\n`,
        [
            16,
            65,
            'pidm.parameter-type-conflict',
            'Parameter "?x" is compared with \'name\' (text) here and with \'born\' (date) before: one parameter is one value of one type. Give one of them a name of its own (for example "?x_text").',
        ],
    ],
    [
        'a database name that could not be part of a Redis key says what it may hold',
        `database "clinic.v1"\n${CLINIC}`,
        [
            1,
            10,
            'pidm.invalid-database-name',
            "'clinic.v1' is not a database name: use letters, digits and '_', not starting with a digit (for example clinic_v1).",
        ],
    ],
];

describe("a new user's stumbles get one error in their own words", () => {
    it.each(CASES)('%s (the editor)', async (_, text, [line, column, code, message]) => {
        const document = await validatePidm(text);
        const errors = (document.diagnostics ?? []).filter((d) => d.severity === 1);
        expect(errors.map((d) => [d.range.start.line + 1, d.range.start.character + 1, codeOf(d), d.message])).toEqual([
            [line, column, code, message],
        ]);
    });

    it.each(CASES)('%s (the command line)', async (_, text, [line, column, code, message]) => {
        const workspace = await loadTexts([{ path: 'clinic.pidm', text }]);
        const errors = workspace.diagnostics.filter((d) => d.severity === 'error');
        expect(errors.map((d) => [d.line, d.column, d.code, d.message])).toEqual([[line, column, code, message]]);
    });

    it("SELECT * lists the FROM entity's own attributes", async () => {
        const text = `${CLINIC}query Q6: SELECT * FROM Patient\n`;
        const message = "'SELECT *' is SQL, not PIDM: list the attributes (SELECT pid, name FROM Patient).";
        const document = await validatePidm(text);
        expect(
            (document.diagnostics ?? []).filter((d) => codeOf(d) === 'syntax.sql-select-star').map((d) => d.message),
        ).toEqual([message]);
        const workspace = await loadTexts([{ path: 'clinic.pidm', text }]);
        expect(workspace.diagnostics.filter((d) => d.code === 'syntax.sql-select-star').map((d) => d.message)).toEqual([
            message,
        ]);
    });

    it('a wrong type word, then another on the next line: one error on each wrong word', async () => {
        const text = CLINIC.replace('name text\n  born date', 'name txt\n  born dte');
        const expected = [
            [4, 8, "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'txt'."],
            [5, 8, "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'dte'."],
        ];
        const document = await validatePidm(text);
        expect(
            (document.diagnostics ?? [])
                .filter((d) => d.severity === 1)
                .map((d) => [d.range.start.line + 1, d.range.start.character + 1, d.message]),
        ).toEqual(expected);
        const workspace = await loadTexts([{ path: 'clinic.pidm', text }]);
        expect(
            workspace.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.line, d.column, d.message]),
        ).toEqual(expected);
    });
});
