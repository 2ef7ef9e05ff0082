import { describe, expect, test } from '@jest/globals';
import { kvlmFromJson, kvlmToJson } from '../../../src/language/kvlm/kvlm-json.js';
import {
    comparisonsOf,
    multiValuedNodes,
    pathFromRoot,
    referencedName,
} from '../../../src/language/kvlm/kvlm-semantics.js';
import { fixtureCanonical, parseValidKvlmSyntax } from './kvlm-test-helpers.js';

describe('KVLM semantics', () => {
    test('the comparisons of a filter come in reading order', async () => {
        const model = await parseValidKvlmSyntax(fixtureCanonical);
        const q4 = model.collections[1].queries[0];
        expect(comparisonsOf(q4.where).map((comparison) => referencedName(comparison.field))).toEqual([
            'FL_departureDate',
            'Origin_country',
        ]);
        expect(comparisonsOf(undefined)).toEqual([]);
    });

    test('a node path runs from the root through its parents, in a parsed model and in one built from JSON', async () => {
        const parsed = await parseValidKvlmSyntax(fixtureCanonical);
        for (const model of [parsed, kvlmFromJson(kvlmToJson(parsed))]) {
            const collection = model.collections[1];
            const origin = collection.nodes.find((node) => node.name === 'Origin')!;
            expect(pathFromRoot(collection, origin)?.map((node) => node.name)).toEqual(['Passenger', 'FL', 'Origin']);
            expect(multiValuedNodes(collection).map((node) => node.name)).toEqual(['FL']);
        }
    });

    test('a node whose parents loop never reaches the root', () => {
        const json = {
            database: 'd',
            collections: [
                {
                    name: 'C',
                    key: { field: 'C_id', strategy: 'counter' as const },
                    root: { name: 'R', entity: 'E' },
                    nodes: [
                        { name: 'A', parent: 'B', reference: 'x', entity: 'E', cardinality: 'one' as const },
                        { name: 'B', parent: 'A', reference: 'y', entity: 'E', cardinality: 'one' as const },
                    ],
                    fields: [],
                    queries: [],
                },
            ],
            decisions: [],
        };
        const collection = kvlmFromJson(json).collections[0];
        expect(pathFromRoot(collection, collection.nodes[0])).toBeUndefined();
    });

    test('a name that resolves to nothing keeps its text and has no target', () => {
        const model = kvlmFromJson({
            database: 'd',
            collections: [
                {
                    name: 'C',
                    key: { field: 'C_id', strategy: 'counter' },
                    root: { name: 'R', entity: 'E' },
                    nodes: [],
                    fields: [{ name: 'f', type: 'text', node: 'Nope', attribute: 'a', indexed: false, roles: [] }],
                    queries: [],
                },
            ],
            decisions: [],
        });
        const field = model.collections[0].fields[0];
        expect(field.node.ref).toBeUndefined();
        expect(referencedName(field.node)).toBe('Nope');
    });
});
