import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import {
    kvlmFromJson,
    kvlmToJson,
    validateKvlmJson,
    type KvlmCollectionJson,
    type KvlmExpressionJson,
    type KvlmFieldJson,
    type KvlmJson,
    type KvlmMergeDecisionJson,
    type KvlmQueryJson,
    type KvlmValueJson,
} from '../../../src/language/kvlm/kvlm-json.js';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { printKvlm } from '../../../src/language/kvlm/kvlm-printer.js';
import { fixtureCanonical, parseKvlm, parseValidKvlmSyntax, services } from './kvlm-test-helpers.js';

const KEYWORDS = [
    'database',
    'source',
    'merge',
    'threshold',
    'safe',
    'paper',
    'none',
    'collection',
    'key',
    'natural',
    'counter',
    'from',
    'as',
    'include',
    'one',
    'optional',
    'many',
    'field',
    'label',
    'indexed',
    'projected',
    'filtered',
    'ranged',
    'sorted',
    'text',
    'int',
    'float',
    'boolean',
    'date',
    'time',
    'datetime',
    'query',
    'param',
    'order',
    'by',
    'asc',
    'desc',
    'select',
    'where',
    'and',
    'or',
    'not',
    'true',
    'false',
    'refused',
    'common',
    'of',
];
const TYPES = ['text', 'int', 'float', 'boolean', 'date', 'time', 'datetime'] as const;
const ROLE_KINDS = ['projected', 'filtered', 'ranged', 'sorted'] as const;

/** Names: plain identifiers and keyword spellings, which the grammar's KName accepts. */
const name = fc.oneof(fc.stringMatching(/^[_a-zA-Z][_a-zA-Z0-9]{0,7}$/), fc.constantFrom(...KEYWORDS));
/** Labels and reasons: any text at all, quotes, backslashes, control characters and unicode included. */
const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom('"', '\\', '\\"', '\n\r\t', '€ ü 🚀', "it's"),
);
const type = fc.constantFrom(...TYPES);
const count = fc.nat({ max: 10_000 });

const value: fc.Arbitrary<KvlmValueJson> = fc.oneof(
    name.map((n) => ({ kind: 'param' as const, name: n })),
    text.map((v) => ({ kind: 'string' as const, value: v })),
    fc
        .oneof(fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
        .map((v) => ({ kind: 'number' as const, value: v })),
    fc.boolean().map((v) => ({ kind: 'boolean' as const, value: v })),
);

const comparison: fc.Arbitrary<KvlmExpressionJson> = fc
    .record({ field: name, operator: fc.constantFrom('=', '!=', '<', '<=', '>', '>=' as const), value })
    .map((c) => ({ kind: 'comparison' as const, ...c }));

/** Filters shaped as the parser builds them: left-nested chains, `and` tighter than `or`, written groups. */
const expression = fc.letrec<{
    or: KvlmExpressionJson;
    and: KvlmExpressionJson;
    unary: KvlmExpressionJson;
    primary: KvlmExpressionJson;
}>((tie) => ({
    or: fc.oneof(
        { maxDepth: 3 },
        tie('and'),
        fc.tuple(tie('or'), tie('and')).map(([left, right]) => ({ kind: 'or' as const, left, right })),
    ),
    and: fc.oneof(
        { maxDepth: 3 },
        tie('unary'),
        fc.tuple(tie('and'), tie('unary')).map(([left, right]) => ({ kind: 'and' as const, left, right })),
    ),
    unary: fc.oneof(
        { maxDepth: 3 },
        tie('primary'),
        tie('unary').map((operand) => ({ kind: 'not' as const, operand })),
    ),
    primary: fc.oneof(
        { maxDepth: 3 },
        comparison,
        tie('or').map((inner) => ({ kind: 'group' as const, inner })),
    ),
})).or;

const field: fc.Arbitrary<KvlmFieldJson> = fc
    .record(
        {
            name,
            type,
            node: name,
            attribute: name,
            label: text,
            indexed: fc.boolean(),
            roles: fc
                .subarray([...ROLE_KINDS])
                .chain((kinds) =>
                    fc.tuple(
                        ...kinds.map((kind) =>
                            fc.array(name, { minLength: 1, maxLength: 3 }).map((queries) => ({ kind, queries })),
                        ),
                    ),
                ),
        },
        { requiredKeys: ['name', 'type', 'node', 'attribute', 'indexed', 'roles'] },
    )
    .map((f) => f as KvlmFieldJson);

const query: fc.Arbitrary<KvlmQueryJson> = fc
    .record(
        {
            name,
            params: fc.array(fc.record({ name, type }), { maxLength: 3 }),
            where: expression,
            orderBy: fc.array(fc.record({ field: name, direction: fc.constantFrom('asc', 'desc' as const) }), {
                maxLength: 3,
            }),
            select: fc.array(fc.record({ field: name, label: text }, { requiredKeys: ['field'] }), {
                minLength: 1,
                maxLength: 3,
            }),
        },
        { requiredKeys: ['name', 'params', 'orderBy', 'select'] },
    )
    .map(({ name: n, params, where, orderBy, select }) =>
        where === undefined ? { name: n, params, orderBy, select } : { name: n, params, where, orderBy, select },
    );

const collection: fc.Arbitrary<KvlmCollectionJson> = fc.record({
    name,
    key: fc.oneof(
        fc.record({
            field: name,
            strategy: fc.constant('natural' as const),
            parts: fc.array(fc.record({ node: name, attribute: name }), { minLength: 1, maxLength: 3 }),
        }),
        fc.record({ field: name, strategy: fc.constant('counter' as const) }),
    ),
    root: fc.record({ name, entity: name }),
    nodes: fc.array(
        fc.record({
            name,
            parent: name,
            reference: name,
            entity: name,
            cardinality: fc.constantFrom('one', 'optional', 'many' as const),
        }),
        { maxLength: 3 },
    ),
    fields: fc.array(field, { maxLength: 4 }),
    queries: fc.array(query, { maxLength: 2 }),
});

const decision: fc.Arbitrary<KvlmMergeDecisionJson> = fc.oneof(
    fc.record({ left: name, right: name, result: name, common: count, leftSize: count, rightSize: count }),
    fc
        .record({ left: name, right: name, refusedBecause: text, common: count, leftSize: count, rightSize: count })
        .map(({ left, right, refusedBecause, ...sizes }) => ({
            left,
            right,
            refusedBecause,
            ...sizes,
        })),
);

const model: fc.Arbitrary<KvlmJson> = fc
    .record(
        {
            database: name,
            source: text,
            merge: fc.record({
                policy: fc.constantFrom('safe', 'paper', 'none' as const),
                threshold: fc.oneof(
                    fc.constantFrom(0.8, 1, 0.75, 0.05),
                    fc.double({ min: 0, max: 1, minExcluded: true, noNaN: true }),
                ),
            }),
            collections: fc.array(collection, { maxLength: 3 }),
            decisions: fc.array(decision, { maxLength: 3 }),
        },
        { requiredKeys: ['database', 'collections', 'decisions'] },
    )
    .map((m) => m as KvlmJson);

describe('KVLM round trip', () => {
    test('the fixture: parse → print → parse gives the same model, and printing is a fixed point', async () => {
        const first = await parseValidKvlmSyntax(fixtureCanonical);
        const printed = printKvlm(first);
        const second = await parseValidKvlmSyntax(printed);
        expect(kvlmToJson(second)).toEqual(kvlmToJson(first));
        expect(printKvlm(second)).toBe(printed);
    });

    test('for generated models: the printed text parses to the same model, and print(parse(print(x))) == print(x)', async () => {
        await fc.assert(
            fc.asyncProperty(model, async (json) => {
                expect(validateKvlmJson(json)).toEqual([]);
                const printed = printKvlm(kvlmFromJson(json));
                const reparsed = await parseValidKvlmSyntax(printed);
                expect(kvlmToJson(reparsed)).toEqual(json);
                expect(printKvlm(reparsed)).toBe(printed);
            }),
            { numRuns: 150, seed: 20261122 },
        );
    });

    test('for generated models: the formatter leaves printed text unchanged, and lays out a squashed version the same way', async () => {
        const formatter = services.Kvlm.lsp.Formatter!;
        const format = async (text: string) => {
            const document = await parseKvlm(text);
            const edits = await formatter.formatDocument(document, {
                textDocument: { uri: document.uri.toString() },
                options: { tabSize: 4, insertSpaces: true },
            });
            return TextDocument.applyEdits(TextDocument.create('file:///x.kvlm', 'kvlm', 1, text), edits);
        };
        await fc.assert(
            fc.asyncProperty(model, async (json) => {
                const printed = printKvlm(kvlmFromJson(json));
                expect(await format(printed)).toBe(printed);
                // Strings may hold spaces and newlines only as escapes, so squashing whitespace keeps their meaning.
                expect(await format(printed.replace(/\n\s*/g, ' '))).toBe(printed);
            }),
            { numRuns: 60, seed: 7 },
        );
    });
});
