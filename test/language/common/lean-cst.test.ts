import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { CstUtils, URI } from 'langium';
import { createKvmodCoreServices, type KvmodCoreServices } from '../../../src/language/kvmod-core-module.js';
import { createKvmodServices } from '../../../src/language/kvmod-module.js';
import { facts } from './cst-facts.js';

/**
 * The lean CST (batch runs) must answer every question a batch run asks exactly as Langium's full CST:
 * node ranges and texts, reference nodes, property nodes, a node's first keyword, and so every diagnostic.
 */
const editor = createKvmodServices();
const batch = createKvmodCoreServices({}, { batch: true, batchParser: false });

const examples = [
    'examples/airflights/airflights.pidm',
    'examples/tournament/tournament.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'test/fixtures/pidm/core-shapes.pidm',
    'test/fixtures/pidm/ride-literals.pidm',
    'examples/airflights/airflights.kvlm',
    'examples/tournament/tournament.kvlm',
    'test/fixtures/kvlm/redis-edge.kvlm',
].map((path) => [path, readFileSync(path, 'utf8')] as const);

/** Broken and unusual texts: error recovery, comments after keywords, names spelled like keywords. */
const airflights = examples[0][1];
const texts: (readonly [string, string])[] = [
    ...examples,
    ['truncated.pidm', airflights.slice(0, Math.floor(airflights.length * 0.8))],
    [
        'commented.pidm',
        'entity A { id k; text text /*c*/ ; ref A [0..1] /*d*/ next }\nquery Q: SELECT A.k /*e*/, text, /*f*/ next.k AS n FROM A /*g*/ INCLUDE A.next /*h*/ WHERE (k = "?" /*i*/) ORDER BY k desc // end',
    ],
    [
        'broken.pidm',
        'entity A { id k text ref B [ next }\nquery Q: SELECT A. , k FROM A WHERE k = AND ORDER BY\nentity B { x }',
    ],
    [
        'semantic.pidm',
        'entity A { id k; text t; ref B [*] bs; ref B [1] b }\nentity B { id j; int n }\nquery Q1: SELECT A.k.x, A.bs.n, b.n, A.Bs, kk FROM A INCLUDE A.t, A.b AS X WHERE X.nn = "?" ORDER BY A.b\nquery Q1: SELECT a.k FROM a',
    ],
    [
        'keywords.pidm',
        'entity entity { id id text date date ref entity [*] order }\nquery query: select entity.date, order.date from entity include entity.order as by where date = "?"',
    ],
];

async function load(
    services: KvmodCoreServices,
    path: string,
    text: string,
): Promise<{ facts: string[]; diagnostics: string[] }> {
    const document = services.shared.workspace.LangiumDocumentFactory.fromString(text, URI.file(`/lean/${path}`));
    services.shared.workspace.LangiumDocuments.addDocument(document);
    try {
        await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
        return {
            facts: facts(services, document),
            diagnostics: (document.diagnostics ?? []).map(
                (d) => `${JSON.stringify(d.range)} ${d.severity} ${d.code ?? ''} ${d.message}`,
            ),
        };
    } finally {
        services.shared.workspace.LangiumDocuments.deleteDocument(document.uri);
    }
}

describe('the lean CST of batch runs', () => {
    it.each(texts)('answers positions, texts and diagnostics as the full CST: %s', async (path, text) => {
        const expected = await load(editor, path, text);
        const actual = await load(batch, path, text);
        expect(expected.facts.length).toBeGreaterThan(3);
        if (/^(broken|semantic|truncated)/.test(path)) expect(expected.diagnostics.length).toBeGreaterThan(2);
        expect(actual.facts).toEqual(expected.facts);
        expect(actual.diagnostics).toEqual(expected.diagnostics);
    });

    it('has fewer nodes: no leaf for a dot or comma inside a path list, none nested in a name', () => {
        const text = 'entity A { id k; ref A [1] next }\nquery Q: SELECT A.k, A.next.k FROM A';
        const count = (services: KvmodCoreServices) =>
            [...CstUtils.streamCst(services.Pidm.parser.LangiumParser.parse(text).value.$cstNode!)].length;
        expect(count(batch)).toBeLessThan(count(editor) * 0.8);
    });
});
