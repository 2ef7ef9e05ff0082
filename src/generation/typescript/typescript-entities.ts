/**
 * The entity part of the TypeScript client's design (issue 28): per entity of the design's entity store, the type
 * of an object (`Book`), of a patch (`BookPatch`) and the names of its operations (`createBook`, `updateBook`,
 * `deleteBook`, `getBook`, `setBookPublisher`, `addBookTags`, `removeBookTags`). Built from the entity store the
 * Redis design holds (its layout schema and Functions library), never beside it.
 *
 * Naming rule: an operation is its verb, then the entity's type name (`typeCase(safeIdentifier(entity))`), then for
 * a reference operation the reference's (`setBookPublisher`). Every name lives in the one module scope with the
 * queries' and the client's own names, so a model whose query is called `getBook` while it has an entity `Book` is
 * refused at generation (`generation.name-collision`) naming both, as any other clash.
 */
import type { EntityReferenceSchema, EntitySchema, EntityStoreSchema } from '../shared/entity-store.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import { NameScope, safeIdentifier, typeCase } from './typescript-names.js';

/** What the client embeds of the design's entity store (the runtime's `ClientEntityStore`). */
export interface EntityStoreSource {
    schema: EntityStoreSchema;
    /**
     * The Functions library holding the entity Function, which the client's `installEntityFunctions` loads; null
     * when the Function lives in the design's own library, which the client's setup loads already (redis-core's
     * `library.lua`, loaded by `loadLibrary`).
     */
    library: string | null;
}

/** A reference of an entity, as the client types it. */
export interface TsEntityReference {
    schema: EntityReferenceSchema;
    /** The type of the target's identifier. */
    targetIdType: RedisLogicalType;
    /** `setBookPublisher` (`[1]`, `[0..1]`), or `addBookTags` and `removeBookTags` (`[*]`). */
    names: { set: string } | { add: string; remove: string };
}

/** An entity of the client. */
export interface TsEntity {
    schema: EntitySchema;
    names: { type: string; patch: string; create: string; update: string; delete: string; get: string };
    /** The parameter names of its functions: the identifier (`isbn`) and the new object (`book`). */
    params: { id: string; object: string };
    /** The property of `get`'s answer holding the version: `version`, or `$version` when an attribute is so named. */
    versionProp: string;
    references: TsEntityReference[];
}

/** The entity part of the client: the store it embeds and its entities, in the model's order. */
export interface TsEntityStore {
    source: EntityStoreSource;
    entities: TsEntity[];
}

/** Parameter names the entity functions use besides the identifier. */
const OTHER_PARAMS = new Set(['client', 'patch', 'options', 'target', 'targets']);

function lowerFirst(id: string): string {
    return id.charAt(0).toLowerCase() + id.slice(1);
}

function buildEntity(schema: EntityStoreSchema, entity: EntitySchema, top: NameScope): TsEntity {
    const type = typeCase(safeIdentifier(entity.name));
    const what = `entity ${entity.name}`;
    const names = {
        type: top.claim(type, `the type of ${what}`),
        patch: top.claim(`${type}Patch`, `the patch type of ${what}`),
        create: top.claim(`create${type}`, `the create of ${what}`),
        update: top.claim(`update${type}`, `the update of ${what}`),
        delete: top.claim(`delete${type}`, `the delete of ${what}`),
        get: top.claim(`get${type}`, `the get of ${what}`),
    };
    const references = entity.references.map((reference) => {
        const ref = typeCase(safeIdentifier(reference.name));
        const of = `reference ${entity.name}.${reference.name}`;
        const target = schema.entities[reference.target];
        return {
            schema: reference,
            targetIdType: target?.idType ?? 'text',
            names:
                reference.kind === 'many'
                    ? {
                          add: top.claim(`add${type}${ref}`, `the add of ${of}`),
                          remove: top.claim(`remove${type}${ref}`, `the remove of ${of}`),
                      }
                    : { set: top.claim(`set${type}${ref}`, `the set of ${of}`) },
        };
    });
    const idParam = safeIdentifier(entity.idName);
    const objectParam = safeIdentifier(lowerFirst(type));
    const members = [...entity.attributes.map((a) => a.name), ...entity.references.map((r) => r.name)];
    return {
        schema: entity,
        names,
        params: {
            id: OTHER_PARAMS.has(idParam) ? 'id' : idParam,
            object: objectParam === 'client' ? 'object' : objectParam,
        },
        versionProp: members.includes('version') ? '$version' : 'version',
        references,
    };
}

/** The entity part of the client, or null when the design keeps no entities. */
export function buildTsEntityStore(source: EntityStoreSource | null, top: NameScope): TsEntityStore | null {
    if (source === null) return null;
    return {
        source,
        entities: Object.values(source.schema.entities).map((entity) => buildEntity(source.schema, entity, top)),
    };
}
