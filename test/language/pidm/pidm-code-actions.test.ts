import { describe, expect, test } from '@jest/globals';
import { TextDocument, type LangiumDocument } from 'langium';
import type { CodeAction, Diagnostic } from 'vscode-languageserver';
import { PidmIssueCodes } from '../../../src/language/pidm/pidm-validator.js';
import { issuesWithCode, services, validatePidm } from './pidm-test-helpers.js';

const MODEL = `entity Passenger { id idPassport  firstname text  ref Flight[*] flights }
entity Flight { id code  departureTime time }
`;

async function fixesFor(document: LangiumDocument, diagnostics: Diagnostic[]): Promise<CodeAction[]> {
    const actions = await services.Pidm.lsp.CodeActionProvider!.getCodeActions(document, {
        textDocument: { uri: document.uri.toString() },
        range: diagnostics[0].range,
        context: { diagnostics },
    });
    return (actions ?? []) as CodeAction[];
}

/** The document's text after applying one code action. */
function apply(document: LangiumDocument, action: CodeAction): string {
    const edits = action.edit?.changes?.[document.uri.toString()] ?? [];
    return TextDocument.applyEdits(document.textDocument, edits);
}

describe('PIDM quick fixes', () => {
    test("a workload size its reference's cardinality does not admit becomes the nearest one it admits", async () => {
        const text = MODEL + 'entity Seat { id number  ref Flight[0..1] flight }  query S: select number from Seat\n';
        const document = await validatePidm(text + 'workload { size Seat.flight 3 }');
        const issues = issuesWithCode(document, PidmIssueCodes.SizeOutsideCardinality);
        expect(issues.map((d) => d.message)).toEqual([
            'flight is declared [0..1]: its average size lies between 0 and 1, not 3.',
        ]);
        const actions = await fixesFor(document, issues);
        expect(actions.map((a) => [a.title, a.isPreferred])).toEqual([
            ['Write 1, the nearest size the cardinality admits', true],
        ]);
        expect(apply(document, actions[0])).toBe(text + 'workload { size Seat.flight 1 }');
    });

    test('a case slip and an unknown name in a workload are fixed like those of a query', async () => {
        const document = await validatePidm(
            MODEL + 'query Q: select firstname from Passenger\nworkload { query q 2  update Passenger.firstnme 1 }',
        );
        const slip = issuesWithCode(document, PidmIssueCodes.CaseMismatch);
        expect(apply(document, (await fixesFor(document, slip))[0])).toContain('workload { query Q 2');
        const unknown = issuesWithCode(document, PidmIssueCodes.UnknownName);
        expect(unknown.map((d) => d.message)).toEqual([
            "Unknown attribute or reference 'firstnme' of entity Passenger. Did you mean 'firstname'?",
        ]);
        expect(apply(document, (await fixesFor(document, unknown))[0])).toContain('update Passenger.firstname 1 }');
    });

    test('a case slip is rewritten to the declared spelling', async () => {
        const document = await validatePidm(MODEL + 'query Q: select firstName from Passenger');
        const [actions] = [await fixesFor(document, issuesWithCode(document, PidmIssueCodes.CaseMismatch))];
        expect(actions.map((a) => [a.title, a.kind, a.isPreferred])).toEqual([
            ["Write 'firstname' as declared", 'quickfix', true],
        ]);
        expect(apply(document, actions[0])).toBe(MODEL + 'query Q: select firstname from Passenger');
    });

    test('a case slip in a reference step and in an entity name is fixed the same way', async () => {
        const document = await validatePidm(
            MODEL + 'query Q: select FL.code from passenger include Passenger.Flights as FL',
        );
        const slips = issuesWithCode(document, PidmIssueCodes.CaseMismatch);
        expect(slips).toHaveLength(2);
        let text = document.textDocument.getText();
        // Apply from the end so that earlier ranges stay valid.
        for (const slip of [...slips].sort((a, b) => b.range.start.character - a.range.start.character)) {
            const [fix] = await fixesFor(document, [slip]);
            const [edit] = fix.edit!.changes![document.uri.toString()];
            const doc = TextDocument.create('x', 'pidm', 0, text);
            text = TextDocument.applyEdits(doc, [edit]);
        }
        expect(text).toBe(MODEL + 'query Q: select FL.code from Passenger include Passenger.flights as FL');
    });

    test('an unknown name is replaced by the did-you-mean suggestion', async () => {
        const document = await validatePidm(MODEL + 'query Q: select frstname from Passenger');
        const actions = await fixesFor(document, issuesWithCode(document, PidmIssueCodes.UnknownName));
        expect(actions.map((a) => a.title)).toEqual(["Replace with 'firstname'"]);
        expect(apply(document, actions[0])).toBe(MODEL + 'query Q: select firstname from Passenger');
    });

    test('an unknown entity is replaced by the suggested entity', async () => {
        const document = await validatePidm(MODEL + 'query Q: select code from Fligth');
        const actions = await fixesFor(document, issuesWithCode(document, PidmIssueCodes.UnknownName));
        expect(apply(document, actions[0])).toBe(MODEL + 'query Q: select code from Flight');
    });

    test('an ambiguous name offers every candidate, none preferred', async () => {
        const document = await validatePidm('entity A { id k  name text  Name text }\nquery Q: select NAME from A');
        const actions = await fixesFor(document, issuesWithCode(document, PidmIssueCodes.AmbiguousName));
        expect(actions.map((a) => [a.title, a.isPreferred])).toEqual([
            ["Replace with 'name'", false],
            ["Replace with 'Name'", false],
        ]);
        expect(apply(document, actions[1])).toBe(
            'entity A { id k  name text  Name text }\nquery Q: select Name from A',
        );
    });

    test('an unknown name with nothing close offers no fix, and other diagnostics offer none', async () => {
        const document = await validatePidm(MODEL + 'entity Crew { badge text }\nquery Q: select zzz from Passenger');
        const unknown = issuesWithCode(document, PidmIssueCodes.UnknownName);
        expect(await fixesFor(document, unknown)).toEqual([]);
        expect(await fixesFor(document, issuesWithCode(document, PidmIssueCodes.MissingId))).toEqual([]);
    });
});
