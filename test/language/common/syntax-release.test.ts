import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AstUtils, URI, isReference, type AstNode, type CstNode } from 'langium';
import { createKvmodCoreServices } from '../../../src/language/kvmod-core-module.js';
import { BatchCstNode } from '../../../src/language/common/batch-cst.js';
import { ReleasedCstNode, releaseSyntaxTree } from '../../../src/language/common/syntax-release.js';
import { formatDiagnostic, loadWorkspace } from '../../../src/pipeline/load.js';
import { querySitesOf, transformFiles } from '../../../src/pipeline/transform.js';

/**
 * A batch run that goes on working with a validated PIDM model (transform, generate) replaces its CST by
 * position stand-ins: every node must still say where it is and what it spells, references still resolve.
 */
const airflights = readFileSync('examples/airflights/airflights.pidm', 'utf8');
const texts: [string, string][] = [
    ['airflights.pidm', airflights],
    ['tournament.pidm', readFileSync('examples/tournament/tournament.pidm', 'utf8')],
    ['core-shapes.pidm', readFileSync('test/fixtures/pidm/core-shapes.pidm', 'utf8')],
    ['crlf.pidm', airflights.replace(/\n/g, '\r\n')],
    [
        'commented.pidm',
        'entity A { id k; text text /*c*/ ; ref A [0..1] /*d*/ next }\nquery Q: SELECT A.k /*e*/, text, /*f*/ next.k AS n FROM A /*g*/ INCLUDE A.next /*h*/ WHERE (k = "?" /*i*/) ORDER BY k desc // end',
    ],
    [
        'semantic.pidm',
        'entity A { id k; text t; ref B [*] bs; ref B [1] b }\nentity B { id j; int n }\nquery Q1: SELECT A.k.x, A.bs.n, b.n, A.Bs, kk FROM A INCLUDE A.t, A.b AS X WHERE X.nn = "?" ORDER BY A.b\nquery Q1: SELECT a.k FROM a',
    ],
];

/** A position stand-in: the release's, or the batch parser's (which the release keeps). */
function isStandIn(node: unknown): boolean {
    return node instanceof ReleasedCstNode || node instanceof BatchCstNode;
}

function where(node: CstNode | undefined): string {
    if (!node) return '-';
    const { start, end } = node.range;
    return `${node.offset}+${node.length}=${node.end} ${start.line}:${start.character}-${end.line}:${end.character} ${JSON.stringify(node.text)}`;
}

describe('releaseSyntaxTree', () => {
    // Langium's (lean) CST: what the batch parser's fallback builds (a valid text gets stand-ins from the batch parser itself).
    it.each(texts)('keeps every node position and text of %s', async (name, text) => {
        const services = createKvmodCoreServices({}, { batch: true, batchParser: false });
        const document = services.shared.workspace.LangiumDocumentFactory.fromString(
            text,
            URI.file(`/release/${name}`),
        );
        services.shared.workspace.LangiumDocuments.addDocument(document);
        await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
        const nodes: AstNode[] = [
            document.parseResult.value,
            ...AstUtils.streamAllContents(document.parseResult.value),
        ];
        const before = nodes.map((node) => where(node.$cstNode));
        const targets = nodes.flatMap((node) =>
            AstUtils.streamReferences(node)
                .map((info) => [info.reference.$refText, (info.reference as { ref?: AstNode }).ref])
                .toArray(),
        );
        expect(releaseSyntaxTree(document)).toBeGreaterThan(0);
        expect(nodes.map((node) => where(node.$cstNode))).toEqual(before);
        for (const node of nodes) {
            expect(node.$cstNode).toBeInstanceOf(ReleasedCstNode);
            expect(node.$cstNode?.astNode).toBe(node);
        }
        const after = nodes.flatMap((node) =>
            AstUtils.streamReferences(node)
                .map((info) => [info.reference.$refText, (info.reference as { ref?: AstNode }).ref])
                .toArray(),
        );
        expect(after).toEqual(targets);
        for (const node of nodes) {
            for (const value of Object.values(node)) if (isReference(value)) expect(value.$refNode).toBeUndefined();
        }
    });

    it('leaves the loaded diagnostics and query sites of a transformation as they were', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-release-'));
        try {
            const good = join(dir, 'airflights.pidm');
            const bad = join(dir, 'semantic.pidm');
            await writeFile(good, airflights.replace(/\n/g, '\r\n'));
            await writeFile(bad, texts[5][1]);
            for (const path of [good, bad]) {
                const kept = await loadWorkspace([path], { releaseSyntax: false });
                const released = await loadWorkspace([path], { releaseSyntax: true });
                expect(released.diagnostics.map(formatDiagnostic)).toEqual(kept.diagnostics.map(formatDiagnostic));
                expect([...querySitesOf(released.pidm)]).toEqual([...querySitesOf(kept.pidm)]);
                // Both files parse: the batch parser's stand-ins are kept as they are.
                expect(isStandIn(released.pidm[0].model.$cstNode)).toBe(true);
            }
            // A transformation releases the syntax and still reports the model's errors at path:line:col.
            const result = await transformFiles([bad]);
            expect(result.diagnostics.map(formatDiagnostic)).toEqual(
                (await loadWorkspace([bad])).diagnostics.map(formatDiagnostic),
            );
            expect(result.diagnostics.some((d) => d.severity === 'error' && d.line === 3 && d.path === bad)).toBe(true);
            const transformed = await transformFiles([good], { keepSource: true });
            expect(isStandIn(transformed.pidm?.[0].$cstNode)).toBe(true);
            expect([...transformed.querySites]).toEqual([...querySitesOf((await loadWorkspace([good])).pidm)]);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });
});
