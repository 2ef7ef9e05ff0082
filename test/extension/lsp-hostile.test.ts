/**
 * No text kills the language server: the hostile inputs of the command line's fuzz test (10,000 nested
 * parentheses, a run of 10,000 `not`, a 10 MB line, binary bytes, a WHERE too long for the parser) typed
 * into an open document, and one such file on disk in the workspace, end in diagnostics with the same
 * codes as `kvmod validate`. The server keeps answering hover and completion throughout, and once the
 * text is good again its diagnostics and hover come back.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Diagnostic, Hover, MarkupContent } from 'vscode-languageserver/node';
import { keepServerAlive } from '../../src/language/lsp/kvmod-server-guard.js';
import { EventEmitter } from 'node:events';
import { buildBundles, fileUri, LspSession, positionOf, repoRoot } from './lsp-test-client.js';

const SOURCE = readFileSync(join(repoRoot, 'examples/airflights/airflights.pidm'), 'utf8');
const WITH_TYPO = SOURCE.replace('SELECT firstName,', 'SELECT firstNam,');

let dir: string;
let session: LspSession;
let uri: string;

beforeAll(async () => {
    buildBundles();
    dir = mkdtempSync(join(tmpdir(), 'kvmod-lsp-hostile-'));
    // A model that cannot be parsed, on disk in the workspace the server scans at startup.
    writeFileSync(
        join(dir, 'deep.pidm'),
        `entity A { id x }\nquery Q: SELECT x FROM A WHERE ${'('.repeat(10_000)}x = "?"${')'.repeat(10_000)}\n`,
    );
    session = await LspSession.start(dir);
    uri = fileUri(join(dir, 'airflights.pidm'));
}, 60_000);

afterAll(async () => {
    await session?.stop();
    rmSync(dir, { recursive: true, force: true });
});

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);
/** The position after the last character of `text`, before a final line break (on the hostile line itself). */
const endOf = (text: string) => {
    const lines = text.replace(/\n$/, '').split('\n');
    return { line: lines.length - 1, character: lines.at(-1)!.length };
};
const errorCodes = (diagnostics: Diagnostic[]) => codes(diagnostics.filter((d) => d.severity === 1));

async function hoverText(text: string, needle: string, delta: number): Promise<string> {
    const hover = await session.request<Hover | null>('textDocument/hover', {
        textDocument: { uri },
        position: positionOf(text, needle, delta),
    });
    return (hover?.contents as MarkupContent | undefined)?.value ?? '';
}

describe('the language server under hostile text', () => {
    it('serves a model beside an unparsable file of the workspace', async () => {
        const diagnostics = await session.open(uri, WITH_TYPO);
        expect(errorCodes(diagnostics)).toEqual(['pidm.unknown-name']);
        expect(await hoverText(WITH_TYPO, 'entity Flight', 8)).toContain('Flight');
    });

    const hostile: [string, string, string][] = [
        [
            '10,000 nested parentheses',
            `${SOURCE}\nquery Q: SELECT code FROM Flight WHERE ${'('.repeat(10_000)}code = "?"${')'.repeat(10_000)}\n`,
            'syntax.too-deep',
        ],
        [
            'a run of 10,000 not',
            `${SOURCE}\nquery Q: SELECT code FROM Flight WHERE ${'not '.repeat(10_000)}code = "?"\n`,
            'syntax.too-deep',
        ],
        [
            'a WHERE of 100,000 terms',
            `${SOURCE}\nquery Q: SELECT code FROM Flight WHERE ${Array.from({ length: 100_000 }, () => 'code = "?"').join(' and ')}\n`,
            'syntax.too-complex',
        ],
        [
            'a 10 MB line',
            `${SOURCE}\nquery Q: SELECT code FROM Flight WHERE code = "?" ${'b'.repeat(10 * 1024 * 1024)}\n`,
            'syntax.parser',
        ],
        [
            'binary bytes',
            Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919 + 13) % 256)).toString('latin1'),
            'syntax.lexer',
        ],
    ];

    for (const [label, text, code] of hostile) {
        it(`reports ${label} as ${code} and keeps answering`, async () => {
            const diagnostics = await session.change(uri, text);
            expect(errorCodes(diagnostics)).toContain(code);
            expect(session.alive).toBe(true);
            // Requests still get answers (an empty hover is an answer) while the bad text is open.
            await session.request('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 0 } });
            await session.request('textDocument/completion', {
                textDocument: { uri },
                position: { line: 0, character: 0 },
            });
            await session.request('textDocument/documentSymbol', { textDocument: { uri } });
            // Completion at the end of the hostile text, as the editor asks while it is typed: Langium's completion
            // parser re-parses the text before the cursor, and an overflow there was a failed request that VS Code
            // logs as an error and answers by showing the output channel over the Problems view.
            await session.request('textDocument/completion', { textDocument: { uri }, position: endOf(text) });
            expect(session.logs).toEqual([]);
        }, 120_000);
    }

    it('shows the diagnostics and hover again once the hostile text is deleted', async () => {
        const diagnostics = await session.change(uri, WITH_TYPO);
        expect(errorCodes(diagnostics)).toEqual(['pidm.unknown-name']);
        expect(diagnostics[0].message).toContain("Did you mean 'firstname'?");
        expect(await hoverText(WITH_TYPO, 'entity Flight', 8)).toContain('Flight');
        expect(session.alive).toBe(true);
    });

    it('fails a malformed command alone and keeps serving', async () => {
        await expect(
            session.request('workspace/executeCommand', { command: 'kvmod.server.transform', arguments: [42] }),
        ).rejects.toThrow(/kvmod commands take one argument/);
        expect(await hoverText(WITH_TYPO, 'entity Flight', 8)).toContain('Flight');
    });
});

describe('keepServerAlive', () => {
    it('reports each distinct process-wide failure once in the output channel instead of ending the process', () => {
        const source = new EventEmitter();
        const lines: string[] = [];
        keepServerAlive({ console: { error: (line: string) => lines.push(line) } } as never, source);
        source.emit('uncaughtException', new RangeError('Maximum call stack size exceeded'));
        source.emit('uncaughtException', new RangeError('Maximum call stack size exceeded'));
        source.emit('unhandledRejection', 'a build failed');
        expect(lines.map((line) => line.split('\n')[0])).toEqual([
            'kvmod: an internal error was caught (RangeError: Maximum call stack size exceeded); the language server keeps running, and this error is reported once.',
            'kvmod: an internal error was caught (a build failed); the language server keeps running, and this error is reported once.',
        ]);
    });
});
