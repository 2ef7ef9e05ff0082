import { describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { loadTexts, type KvmodDiagnostic } from '../../../src/pipeline/load.js';
import { FUZZ_FIXED_CASES } from '../../../src/testing/model-fuzz.js';

const brief = (d: KvmodDiagnostic) => `${d.line}:${d.column} ${d.code} ${d.message}`;

describe('checks skip the nodes parser recovery left partial', () => {
    test("issue 13's reproduction ends in syntax and linking errors, none naming 'undefined'", async () => {
        const loaded = await loadTexts([{ path: 'r.kvlm', text: FUZZ_FIXED_CASES.kvlm[0]! }]);
        expect(loaded.diagnostics.filter((d) => !d.code.startsWith('syntax.')).map(brief)).toEqual([
            "3:30 kvlm.unresolved-node Unknown node 'Player'.",
            "4:1 kvlm.unresolved-node Unknown node 'projected'.",
        ]);
        expect(loaded.diagnostics.filter((d) => d.code.startsWith('syntax.')).length).toBe(6);
    });

    test('a field cut after its name silences the checks that would name its type; an intact collection keeps its checks', async () => {
        const source = await readFile('examples/tournament/tournament.kvlm', 'utf8');
        const broken = source
            .replace('field score: int = Player.score', 'field score:')
            .concat(
                '\ncollection Idle {\n    key Idle_id natural(Player.username)\n    from Player as Player\n    field username: text = Player.username\n}\n',
            );
        const loaded = await loadTexts([{ path: 't.kvlm', text: broken }]);
        const messages = loaded.diagnostics.map((d) => d.message);
        expect(messages.filter((m) => /undefined/.test(m))).toEqual([]);
        expect(loaded.diagnostics.some((d) => d.code === 'syntax.parser')).toBe(true);
        // Collection Idle is complete: its own checks still run in a file with a syntax error elsewhere.
        expect(messages).toContain("Collection 'Idle' serves no query.");
    });

    test('PIDM: an id without its name and a query without its name are syntax errors, not named undefined', async () => {
        const [id, query] = FUZZ_FIXED_CASES.pidm;
        expect((await loadTexts([{ path: 'i.pidm', text: id! }])).diagnostics.map(brief)).toEqual([
            "4:5 syntax.parser Expecting a name but found '}'.",
        ]);
        expect((await loadTexts([{ path: 'q.pidm', text: query! }])).diagnostics.map(brief)).toEqual([
            "9:1 syntax.parser Expecting a name but found 'SELECT'.",
            "9:8 pidm.unknown-name Unknown alias or reference 'Origin': it is neither an alias nor a reference of entity Passenger.",
        ]);
    });

    test('without a syntax error every check runs, as before', async () => {
        const source = await readFile('examples/tournament/tournament.kvlm', 'utf8');
        const loaded = await loadTexts([
            { path: 't.kvlm', text: source.replace('param username: text', 'param username: int') },
        ]);
        expect(loaded.diagnostics.map(brief)).toEqual([
            "21:27 kvlm.parameter-type-mismatch Parameter 'username' is int but is compared with field 'username' of type text.",
        ]);
    });
});
