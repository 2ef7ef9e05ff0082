/**
 * KVLM's syntax errors are worded like PIDM's — what kind of thing was expected — instead of Chevrotain's list of
 * every token sequence (50 of them where a name is expected), in the editor and on the command line alike.
 */
import { describe, expect, it } from '@jest/globals';
import { loadTexts } from '../../../src/pipeline/load.js';
import { issues, parseKvlm } from './kvlm-test-helpers.js';

const COLLECTION = (query: string, type = 'text') => `database d
collection C {
  key id natural(R.k)
  from E as R
  field k : ${type} = R.k
  ${query}
}
`;

/** [title, text, line, message of the first syntax error] */
const CASES: [string, string, number, string][] = [
    ['a missing name', COLLECTION('query Q { select }'), 6, "Expecting a name but found '}'."],
    [
        'a missing value',
        COLLECTION('query Q { where k = select k }'),
        6,
        "Expecting a parameter (?name), a string, a number, 'true' or 'false' but found 'select'.",
    ],
    [
        'a wrong type word',
        COLLECTION('query Q { select k }', 'txt'),
        5,
        "Expecting a type (text, int, float, boolean, date, time or datetime) but found 'txt'.",
    ],
    [
        'text after the model',
        'database d {\n',
        1,
        "Expecting 'collection', 'merge' or the end of the file but found '{'.",
    ],
    ['a missing keyword', 'tournament t\n', 1, "Expecting 'database' but found 'tournament'."],
];

describe('KVLM syntax errors say what kind of thing was expected', () => {
    it.each(CASES)('%s (the editor)', async (_, text, line, message) => {
        const document = await parseKvlm(text);
        expect(
            issues(document)
                .filter((issue) => issue.code === 'syntax.parser')
                .map((issue) => [issue.line, issue.message])[0],
        ).toEqual([line, message]);
    });

    it.each(CASES)('%s (the command line)', async (_, text, line, message) => {
        const workspace = await loadTexts([{ path: 'model.kvlm', text }]);
        expect(
            workspace.diagnostics.filter((d) => d.code === 'syntax.parser').map((d) => [d.line, d.message])[0],
        ).toEqual([line, message]);
    });
});
