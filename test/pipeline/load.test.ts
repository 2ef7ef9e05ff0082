/**
 * The loader is the single front door for models: one workspace per call, stable issue codes, positions
 * as the user's editor shows them, and diagnostics (never exceptions) for whatever the input holds.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
    findExcessiveNesting,
    formatDiagnostic,
    loadTexts,
    loadWorkspace,
    MAX_RECOVERY_SIZE,
    type KvmodDiagnostic,
} from '../../src/pipeline/load.js';
import { KvmodError, isKvmodError } from '../../src/pipeline/errors.js';

const ENTITIES = `entity Author {
  id authorId unique
  name text
  ref Book[*] books
}
entity Book {
  id isbn unique
  title text
}
`;
const QUERIES = `query Q1_booksOfAuthor:
SELECT A.name, B.title
FROM Author AS A
INCLUDE A.books AS B
WHERE A.authorId = "?"
`;

const codes = (diagnostics: KvmodDiagnostic[]) => diagnostics.map((d) => d.code);
const errorsOf = (diagnostics: KvmodDiagnostic[]) => diagnostics.filter((d) => d.severity === 'error');

describe('loadTexts', () => {
    it('links queries to entities declared in another file of the same call', async () => {
        const workspace = await loadTexts([
            { path: 'm/entities.pidm', text: ENTITIES },
            { path: 'm/queries.pidm', text: QUERIES },
        ]);
        expect(workspace.diagnostics).toEqual([]);
        expect(workspace.hasErrors).toBe(false);
        expect(workspace.pidm.map((entry) => entry.path)).toEqual(['m/entities.pidm', 'm/queries.pidm']);
        expect(workspace.pidm[1].model.queries[0].from.entity.ref?.name).toBe('Author');
    });

    it("keeps the calls apart: a second workspace does not see the first one's entities", async () => {
        await loadTexts([{ path: 'm/entities.pidm', text: ENTITIES }]);
        const alone = await loadTexts([{ path: 'm/queries.pidm', text: QUERIES }]);
        expect(alone.hasErrors).toBe(true);
        expect(codes(alone.diagnostics)).toContain('pidm.unknown-name');
    });

    it('returns PIDM and KVLM models separately, in argument order', async () => {
        const workspace = await loadTexts([
            { path: 'b.kvlm', text: 'database b\n' },
            { path: 'z.pidm', text: ENTITIES },
            { path: 'a.kvlm', text: 'database a\n' },
        ]);
        expect(workspace.kvlm.map((entry) => [entry.path, entry.model.name])).toEqual([
            ['b.kvlm', 'b'],
            ['a.kvlm', 'a'],
        ]);
        expect(workspace.pidm.map((entry) => entry.path)).toEqual(['z.pidm']);
    });

    it('gives 1-based positions and sorts diagnostics by path, line and column', async () => {
        const workspace = await loadTexts([
            { path: 'b.pidm', text: 'entity A {\n  id x\n}\nquery Q: SELECT y FROM A\n' },
            { path: 'a.pidm', text: 'entity B { id x }\nquery R: SELECT x FROM C\n' },
        ]);
        const errors = workspace.diagnostics.filter((d) => d.severity === 'error');
        expect(errors.map((d) => [d.path, d.line, d.column, d.code])).toEqual([
            ['a.pidm', 2, 24, 'pidm.unknown-name'],
            ['b.pidm', 4, 17, 'pidm.unknown-name'],
        ]);
        expect(errors[1]).toMatchObject({ endLine: 4, endColumn: 18 });
    });

    it('reports a lexer error as syntax.lexer and a parser error as syntax.parser', async () => {
        const workspace = await loadTexts([{ path: 'x.pidm', text: 'entity A { id x § }\nentity B { id }\n' }]);
        expect(codes(workspace.diagnostics)).toEqual(expect.arrayContaining(['syntax.lexer', 'syntax.parser']));
        expect(workspace.diagnostics.find((d) => d.code === 'syntax.lexer')).toMatchObject({
            line: 1,
            column: 17,
            severity: 'error',
        });
    });

    it('keeps every message on one line', async () => {
        const workspace = await loadTexts([{ path: 'x.pidm', text: 'entity A { id x }\nquery Q: SELECT { FROM A\n' }]);
        expect(workspace.hasErrors).toBe(true);
        for (const d of workspace.diagnostics) expect(d.message).not.toMatch(/[\n\r]/);
    });

    it('escapes control characters that a lexer message quotes from binary input', async () => {
        const workspace = await loadTexts([{ path: 'x.pidm', text: 'entity A \u0007\u001b[31m { id x }' }]);
        const lexer = workspace.diagnostics.filter((d) => d.code === 'syntax.lexer');
        expect(lexer.length).toBeGreaterThan(0);
        for (const d of lexer) expect(d.message).not.toMatch(/[\u0000-\u001f]/);
        expect(lexer.map((d) => d.message).join(' ')).toContain('\\u0007');
    });

    it('reports a file with another extension as io.unsupported-file-type without loading it', async () => {
        const workspace = await loadTexts([{ path: 'notes.txt', text: ENTITIES }]);
        expect(workspace.diagnostics).toEqual([
            {
                path: 'notes.txt',
                line: 1,
                column: 1,
                endLine: 1,
                endColumn: 1,
                severity: 'error',
                message: "unsupported file type '.txt': kvmod reads .pidm and .kvlm files",
                code: 'io.unsupported-file-type',
            },
        ]);
        expect(workspace.pidm).toEqual([]);
    });

    it('reports 10,000 nested parentheses as syntax.too-deep at the 101st, and still loads the other files', async () => {
        const deep = `entity A { id x }\nquery Q: SELECT x FROM A WHERE ${'('.repeat(10_000)}x = "?"${')'.repeat(10_000)}\n`;
        const workspace = await loadTexts([
            { path: 'deep.pidm', text: deep },
            { path: 'ok.pidm', text: ENTITIES },
        ]);
        expect(errorsOf(workspace.diagnostics)).toEqual([
            expect.objectContaining({
                path: 'deep.pidm',
                line: 2,
                column: 132,
                severity: 'error',
                code: 'syntax.too-deep',
            }),
        ]);
        expect(workspace.pidm.map((entry) => entry.path)).toEqual(['deep.pidm', 'ok.pidm']);
        expect(workspace.pidm[1].model.entities).toHaveLength(2);
    });

    it('loads a 10 MB string literal without error (the STRING terminal cannot overflow the regex engine)', async () => {
        const huge = `entity A { id x }\nquery Q: SELECT x FROM A WHERE x = "${'b'.repeat(10 * 1024 * 1024)}"\n`;
        const workspace = await loadTexts([{ path: 'huge.pidm', text: huge }]);
        expect(errorsOf(workspace.diagnostics)).toEqual([]);
        expect(workspace.pidm[0].model.queries[0].name).toBe('Q');
    });

    it('reports a WHERE too long for the parser as syntax.too-complex and loads the other files on fresh services', async () => {
        const chain = Array.from({ length: 100_000 }, () => 'x = "?"').join(' and ');
        const huge = `entity A { id x }\nquery Q: SELECT x FROM A WHERE ${chain}\n`;
        const workspace = await loadTexts([
            { path: 'ok.pidm', text: ENTITIES },
            { path: 'huge.pidm', text: huge },
            { path: 'queries.pidm', text: QUERIES },
        ]);
        expect(errorsOf(workspace.diagnostics).map((d) => [d.path, d.code])).toEqual([
            ['huge.pidm', 'syntax.too-complex'],
        ]);
        expect(workspace.pidm[2].model.queries[0].name).toBe('Q1_booksOfAuthor');
    });

    it('parses a broken file larger than the recovery limit quickly, reporting its first syntax error', async () => {
        const soup = 'entity { } query select from x = "?" , ref [*] where and '.repeat(
            Math.ceil((MAX_RECOVERY_SIZE * 2) / 60),
        );
        const workspace = await loadTexts([{ path: 'soup.pidm', text: soup }]);
        expect(workspace.hasErrors).toBe(true);
        expect(codes(workspace.diagnostics)).toContain('syntax.recovery-off');
        expect(codes(workspace.diagnostics).filter((c) => c === 'syntax.parser').length).toBeLessThanOrEqual(2);
    });

    it('shows at most 100 syntax errors per file and says how many more there were', async () => {
        const workspace = await loadTexts([{ path: 'x.pidm', text: 'entity A { id x }\n' + '§ '.repeat(500) }]);
        const syntax = workspace.diagnostics.filter((d) => d.code.startsWith('syntax.'));
        expect(syntax).toHaveLength(101);
        expect(syntax[100]).toMatchObject({
            severity: 'info',
            code: 'syntax.truncated',
            message: '400 more syntax errors in this file are not shown.',
        });
    });
});

describe('loadWorkspace', () => {
    it('ignores a byte-order mark and refuses an extension in another case', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-load-'));
        try {
            await writeFile(join(dir, 'bom.pidm'), `\uFEFF${ENTITIES}`);
            await writeFile(join(dir, 'upper.PIDM'), ENTITIES);
            const workspace = await loadWorkspace([join(dir, 'bom.pidm'), join(dir, 'upper.PIDM')]);
            expect(errorsOf(workspace.diagnostics)).toEqual([
                expect.objectContaining({ path: join(dir, 'upper.PIDM'), code: 'io.unsupported-file-type' }),
            ]);
            expect(workspace.pidm[0].model.entities).toHaveLength(2);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('reads files from disk and reports a missing one as io.unreadable instead of throwing', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-load-'));
        try {
            await writeFile(join(dir, 'entities.pidm'), ENTITIES);
            await writeFile(join(dir, 'queries.pidm'), QUERIES);
            const ok = await loadWorkspace([join(dir, 'entities.pidm'), join(dir, 'queries.pidm')]);
            expect(ok.diagnostics).toEqual([]);

            const missing = await loadWorkspace([join(dir, 'entities.pidm'), join(dir, 'absent.pidm')]);
            expect(errorsOf(missing.diagnostics)).toEqual([
                expect.objectContaining({
                    path: join(dir, 'absent.pidm'),
                    line: 1,
                    column: 1,
                    message: 'cannot read file: no such file',
                    code: 'io.unreadable',
                }),
            ]);
            expect(missing.pidm).toHaveLength(1);

            const directory = await loadWorkspace([join(dir, 'sub.pidm'), dir + '/']);
            expect(codes(directory.diagnostics)).toEqual(['io.unsupported-file-type', 'io.unreadable']);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('loads the same file named twice once', async () => {
        const workspace = await loadWorkspace([
            'examples/airflights/airflights.pidm',
            './examples/airflights/airflights.pidm',
        ]);
        expect(workspace.pidm).toHaveLength(1);
        expect(codes(workspace.diagnostics)).not.toContain('pidm.duplicate-entity');
    });
});

describe('formatDiagnostic', () => {
    it('prints path:line:col: severity: message [code]', () => {
        expect(
            formatDiagnostic({
                path: 'm.pidm',
                line: 3,
                column: 7,
                endLine: 3,
                endColumn: 9,
                severity: 'warning',
                message: 'Hm.',
                code: 'pidm.x',
            }),
        ).toBe('m.pidm:3:7: warning: Hm. [pidm.x]');
    });
});

describe('findExcessiveNesting', () => {
    it('ignores parentheses in strings and comments and counts runs of not', () => {
        expect(
            findExcessiveNesting(`"${'('.repeat(200)}" // ${'('.repeat(200)}\n/* ${'('.repeat(200)} */`, 100),
        ).toBeUndefined();
        expect(findExcessiveNesting(`x\n  ${'not '.repeat(101)}`, 100)).toEqual({ line: 2, column: 403, offset: 404 });
        expect(findExcessiveNesting('('.repeat(100), 100)).toBeUndefined();
    });
});

describe('KvmodError', () => {
    it('carries a code and a path and is recognised by isKvmodError', () => {
        const error = new KvmodError("no files match 'x/*.pidm'", { code: 'cli.no-match', path: 'x/*.pidm' });
        expect(error).toMatchObject({
            name: 'KvmodError',
            message: "no files match 'x/*.pidm'",
            code: 'cli.no-match',
            path: 'x/*.pidm',
        });
        expect(isKvmodError(error)).toBe(true);
        expect(isKvmodError(new Error('x'))).toBe(false);
    });
});
