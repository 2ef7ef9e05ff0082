import { describe, expect, jest, test } from '@jest/globals';
import { StreamScope } from 'langium';
import { isReference, type Entity } from '../../../src/language/generated/ast.js';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { generateGridPidm } from '../../../src/testing/random-pidm.js';
import { errors, validatePidm } from './pidm-test-helpers.js';

describe('entity names are looked up by name, not by a scan', () => {
    test('linking a model of many entities referencing each other scans no scope, and links each name to its entity', async () => {
        // Langium's default scope is a StreamScope searched from its start for every reference: linking was
        // quadratic in the number of entities.
        const model = generateGridPidm({
            queries: 50,
            fieldsPerQuery: 4,
            seed: 3,
            entities: 200,
            attributesPerEntity: 2,
            span: 4,
            referencesPerEntity: 2,
        });
        const scan = jest.spyOn(StreamScope.prototype, 'getElement');
        try {
            const document = await validatePidm(printPidm(model));
            expect(errors(document)).toEqual([]);
            expect(scan).not.toHaveBeenCalled();
            const { entities, queries } = document.parseResult.value;
            const byName = new Map<string, Entity>(entities.map((entity) => [entity.name, entity]));
            const references = entities.flatMap((entity) => entity.members.filter(isReference));
            expect(references).toHaveLength(200 * 3 - 1);
            for (const reference of references)
                expect(reference.target.ref).toBe(byName.get(reference.target.$refText));
            expect(queries).toHaveLength(50);
            for (const query of queries) expect(query.from.entity.ref).toBe(byName.get(query.from.entity.$refText));
        } finally {
            scan.mockRestore();
        }
    });
});
