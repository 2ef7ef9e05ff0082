/**
 * The entity store schema of a design (issue 28), from the PIDM's entities and what the design's collections copy
 * of them: which companions an attribute's hash keeps, which values must be servable, and who references whom
 * (the reverse hashes). Both Redis engines build theirs here from what their design says of each copied field.
 */
import {
    entityFunctionName,
    type EntityAttributeSchema,
    type EntityForm,
    type EntityStoreSchema,
} from '../../generation/shared/entity-store.js';
import type { RedisDialect } from '../../generation/shared/redis-dialects.js';
import type { RedisLogicalType } from '../../generation/shared/redis-encoding.js';
import type { RuntimeModel } from '../runtime-model.js';

/** What a design does with one copied attribute (`entity.attribute`). */
export interface AttributeCopy {
    entity: string;
    attribute: string;
    /** Companions a copying field stores (`sort`, `eq`). */
    forms: EntityForm[];
    compared: boolean;
    sorted: boolean;
}

/** The schema of the entity store of a design over `model`. */
export function buildEntityStoreSchema(
    model: RuntimeModel,
    database: string,
    dialect: RedisDialect | null,
    copies: readonly AttributeCopy[],
): EntityStoreSchema {
    const byAttribute = new Map<string, { forms: Set<EntityForm>; compared: boolean; sorted: boolean }>();
    for (const copy of copies) {
        const key = `${copy.entity}.${copy.attribute}`;
        const found = byAttribute.get(key) ?? { forms: new Set<EntityForm>(), compared: false, sorted: false };
        for (const form of copy.forms) found.forms.add(form);
        found.compared ||= copy.compared;
        found.sorted ||= copy.sorted;
        byAttribute.set(key, found);
    }
    const entities: EntityStoreSchema['entities'] = {};
    for (const entity of model.entities.values()) {
        entities[entity.name] = {
            name: entity.name,
            idName: entity.idName,
            idType: entity.idType as RedisLogicalType,
            attributes: entity.attributes.map((attribute): EntityAttributeSchema => {
                const copied = byAttribute.get(`${entity.name}.${attribute.name}`);
                const schema: EntityAttributeSchema = {
                    name: attribute.name,
                    type: attribute.type as RedisLogicalType,
                    // In a fixed order, so that every writer writes the same hash.
                    forms: (['sort', 'eq'] as const).filter((form) => copied?.forms.has(form) === true),
                };
                if (copied?.compared) schema.compared = true;
                if (copied?.sorted) schema.sorted = true;
                return schema;
            }),
            references: entity.references.map((reference) => ({
                name: reference.name,
                target: reference.target,
                kind: reference.kind === 'many' ? 'many' : reference.kind === 'optional' ? 'optional' : 'one',
                minItems: reference.minItems,
                ...(reference.maxItems !== undefined ? { maxItems: reference.maxItems } : {}),
            })),
            referrers: [],
        };
    }
    for (const entity of model.entities.values())
        for (const reference of entity.references)
            entities[reference.target]?.referrers.push({ entity: entity.name, reference: reference.name });
    return { database, functionName: entityFunctionName(database), dialect, entities };
}
