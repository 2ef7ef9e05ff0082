import { describe, expect, test } from '@jest/globals';
import { isReference, type Reference } from '../../../src/language/generated/ast.js';
import { detachedEntities } from '../../../src/language/pidm/pidm-detached.js';
import { buildRedisViewModel } from '../../../src/generation/redis/redis-view-model.js';
import { loadDesign } from '../../../src/pipeline/design.js';
import { EXAMPLES, exampleCase, shopCase } from '../../runtime/entities/entity-fixtures.js';

/** Every object reachable from `root`, once each. */
function reachable(root: unknown): object[] {
    const seen = new Set<object>();
    const visit = (value: unknown): void => {
        if (typeof value !== 'object' || value === null || seen.has(value)) return;
        seen.add(value);
        for (const key of Object.keys(value)) visit((value as Record<string, unknown>)[key]);
    };
    visit(root);
    return [...seen];
}

describe('detached entities', () => {
    test('plain copies: no syntax tree, document or query; references point at the copies', async () => {
        const shop = await shopCase();
        const copies = detachedEntities(shop.pidm);
        const all = reachable(copies);
        const originals = new Set(reachable(shop.pidm));
        expect(all.filter((object) => originals.has(object))).toEqual([]);
        expect(all.every((object) => Array.isArray(object) || Object.getPrototypeOf(object) === Object.prototype)).toBe(
            true,
        );
        expect(all.filter((object) => '$cstNode' in object || '$document' in object)).toEqual([]);
        expect(copies[0].queries).toEqual([]);
        expect(copies[0].workloads).toEqual([]);
        const book = copies[0].entities.find((entity) => entity.name === 'Book')!;
        expect(book.$container).toBe(copies[0]);
        const sequelOf = book.members.find((member) => member.name === 'sequelOf') as Reference;
        expect(isReference(sequelOf)).toBe(true);
        expect(sequelOf.$container).toBe(book);
        expect(sequelOf.target.ref).toBe(book);
        expect(sequelOf.target.$refText).toBe('Book');
    });

    test.each(['shop', ...EXAMPLES])(
        '%s: the Redis design built from the copies is the one built from the models',
        async (name) => {
            const source = name === 'shop' ? await shopCase() : await exampleCase(name);
            for (const dialect of ['redisearch1', 'redisearch2'] as const) {
                const fromModels = buildRedisViewModel(source.design, { dialect }, { pidm: source.pidm });
                const fromCopies = buildRedisViewModel(
                    source.design,
                    { dialect },
                    { pidm: detachedEntities(source.pidm) },
                );
                expect(fromModels.entityStore).not.toBeNull();
                expect(fromCopies).toEqual(fromModels);
            }
        },
    );

    test("a design loaded with sourceModel 'entities' gets the copies, from a .pidm and from a .kvlm naming one", async () => {
        const fromPidm = await loadDesign('examples/airflights/airflights.pidm', { sourceModel: 'entities' });
        const fromKvlm = await loadDesign('examples/airflights/airflights.kvlm', { sourceModel: 'entities' });
        for (const design of [fromPidm, fromKvlm]) {
            expect(design.pidm).toHaveLength(1);
            expect(design.pidm![0].queries).toEqual([]);
            expect(design.pidm![0].entities.length).toBeGreaterThan(0);
            expect(design.pidm![0].$document).toBeUndefined();
        }
        expect(fromKvlm.pidm).toEqual(fromPidm.pidm);
    });
});
