import { describe, expect, test } from '@jest/globals';
import { buildCoreViewModel } from '../../src/generation/redis-core/redis-core-design.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { buildEntityStoreSchema } from '../../src/generation/entities/entity-store-schema.js';
import { shopCase } from '../runtime/entities/entity-fixtures.js';

describe('the entity store schema of a design', () => {
    test('per dialect: the companions its rows copy, the attributes its queries compare and sort, the referrers', async () => {
        const shop = await shopCase();
        const rs1 = buildRedisViewModel(shop.design, { dialect: 'redisearch1' }, { pidm: shop.pidm });
        const rs2 = buildRedisViewModel(shop.design, { dialect: 'redisearch2' }, { pidm: shop.pidm });
        const core = buildCoreViewModel(shop.design, shop.pidm);
        const attribute = (schema: typeof rs1.entityStore, entity: string, name: string) =>
            schema!.schema.entities[entity].attributes.find((candidate) => candidate.name === name);
        // Book.author is compared by Q6: 2.x rows copy its equality form; 1.2 rows hold no companion.
        expect(attribute(rs2.entityStore, 'Book', 'author')).toEqual({
            name: 'author',
            type: 'text',
            forms: ['eq'],
            compared: true,
        });
        expect(attribute(rs1.entityStore, 'Book', 'author')).toEqual({
            name: 'author',
            type: 'text',
            forms: [],
            compared: true,
        });
        expect(attribute(rs1.entityStore, 'Book', 'price')).toMatchObject({ type: 'float', compared: true });
        expect(rs1.entityStore!.schema.dialect).toBe('redisearch1');
        expect(core.entityStore!.schema.dialect).toBeNull();
        expect(core.entityStore!.schema.entities.Book.attributes.every((a) => a.forms.length === 0)).toBe(true);
        expect(rs1.entityStore!.schema.entities.Book.referrers).toEqual([{ entity: 'Book', reference: 'sequelOf' }]);
        expect(rs1.entityStore!.schema.entities.Tag.referrers).toEqual([{ entity: 'Book', reference: 'tags' }]);
        expect(rs1.entityStore!.schema.functionName).toBe(`kvmod_${shop.design.name}_entity`);
        expect(rs1.entityStore!.library).toMatch(/^#!lua name=kvmod_\w+_entities\n/);
        expect(rs1.entityStore!.library).toContain('local ENGINE = "rs1"');
        expect(rs2.entityStore!.library).toContain('local ENGINE = "rs2"');
        // 2.x rows: the equality companion is a field of the row (the 6th of Q6, indexed), copied from the entity's
        // `author#eq` at the root node; a collection's fields are one text of row field, node, stored form.
        expect(rs2.entityStore!.library).toContain(
            'fields = "title 1 title rank 1 rank blurb 1 blurb P_pname 2 pname author 1 author author__eq 1 author#eq price 1 price", indexed = {2, 6, 7}',
        );
        expect(rs2.noEntityStore).toBeNull();
    });

    test('no PIDM: no entity store, and the warning says why', async () => {
        const shop = await shopCase();
        expect(buildEntityStoreSchema({ kvlm: shop.design, dialect: null })).toEqual({
            schema: null,
            reason: expect.stringContaining('without its source PIDM model'),
        });
    });

    test('counter keys: the design keeps its entities, and the Function reads each collection its counter and row map', async () => {
        const counter = await shopCase('counter');
        const view = buildRedisViewModel(counter.design, { dialect: 'redisearch1' }, { pidm: counter.pidm });
        expect(view.noEntityStore).toBeNull();
        const q3 = view.collections.find((collection) => collection.name === 'Q3_booksWithTag')!;
        expect(q3.key.counterKey).toBe(`${q3.keyPrefix}counter`);
        const q3Line = view.entityStore!.library.split('\n').find((line) => line.includes('name = "Q3_booksWithTag"'));
        expect(q3Line).toContain(`counter = "${q3.keyPrefix}counter", map = "${q3.keyPrefix}rows"},`);
        const core = buildCoreViewModel(counter.design, counter.pidm);
        expect(core.noEntityStore).toBeNull();
        expect(core.entityStore!.code).toContain(
            'counter = "{Q3_booksWithTag}:counter", map = "{Q3_booksWithTag}:rows"},',
        );
        // A natural-key design's collections name no counter.
        const natural = await shopCase();
        const rs1 = buildRedisViewModel(natural.design, { dialect: 'redisearch1' }, { pidm: natural.pidm });
        expect(rs1.entityStore!.library).not.toContain('counter = ');
    });
});
