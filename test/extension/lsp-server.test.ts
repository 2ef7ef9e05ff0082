/**
 * The language server as VS Code sees it: the bundled `dist/server.cjs` spawned with node and driven over
 * stdio with JSON-RPC. Covers what the editor shows for PIDM: diagnostics, completion, hover, definition,
 * references, rename across files, outline, folding, formatting and quick fixes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
    SymbolKind,
    type CodeAction,
    type CompletionItem,
    type CompletionList,
    type Diagnostic,
    type DocumentSymbol,
    type FoldingRange,
    type Hover,
    type Location,
    type MarkupContent,
    type TextEdit,
    type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { buildBundles, fileUri, LspSession, positionOf, repoRoot } from './lsp-test-client.js';

const ENTITIES = `/** Someone who flies. */
entity Passenger {
  id idPassport unique
  firstname text
  ref Flight[*] flights
}

entity Flight {
  id code unique
  departureDate date
  ref Airport[1] origin
}

entity Airport {
  id codeCAO unique
  city text
}
`;

const QUERIES = `query Q3_passengersOfGivenFlight:
SELECT firstName, idPassport
FROM Passenger
INCLUDE Passenger.flights as FL
WHERE FL.code = "?"
`;

let dir: string;
let session: LspSession;
let entitiesUri: string;
let queriesUri: string;
let queriesDiagnostics: Diagnostic[];

beforeAll(async () => {
    buildBundles();
    dir = mkdtempSync(join(tmpdir(), 'kvmod-lsp-'));
    writeFileSync(join(dir, 'entities.pidm'), ENTITIES);
    writeFileSync(join(dir, 'queries.pidm'), QUERIES);
    entitiesUri = fileUri(join(dir, 'entities.pidm'));
    queriesUri = fileUri(join(dir, 'queries.pidm'));
    session = await LspSession.start();
    await session.open(entitiesUri, ENTITIES);
    queriesDiagnostics = await session.open(queriesUri, QUERIES);
});

afterAll(async () => {
    await session?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
});

function items(result: CompletionItem[] | CompletionList | null): string[] {
    const list = Array.isArray(result) ? result : (result?.items ?? []);
    return list.map((item) => item.label);
}

function hoverText(hover: Hover | null): string {
    return (hover?.contents as MarkupContent | undefined)?.value ?? '';
}

/** Applies LSP text edits to a text (edits must not overlap). */
function applyEdits(text: string, edits: TextEdit[]): string {
    const lines = text.split('\n');
    const offsetOf = (line: number, character: number) =>
        lines.slice(0, line).reduce((sum, current) => sum + current.length + 1, 0) + character;
    const sorted = [...edits].sort(
        (a, b) =>
            offsetOf(b.range.start.line, b.range.start.character) -
            offsetOf(a.range.start.line, a.range.start.character),
    );
    let result = text;
    for (const edit of sorted) {
        const start = offsetOf(edit.range.start.line, edit.range.start.character);
        const end = offsetOf(edit.range.end.line, edit.range.end.character);
        result = result.slice(0, start) + edit.newText + result.slice(end);
    }
    return result;
}

describe('the bundled language server over stdio', () => {
    it('announces the editor features and the kvmod commands at initialize', () => {
        const capabilities = session.capabilities;
        expect(capabilities.executeCommandProvider?.commands).toEqual([
            'kvmod.server.transform',
            'kvmod.server.generate',
            'kvmod.server.explainMerges',
            'kvmod.server.listTargets',
            'kvmod.server.load',
            'kvmod.server.verify',
        ]);
        expect(capabilities).toMatchObject({
            hoverProvider: true,
            definitionProvider: true,
            referencesProvider: true,
            documentSymbolProvider: true,
            foldingRangeProvider: true,
            renameProvider: { prepareProvider: true },
        });
        expect(capabilities.completionProvider).toBeDefined();
        expect(capabilities.documentFormattingProvider).toBe(true);
        expect(capabilities.codeActionProvider).toBeTruthy();
    });

    it('publishes diagnostics for an unresolved name as the user types, with a stable issue code', async () => {
        const uri = fileUri(join(dir, 'typo.pidm'));
        const text = 'query Q1: SELECT nickname FROM Passenger\n';
        const diagnostics = await session.open(uri, text);
        expect(diagnostics).toHaveLength(1);
        expect(diagnostics[0]).toMatchObject({
            severity: 1,
            code: 'pidm.unknown-name',
            source: 'pidm',
            range: { start: positionOf(text, 'nickname'), end: positionOf(text, 'nickname', 'nickname'.length) },
        });
        expect(diagnostics[0].message).toContain("'nickname'");

        const fixed = await session.change(uri, 'query Q1: SELECT idPassport FROM Passenger\n');
        expect(fixed).toEqual([]);
        await session.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    });

    it('warns about a name that only matches in another case, with a PIDM issue code', () => {
        const warning = queriesDiagnostics.find((d) => d.range.start.line === 1 && d.range.start.character === 7);
        expect(warning).toBeDefined();
        expect(warning).toMatchObject({ severity: 2, code: 'pidm.case-mismatch' });
    });

    it('completes the attributes and references of the aliased entity after `FL.`', async () => {
        const result = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FL.code', 3),
        });
        const labels = items(result);
        expect(labels).toEqual(expect.arrayContaining(['code', 'departureDate', 'origin']));
        expect(labels).not.toContain('firstname');
        expect(labels).not.toContain('FL');
    });

    it('completes a partly typed step after a dot from the aliased entity only', async () => {
        const result = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FL.code', 5),
        });
        expect(items(result)).toEqual(['code']);
    });

    it('completes aliases and the FROM entity members at the start of a path', async () => {
        const result = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FL.code'),
        });
        expect(items(result)).toEqual(
            expect.arrayContaining(['FL', 'Passenger', 'firstname', 'idPassport', 'flights']),
        );
    });

    it("labels completions with the name and says what each is in the modeler's words", async () => {
        const result = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FL.code'),
        });
        const list = Array.isArray(result) ? result : result.items;
        const details = Object.fromEntries(
            list.filter((item) => item.detail && item.detail !== 'Keyword').map((item) => [item.label, item.detail]),
        );
        expect(details).toEqual({
            FL: 'alias of Flight (INCLUDE)',
            Passenger: 'alias of Passenger (FROM)',
            idPassport: 'identifier: text of Passenger',
            firstname: 'attribute: text of Passenger',
            flights: 'reference to Flight (many) of Passenger',
        });
    });

    it('completes entity names after `FROM` and type names in an entity', async () => {
        const fromResult = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FROM Passenger', 5),
        });
        expect(items(fromResult)).toEqual(expect.arrayContaining(['Passenger', 'Flight', 'Airport']));
        const typeResult = await session.request<CompletionItem[] | CompletionList>('textDocument/completion', {
            textDocument: { uri: entitiesUri },
            position: positionOf(ENTITIES, 'city text', 5),
        });
        expect(items(typeResult)).toEqual(expect.arrayContaining(['text', 'int', 'date', 'boolean']));
    });

    it('shows type, owner and cardinality on hover, with the doc comment of an entity', async () => {
        const code = await session.request<Hover>('textDocument/hover', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'FL.code', 4),
        });
        expect(hoverText(code)).toBe('identifier `code: text` of **Flight**, unique');
        const flights = await session.request<Hover>('textDocument/hover', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'flights', 2),
        });
        expect(hoverText(flights)).toBe('reference `flights` of **Passenger** → **Flight** `[*]` (many)');
        const passenger = await session.request<Hover>('textDocument/hover', {
            textDocument: { uri: entitiesUri },
            position: positionOf(ENTITIES, 'Passenger', 2),
        });
        expect(hoverText(passenger)).toBe(
            'entity **Passenger**: 2 attribute(s), 1 reference(s), identified by `idPassport`\n\n---\n\nSomeone who flies.',
        );
    });

    it('names the KVLM collection that serves a query on hover', async () => {
        const hover = await session.request<Hover>('textDocument/hover', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'Q3_passengersOfGivenFlight', 3),
        });
        expect(hoverText(hover)).toBe(
            'query **Q3_passengersOfGivenFlight**: 2 projection(s) from **Passenger**\n\n' +
                'served by KVLM collection **Q3_passengersOfGivenFlight** (3 field(s); merge policy safe)\n\n' +
                'Redis: index `Q3_passengersOfGivenFlight`, keys `Q3_passengersOfGivenFlight_3afb2e:…` (redisearch2)',
        );
    });

    it('explains a KVLM field on hover: type, source path and why it is there', async () => {
        const text = readFileSync(join(repoRoot, 'test/fixtures/kvlm/airflights-q4q5.kvlm'), 'utf8');
        const uri = fileUri(join(dir, 'airflights.kvlm'));
        const diagnostics = await session.open(uri, text);
        expect(diagnostics.filter((d) => d.severity === 1)).toEqual([]);
        const hover = await session.request<Hover>('textDocument/hover', {
            textDocument: { uri },
            position: positionOf(text, 'order by Origin_city', 10),
        });
        expect(hoverText(hover)).toBe(
            'field `Origin_city: text` = `Origin.city` (label "Origin.city")\n\n' +
                'indexed (some query sorts on it); projected by `Q4_passengersDepartingGivenCountry`, `Q5_passengersDepartingGivenPeriod`; ' +
                'sorted by `Q4_passengersDepartingGivenCountry`, `Q5_passengersDepartingGivenPeriod`',
        );
    });

    it('goes to the definition of an attribute in another file, also when spelled in another case', async () => {
        const result = await session.request<Location[]>('textDocument/definition', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'firstName', 2),
        });
        const locations = (Array.isArray(result) ? result : [result]) as unknown as {
            targetUri?: string;
            uri?: string;
            targetSelectionRange?: Location['range'];
            range?: Location['range'];
        }[];
        expect(locations).toHaveLength(1);
        expect(locations[0].targetUri ?? locations[0].uri).toBe(entitiesUri);
        expect((locations[0].targetSelectionRange ?? locations[0].range)!.start).toEqual(
            positionOf(ENTITIES, 'firstname'),
        );
    });

    it('finds the references of an attribute in every file', async () => {
        const result = await session.request<Location[]>('textDocument/references', {
            textDocument: { uri: entitiesUri },
            position: positionOf(ENTITIES, 'firstname', 1),
            context: { includeDeclaration: true },
        });
        expect(
            result
                .map(
                    (location) =>
                        `${location.uri === entitiesUri ? 'entities' : 'queries'}:${location.range.start.line}`,
                )
                .sort(),
        ).toEqual(['entities:3', 'queries:1']);
    });

    it('renames an attribute everywhere it is used, across files, including spellings in another case', async () => {
        const edit = await session.request<WorkspaceEdit>('textDocument/rename', {
            textDocument: { uri: entitiesUri },
            position: positionOf(ENTITIES, 'firstname', 2),
            newName: 'givenName',
        });
        expect(Object.keys(edit.changes ?? {}).sort()).toEqual([entitiesUri, queriesUri].sort());
        expect(applyEdits(ENTITIES, edit.changes![entitiesUri])).toContain('  givenName text\n');
        expect(applyEdits(QUERIES, edit.changes![queriesUri])).toContain('SELECT givenName, idPassport\n');
    });

    it('renames an entity together with the paths that use its name as the FROM alias', async () => {
        const edit = await session.request<WorkspaceEdit>('textDocument/rename', {
            textDocument: { uri: entitiesUri },
            position: positionOf(ENTITIES, 'entity Passenger', 8),
            newName: 'Traveller',
        });
        expect(applyEdits(QUERIES, edit.changes![queriesUri])).toBe(QUERIES.replaceAll('Passenger', 'Traveller'));
        expect(applyEdits(ENTITIES, edit.changes![entitiesUri])).toContain('entity Traveller {');
    });

    it('renames the entity when the rename starts on a path that borrows its name', async () => {
        const edit = await session.request<WorkspaceEdit>('textDocument/rename', {
            textDocument: { uri: queriesUri },
            position: positionOf(QUERIES, 'Passenger.flights', 2),
            newName: 'Traveller',
        });
        expect(applyEdits(QUERIES, edit.changes![queriesUri])).toBe(QUERIES.replaceAll('Passenger', 'Traveller'));
        expect(applyEdits(ENTITIES, edit.changes![entitiesUri])).toContain('entity Traveller {');
    });

    it('renames a reference together with the paths that use it as an include alias without AS', async () => {
        const uri = fileUri(join(dir, 'crew.pidm'));
        const text = [
            'entity Crew { id badge  ref Shift[*] shifts }',
            'entity Shift { id day date }',
            'query Q_crewShifts: SELECT badge, shifts.day FROM Crew INCLUDE Crew.shifts WHERE shifts.day = "?"',
            '',
        ].join('\n');
        await session.open(uri, text);
        const edit = await session.request<WorkspaceEdit>('textDocument/rename', {
            textDocument: { uri },
            position: positionOf(text, 'shifts', 1),
            newName: 'rota',
        });
        expect(applyEdits(text, edit.changes![uri])).toBe(text.replaceAll('shifts', 'rota'));
    });

    it('outlines entities as classes with their members, and queries as functions', async () => {
        const entities = await session.request<DocumentSymbol[]>('textDocument/documentSymbol', {
            textDocument: { uri: entitiesUri },
        });
        expect(entities.map((symbol) => [symbol.name, symbol.kind])).toEqual([
            ['Passenger', SymbolKind.Class],
            ['Flight', SymbolKind.Class],
            ['Airport', SymbolKind.Class],
        ]);
        expect(entities[0].children?.map((child) => [child.name, child.kind])).toEqual([
            ['idPassport', SymbolKind.Key],
            ['firstname', SymbolKind.Field],
            ['flights', SymbolKind.Property],
        ]);
        const queries = await session.request<DocumentSymbol[]>('textDocument/documentSymbol', {
            textDocument: { uri: queriesUri },
        });
        expect(queries.map((symbol) => [symbol.name, symbol.kind])).toEqual([
            ['Q3_passengersOfGivenFlight', SymbolKind.Function],
        ]);
    });

    it('folds entity bodies and multi-line queries', async () => {
        const ranges = await session.request<FoldingRange[]>('textDocument/foldingRange', {
            textDocument: { uri: entitiesUri },
        });
        expect(ranges.map((range) => range.startLine)).toEqual(expect.arrayContaining([1, 7, 13]));
        const queryRanges = await session.request<FoldingRange[]>('textDocument/foldingRange', {
            textDocument: { uri: queriesUri },
        });
        expect(queryRanges.map((range) => range.startLine)).toContain(0);
    });

    it('formats a badly laid out entity into the canonical layout', async () => {
        const uri = fileUri(join(dir, 'messy.pidm'));
        const text = 'entity   Airport{id codeCAO unique\n      city text }\n';
        await session.open(uri, text);
        const edits = await session.request<TextEdit[]>('textDocument/formatting', {
            textDocument: { uri },
            options: { tabSize: 2, insertSpaces: true },
        });
        expect(applyEdits(text, edits ?? [])).toBe('entity Airport {\n  id codeCAO unique\n  city text\n}\n');
        await session.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
    });

    it('offers the case fix for a name spelled in another case as a quick fix', async () => {
        const warning = queriesDiagnostics.find((d) => d.range.start.line === 1 && d.range.start.character === 7);
        expect(warning).toBeDefined();
        const actions = await session.request<CodeAction[]>('textDocument/codeAction', {
            textDocument: { uri: queriesUri },
            range: warning!.range,
            context: { diagnostics: [warning], only: ['quickfix'] },
        });
        const fix = actions.find(
            (action) => action.kind === 'quickfix' && JSON.stringify(action.edit ?? {}).includes('firstname'),
        );
        expect(fix).toBeDefined();
        expect(applyEdits(QUERIES, fix!.edit!.changes![queriesUri])).toContain('SELECT firstname, idPassport\n');
    });
});
