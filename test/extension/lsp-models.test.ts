/**
 * The editor applies the same model rule as the commands (src/language/common/model-sets.ts): the whole
 * repository opened as a folder — examples, their copies in tests, fixtures such as deep-nesting.pidm —
 * still shows an example's own diagnostics, one typo being one problem.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, Hover, MarkupContent } from 'vscode-languageserver/node';
import { buildBundles, fileUri, LspSession, positionOf, repoRoot } from './lsp-test-client.js';

const PATH = join(repoRoot, 'examples/airflights/airflights.pidm');
const SOURCE = readFileSync(PATH, 'utf8');

let session: LspSession;

beforeAll(async () => {
    buildBundles();
    session = await LspSession.start(repoRoot);
}, 60_000);

afterAll(async () => {
    await session?.stop();
});

const errors = (diagnostics: Diagnostic[]) => diagnostics.filter((d) => d.severity === 1);

describe('this repository opened as a folder', () => {
    it("shows an example's diagnostics: one typo is one error, with no duplicates from other models", async () => {
        const uri = fileUri(PATH);
        const text = SOURCE.replace('SELECT registrationNumber,capacity', 'SELECT registrationNumber,capacityy');
        const diagnostics = await session.open(uri, text);
        expect(errors(diagnostics).map((d) => [d.code, d.message])).toEqual([
            ['pidm.unknown-name', "Unknown attribute 'capacityy' of entity Aircraft. Did you mean 'capacity'?"],
        ]);
        const hover = await session.request<Hover | null>('textDocument/hover', {
            textDocument: { uri },
            position: positionOf(text, 'entity Flight', 8),
        });
        expect((hover?.contents as MarkupContent).value).toContain('Flight');
    }, 120_000);

    it('checks a .kvlm against the PIDM its source names: a misspelt attribute is an error with a did-you-mean', async () => {
        const path = join(repoRoot, 'examples/airflights/airflights.kvlm');
        const text = readFileSync(path, 'utf8').replace('= Aircraft.capacity label', '= Aircraft.capacityy label');
        const diagnostics = await session.open(fileUri(path), text);
        expect(errors(diagnostics).map((d) => [d.code, d.message])).toEqual([
            [
                'kvlm.source-unknown-attribute',
                "Entity Aircraft of airflights.pidm has no attribute 'capacityy'. Did you mean 'capacity'?",
            ],
        ]);
    }, 60_000);
});
