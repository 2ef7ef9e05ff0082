/**
 * Building a new design's collections from the entities the server holds (issue 30), while the application keeps
 * writing. The entity Function is what writes rows, so the migration makes it write both designs: while the new
 * collections are built, the server runs a *migration library* — the old design's entity Function over the old
 * collections and the new ones — and a fill Function that writes every row of a new collection rooted at some
 * entities from the entities as they are, atomically. An entity operation and a fill call never interleave, and each
 * leaves the new rows true for the entities it saw: whatever order they run in, the new collections end up true.
 * The switch then loads the new design's own library in the same MULTI as the stable names.
 */
import { entityMigrationLibraryText } from '../../../generation/entities/entity-lua.js';
import { redisLuaCollections } from '../../../generation/entities/entity-store-design.js';
import type { RedisCollection, RedisViewModel } from '../../../generation/redis/redis-view-model.js';
import { formField, type EntitySchema, type EntityStoreSchema } from '../../../generation/shared/entity-store.js';

/** The fill Function of a database's migration library. */
export function fillFunctionName(database: string): string {
    return `kvmod_${database}_migrate_fill`;
}

/** An entity's schema without what only the collections decide (companions, servability flags). */
function entityShape(entity: EntitySchema): unknown {
    return {
        ...entity,
        attributes: entity.attributes.map(({ name, type }) => ({ name, type })),
    };
}

/**
 * Why the new collections cannot be built from the server's entities, or null: both designs must keep an entity
 * store of the same database with the same entities (attributes, types, references), and every companion form a new
 * collection copies must already be in the entity hashes (the server never computes one).
 */
export function entityMigrationBlocker(
    from: RedisViewModel,
    to: RedisViewModel,
    building: readonly RedisCollection[],
): string | null {
    const data = 'give the new rows with --data instead';
    if (from.entityStore === null)
        return `the old design keeps no entities on the server (${from.noEntityStore ?? 'no entity store'}); ${data}`;
    if (to.entityStore === null)
        return `the new design keeps no entities on the server (${to.noEntityStore ?? 'no entity store'}); ${data}`;
    // The fill from the entities numbers no counter rows into a row map yet: such a design takes its rows from data.
    const counter = [...from.collections, ...to.collections].find((collection) => collection.key.kind === 'counter');
    if (counter !== undefined)
        return `collection ${counter.name} has counter keys, whose rows a migration does not build from the entities; ${data}`;
    const old = from.entityStore.schema;
    const next = to.entityStore.schema;
    if (old.database !== next.database)
        return `the designs keep the entities of different databases (${old.database}, ${next.database}); ${data}`;
    const names = (schema: EntityStoreSchema) => Object.keys(schema.entities).sort().join(', ');
    if (names(old) !== names(next)) return `the entities change (old: ${names(old)}; new: ${names(next)}); ${data}`;
    for (const [name, entity] of Object.entries(next.entities)) {
        if (JSON.stringify(entityShape(entity)) !== JSON.stringify(entityShape(old.entities[name]!)))
            return `entity ${name} changes (its attributes, their types or its references), so the entities the server holds do not fit the new design; ${data}`;
    }
    const held = new Set<string>();
    for (const entity of Object.values(old.entities))
        for (const attribute of entity.attributes)
            for (const form of attribute.forms) held.add(`${entity.name}.${formField(attribute.name, form)}`);
    for (const entity of Object.values(next.entities))
        for (const attribute of entity.attributes)
            for (const form of attribute.forms) {
                const field = `${entity.name}.${formField(attribute.name, form)}`;
                if (!held.has(field) && building.length > 0)
                    return `the new design copies the companion ${field}, which the entities the server holds do not keep; ${data}`;
            }
    return null;
}

/**
 * The companion fields the old design keeps in the entity hashes and the new one does not, per entity: removed
 * after the switch, so that the entity hashes are what the new design writes.
 */
export function droppedCompanions(from: RedisViewModel, to: RedisViewModel): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (from.entityStore === null || to.entityStore === null) return out;
    for (const entity of Object.values(from.entityStore.schema.entities)) {
        const next = to.entityStore.schema.entities[entity.name];
        if (next === undefined) continue;
        const fields: string[] = [];
        for (const attribute of entity.attributes) {
            const kept = new Set(next.attributes.find((a) => a.name === attribute.name)?.forms ?? []);
            for (const form of attribute.forms) if (!kept.has(form)) fields.push(formField(attribute.name, form));
        }
        if (fields.length > 0) out.set(entity.name, fields);
    }
    return out;
}

/**
 * The migration library: the old design's entity Function (its entities, as the old application writes them) over
 * the old collections and the new ones being built, plus the fill Function. The new collections are named by their
 * physical index, so that a collection kept by name but rebuilt has two distinct entries.
 */
export function entityMigrationLibrary(
    from: RedisViewModel,
    to: RedisViewModel,
    building: readonly RedisCollection[],
): string {
    const old = from.entityStore!.schema;
    const collections = [
        ...redisLuaCollections(old, from.collections),
        ...redisLuaCollections(to.entityStore!.schema, building).map((c) => ({ ...c, name: c.index })),
    ];
    const engine = to.dialect === 'redisearch1' ? 'rs1' : 'rs2';
    return entityMigrationLibraryText(old, engine, collections, fillFunctionName(old.database));
}

/** The stored identifier in an entity key (`kvmod:<db>:{<Entity>:<escaped id>}`). */
export function storedIdOfKey(key: string): string {
    const inner = key.slice(key.indexOf('{') + 1, -1);
    return inner
        .slice(inner.indexOf(':') + 1)
        .replace(/%(25|3A|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
