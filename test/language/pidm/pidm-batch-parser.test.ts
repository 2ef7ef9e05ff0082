import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { URI, isAstNode, isReference, type AstNode, type LangiumDocument } from 'langium';
import { BatchCstNode } from '../../../src/language/common/batch-cst.js';
import { createKvmodCoreServices, type KvmodCoreServices } from '../../../src/language/kvmod-core-module.js';
import { createKvmodServices } from '../../../src/language/kvmod-module.js';
import { CHUNKING, chunkStarts } from '../../../src/language/pidm/pidm-batch-parser.js';
import { PidmLexer } from '../../../src/language/pidm/pidm-lexer.js';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { generateGridPidm, generateRandomPidm } from '../../../src/testing/random-pidm.js';
import { facts, rangeOf } from '../common/cst-facts.js';
import { BASE, CASES } from './pidm-issue-cases.js';

/**
 * The batch runs' PIDM parser (pidm-batch-parser.ts) must build exactly the tree Langium's parser builds —
 * every property, type, container, reference and range — and so the same diagnostics; on a syntax error
 * it must leave the text to Langium's parser.
 */
const editor = createKvmodServices();
const lean = createKvmodCoreServices({}, { batch: true, batchParser: false });
const batch = createKvmodCoreServices({}, { batch: true });

const files = [
    'examples/airflights/airflights.pidm',
    'examples/tournament/tournament.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'test/fixtures/pidm/ride-literals.pidm',
    'test/fixtures/pidm/core-shapes.pidm',
    'test/fixtures/pidm/grain-mismatch.pidm',
    'test/cli/fixtures/workspace/queries.pidm',
    'test/cli/fixtures/workspace/entities.pidm',
    'test/cli/fixtures/unknown-attributes.pidm',
    'test/cli/fixtures/clean.pidm',
    'test/language/pidm/fixtures/airflights.formatted.pidm',
    'test/language/pidm/fixtures/batch-parser/tricky.pidm',
].map((path) => [path, readFileSync(path, 'utf8')] as [string, string]);
// Line breaks written `\r\n` (positions, and the `id code` + `text name` layout rule across them).
files.push(['tricky-crlf.pidm', files[files.length - 1][1].replace(/\n/g, '\r\n')]);

/** Random models of the model generator, printed: several seeds and sizes, and a small scale grid. */
const random: [string, string][] = [
    ...[
        { seed: 1, queries: 4, fieldsPerQuery: 3 },
        { seed: 2, queries: 12, fieldsPerQuery: 8 },
        { seed: 3, queries: 30, fieldsPerQuery: 12, chain: true },
        { seed: 4, queries: 20, fieldsPerQuery: 20, grainNoise: 0.5 },
    ].map((options) => [`random-${options.seed}.pidm`, printPidm(generateRandomPidm(options))] as [string, string]),
    [
        'grid.pidm',
        printPidm(generateGridPidm({ queries: 6, fieldsPerQuery: 25, seed: 7, entities: 3, attributesPerEntity: 12 })),
    ],
];

/**
 * Texts lexed and parsed in chunks (`chunkStarts`, with chunks of 2 KB instead of 16 KB): a grid, with `\r\n` and `\r` line
 * breaks and upper-case keywords, the tricky spellings repeated, and texts that must be parsed whole (a block
 * comment; a line starting with an attribute named `query` where a chunk would start).
 */
const grid = printPidm(
    generateGridPidm({ queries: 12, fieldsPerQuery: 60, seed: 11, entities: 6, attributesPerEntity: 30 }),
);
const tricky = files.find(([path]) => path.endsWith('tricky.pidm'))![1].replace(/\/\*[\s\S]*?\*\//g, ' ');
const repeated = Array.from({ length: 12 }, () => tricky).join('\n');
const chunked: [string, string, boolean][] = [
    ['grid-chunked.pidm', grid, true],
    ['grid-chunked-crlf.pidm', grid.replace(/\n/g, '\r\n'), true],
    ['grid-chunked-cr.pidm', grid.replace(/\n/g, '\r'), true],
    ['grid-chunked-upper.pidm', grid.replace(/^query /gm, 'QUERY ').replace(/^entity /gm, 'Entity '), true],
    ['tricky-chunked.pidm', repeated, true],
    ['grid-block-comment.pidm', `/* one chunk */\n${grid}`, false],
    ['grid-query-attribute.pidm', grid.replace(/^( {2}a\d+ \w+)$/gm, '$1\nquery text'), true],
];

/** Models with semantic errors: each issue code's firing case (pidm-validator.test.ts). */
const semantic: [string, string][] = CASES.map(([code, , firing]) => [`${code}.pidm`, BASE + firing]);

/** Syntax errors (the parser's and the lexer's): the batch parser gives up, Langium's parser reports them. */
const broken: [string, string][] = [
    // Cut right after its last `ORDER BY`, which then lacks its sort keys.
    ['truncated.pidm', files[0][1].slice(0, files[0][1].lastIndexOf('ORDER BY') + 'ORDER BY'.length)],
    [
        'broken.pidm',
        'entity A { id k text ref B [ next }\nquery Q: SELECT A. , k FROM A WHERE k = AND ORDER BY\nentity B { x }',
    ],
    ['sql-parameter.pidm', 'entity A { id k int }\nquery Q: SELECT k FROM A WHERE k = ?k'],
    ['colon-parameter.pidm', 'entity A { id k int }\nquery Q: SELECT k FROM A WHERE k = :k'],
    ['stray.pidm', 'entity A { id k int } ;'],
    [
        'long-chain.pidm',
        `entity A { id x }\nquery Q: SELECT x FROM A WHERE ${Array.from({ length: 300 }, () => 'x = "?"').join(' and ')}`,
    ],
    ['deep-nesting.pidm', readFileSync('test/cli/fixtures/deep-nesting.pidm', 'utf8')],
];

/** Every node of a tree, field by field in key order, with its range, container and references' names and ranges. */
function tree(root: AstNode): string[] {
    const lines: string[] = [];
    const paths = new Map<AstNode, string>();
    const visit = (node: AstNode, path: string): void => {
        paths.set(node, path);
        const container = node.$container ? (paths.get(node.$container) ?? 'elsewhere') : '-';
        lines.push(
            `${path} ${node.$type} [${Object.keys(node).join(',')}] ${rangeOf(node.$cstNode)} in ${container}.${node.$containerProperty}[${node.$containerIndex}]`,
        );
        for (const [key, value] of Object.entries(node)) {
            if (key.startsWith('$')) continue;
            const items: unknown[] = Array.isArray(value) ? value : [value];
            items.forEach((item, index) => {
                const at = Array.isArray(value) ? `${path}.${key}[${index}]` : `${path}.${key}`;
                if (isAstNode(item)) visit(item, at);
                else if (isReference(item))
                    lines.push(`${at} -> ${JSON.stringify(item.$refText)} ${rangeOf(item.$refNode)}`);
                else lines.push(`${at} = ${typeof item} ${JSON.stringify(item)}`);
            });
            if (Array.isArray(value) && value.length === 0) lines.push(`${path}.${key} = []`);
        }
    };
    visit(root, 'model');
    return lines;
}

async function load(
    services: KvmodCoreServices,
    path: string,
    text: string,
): Promise<{ document: LangiumDocument; facts: string[]; diagnostics: string[] }> {
    const document = services.shared.workspace.LangiumDocumentFactory.fromString(text, URI.file(`/batch/${path}`));
    services.shared.workspace.LangiumDocuments.addDocument(document);
    try {
        await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
        return {
            document,
            facts: facts(services, document),
            diagnostics: (document.diagnostics ?? []).map(
                (d) => `${JSON.stringify(d.range)} ${d.severity} ${d.code ?? ''} ${d.message}`,
            ),
        };
    } finally {
        services.shared.workspace.LangiumDocuments.deleteDocument(document.uri);
    }
}

describe('the batch PIDM parser', () => {
    const chunkChars = CHUNKING.chars;
    beforeAll(() => {
        CHUNKING.chars = 2048;
    });
    afterAll(() => {
        CHUNKING.chars = chunkChars;
    });

    it.each([...files, ...random])('builds the tree Langium builds: %s', (_path, text) => {
        const expected = editor.Pidm.parser.LangiumParser.parse(text);
        const actual = batch.Pidm.parser.LangiumParser.parse(text);
        expect(expected.parserErrors).toEqual([]);
        expect(actual.value.$cstNode).toBeInstanceOf(BatchCstNode);
        expect(tree(actual.value)).toEqual(tree(expected.value));
        expect(actual.lexerErrors).toEqual(expected.lexerErrors);
        expect(actual.parserErrors).toEqual([]);
    });

    it.each([...files, ...semantic])(
        'answers positions and gives the diagnostics Langium gives: %s',
        async (path, text) => {
            const expected = await load(editor, path, text);
            const actual = await load(batch, path, text);
            // A case whose error is a syntax error (an empty SELECT) is Langium's to parse.
            const parsed = expected.document.parseResult.parserErrors.length === 0;
            expect(actual.document.parseResult.value.$cstNode instanceof BatchCstNode).toBe(parsed);
            expect(actual.facts).toEqual(expected.facts);
            expect(actual.diagnostics).toEqual(expected.diagnostics);
        },
    );

    it.each([
        ['empty.pidm', ''],
        ['comments.pidm', '// only a comment\n/* and another */\n'],
    ])('leaves a text without tokens to Langium: %s', (_path, text) => {
        const actual = batch.Pidm.parser.LangiumParser.parse(text);
        expect(actual.value.$cstNode).not.toBeInstanceOf(BatchCstNode);
        expect(tree(actual.value)).toEqual(tree(editor.Pidm.parser.LangiumParser.parse(text).value));
    });

    it.each(chunked)('builds the tree Langium builds from a text parsed in chunks: %s', (_path, text, inChunks) => {
        expect(chunkStarts(text).length > 1).toBe(inChunks);
        const expected = editor.Pidm.parser.LangiumParser.parse(text);
        const actual = batch.Pidm.parser.LangiumParser.parse(text);
        expect(expected.parserErrors).toEqual([]);
        expect(actual.value.$cstNode).toBeInstanceOf(BatchCstNode);
        expect(tree(actual.value)).toEqual(tree(expected.value));
    });

    it.each([
        ['grid-chunked-error-last.pidm', `${grid}\nquery Broken: SELECT FROM E0`],
        ['grid-chunked-error-first.pidm', grid.replace('SELECT ', 'SELECT , ')],
        ['grid-chunked-lexer-error.pidm', `${grid}\nquery Broken: SELECT E0.a1 FROM E0 WHERE E0.a1 = ?x`],
        ['grid-chunked-colon-parameter.pidm', `${grid}\nquery Broken: SELECT E0.a1 FROM E0 WHERE E0.a1 = :x`],
    ])('leaves a chunked text with a syntax error to Langium: %s', async (path, text) => {
        expect(chunkStarts(text).length).toBeGreaterThan(1);
        const actual = await load(batch, path, text);
        expect(actual.diagnostics.length).toBeGreaterThan(0);
        expect(actual.document.parseResult.value.$cstNode).not.toBeInstanceOf(BatchCstNode);
        expect(actual.diagnostics).toEqual((await load(lean, path, text)).diagnostics);
    });

    it('covers the semantic errors it is compared on', async () => {
        const codes = new Set<string>();
        for (const [path, text] of semantic)
            for (const line of (await load(batch, path, text)).diagnostics) codes.add(line.split(' ')[2]);
        for (const [code] of CASES) expect(codes).toContain(code);
    });

    it.each(broken)(
        'leaves a text with a syntax error (or one it would nest too deep) to Langium: %s',
        async (path, text) => {
            const expected = await load(lean, path, text);
            const actual = await load(batch, path, text);
            if (!path.startsWith('long-chain')) expect(actual.diagnostics.length).toBeGreaterThan(0);
            expect(actual.document.parseResult.value.$cstNode).not.toBeInstanceOf(BatchCstNode);
            expect(actual.diagnostics).toEqual(expected.diagnostics);
            expect(actual.diagnostics).toEqual((await load(editor, path, text)).diagnostics);
            expect(tree(actual.document.parseResult.value)).toEqual(tree(expected.document.parseResult.value));
        },
    );

    it("builds Langium's parser and the PIDM lexer only for a text it leaves to Langium", () => {
        const built: string[] = [];
        const counted = createKvmodCoreServices(
            {},
            {
                batch: true,
                pidmModule: {
                    parser: {
                        Lexer: (services) => {
                            built.push('lexer');
                            return new PidmLexer(services);
                        },
                    },
                },
            },
        );
        const parser = counted.Pidm.parser.LangiumParser;
        const clean = parser.parse('entity A { id k; text name }\nquery Q: SELECT A.k FROM A WHERE A.name = "x"');
        expect(clean.parserErrors).toEqual([]);
        expect(built).toEqual([]);
        const broken = parser.parse('entity A { id k text name \nquery Q: SELECT A.k FROM A');
        expect(broken.parserErrors.length).toBeGreaterThan(0);
        expect(built).toEqual(['lexer']);
        parser.parse('entity B { id k text }');
        expect(built).toEqual(['lexer']);
    });
});
