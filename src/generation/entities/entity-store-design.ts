/**
 * The entity store of each Redis design (issue 28): its schema (entity-store-schema.ts) and the Lua of its entity
 * Function (entity-lua.ts), read from the target's own design so that the Function writes exactly the rows, fields
 * and companions `kvmod load` writes: the redis target (a library of its own, `entities.lua`, per dialect) and the
 * redis-core target (entity functions appended to its `library.lua`).
 */
import type { KvlmModel, PidmModel } from '../../language/generated/ast.js';
import type { CoreCollection, CoreEntityStore } from '../redis-core/redis-core-view-model.js';
import type { RedisCollection, RedisEntityStore } from '../redis/redis-view-model-types.js';
import { formField, rowMapKey, type EntityForm, type EntityStoreSchema } from '../shared/entity-store.js';
import type { RedisDialect } from '../shared/redis-dialects.js';
import {
    entityLibraryName,
    entityLibraryText,
    entityLuaCode,
    isoOfKeyOnly,
    type EntityLuaCollection,
} from './entity-lua.js';
import { buildEntityStoreSchema } from './entity-store-schema.js';

/** A design's entity store, or why it has none. */
export type EntityStoreOf<Store> = { store: Store; missing: null } | { store: null; missing: string };

/** `node.attribute` split. */
function sourceParts(source: string): [string, string] {
    const dot = source.indexOf('.');
    return [source.slice(0, dot), source.slice(dot + 1)];
}

/** The node tree of a collection as the Function reads it, and a node's 1-based position by name. */
function nodeTree(
    root: { name: string; entity: string },
    nodes: readonly { name: string; parent: string; reference: string; entity: string }[],
): { tree: EntityLuaCollection['nodes']; position: (name: string) => number } {
    const names = [root.name, ...nodes.map((node) => node.name)];
    const position = (name: string): number => {
        const at = names.indexOf(name);
        if (at < 0) throw new Error(`no node ${name} in the collection`);
        return at + 1;
    };
    return {
        tree: [
            { entity: root.entity, parent: 0, ref: '' },
            ...nodes.map((node) => ({ entity: node.entity, parent: position(node.parent), ref: node.reference })),
        ],
        position,
    };
}

/** A counter-key collection's counter and row map, as the Function reads them (nothing for a natural key). */
function counterOf(counterKey: string | null): Pick<EntityLuaCollection, 'counter'> {
    return counterKey === null ? {} : { counter: { key: counterKey, map: rowMapKey(counterKey) } };
}

/** The type of `node.attribute` in a collection, from the schema. */
function attributeTypeOf(schema: EntityStoreSchema, entity: string, attribute: string) {
    return schema.entities[entity]?.attributes.find((candidate) => candidate.name === attribute)?.type;
}

/**
 * The key parts of a collection as the Function reads them: the stored form of `node.attribute`, or, for a part no
 * field holds (a date the key names), the ISO text the loaders write there.
 */
function keyParts(
    schema: EntityStoreSchema,
    parts: readonly { source: string }[],
    fields: readonly { source: string }[],
    tree: EntityLuaCollection['nodes'],
    position: (name: string) => number,
): EntityLuaCollection['key'] {
    return parts.map((part) => {
        const [node, attribute] = sourceParts(part.source);
        const keyOnly = !fields.some((field) => field.source === part.source);
        const iso = keyOnly
            ? isoOfKeyOnly(attributeTypeOf(schema, tree[position(node) - 1].entity, attribute))
            : undefined;
        return { node: position(node), form: attribute, ...(iso ? { iso } : {}) };
    });
}

/** The collections of a redis-target design as its entity Function reads them. */
export function redisLuaCollections(
    schema: EntityStoreSchema,
    collections: readonly RedisCollection[],
): EntityLuaCollection[] {
    return collections.map((collection): EntityLuaCollection => {
        const { tree, position } = nodeTree(collection.root, collection.nodes);
        const indexed = new Set(collection.schemaFields);
        return {
            name: collection.name,
            index: collection.physicalIndex,
            prefix: collection.keyPrefix,
            idField: collection.idField,
            nodes: tree,
            key: keyParts(schema, collection.key.parts, collection.fields, tree, position),
            ...counterOf(collection.key.counterKey),
            fields: collection.fields.flatMap((field) => {
                const [node, attribute] = sourceParts(field.source);
                const at = position(node);
                const out = [{ name: field.name, node: at, form: attribute, indexed: indexed.has(field.name) }];
                if (field.sortKey !== null)
                    out.push({
                        name: field.sortKey,
                        node: at,
                        form: formField(attribute, 'sort'),
                        indexed: indexed.has(field.sortKey),
                    });
                if (field.equalityKey !== null)
                    out.push({
                        name: field.equalityKey,
                        node: at,
                        form: formField(attribute, 'eq'),
                        indexed: indexed.has(field.equalityKey),
                    });
                return out;
            }),
        };
    });
}

/** The entity store of a redis-target design (`collections` from `buildRedisViewModel`). */
export function redisEntityStore(
    kvlm: KvlmModel,
    pidm: readonly PidmModel[] | undefined,
    dialect: RedisDialect,
    collections: readonly RedisCollection[],
): EntityStoreOf<RedisEntityStore> {
    const byName = new Map(collections.map((collection) => [collection.name, collection]));
    const companions = (collection: string) => {
        const fields = byName.get(collection)?.fields;
        if (fields === undefined) return undefined;
        const forms = new Map<string, EntityForm[]>();
        for (const field of fields) {
            const copied: EntityForm[] = [];
            if (field.sortKey !== null) copied.push('sort');
            if (field.equalityKey !== null) copied.push('eq');
            if (copied.length > 0) forms.set(field.name, copied);
        }
        return (field: string): readonly EntityForm[] => forms.get(field) ?? [];
    };
    const outcome = buildEntityStoreSchema({ kvlm, pidm, dialect, companions });
    if (outcome.schema === null) return { store: null, missing: outcome.reason };
    const schema = outcome.schema;
    const lua = redisLuaCollections(schema, collections);
    const engine = dialect === 'redisearch1' ? 'rs1' : 'rs2';
    return {
        store: {
            schema,
            library: entityLibraryText(schema, engine, lua),
            libraryName: entityLibraryName(schema.database),
        },
        missing: null,
    };
}

/** The entity store of a redis-core design (`collections` from `buildCoreViewModel`). */
export function coreEntityStore(
    kvlm: KvlmModel,
    pidm: readonly PidmModel[] | undefined,
    collections: readonly CoreCollection[],
): EntityStoreOf<CoreEntityStore> {
    const outcome = buildEntityStoreSchema({ kvlm, pidm, dialect: null });
    if (outcome.schema === null) return { store: null, missing: outcome.reason };
    const schema = outcome.schema;
    const lua = coreLuaCollections(kvlm, schema, collections);
    return { store: { schema, code: entityLuaCode(schema, 'core', lua) }, missing: null };
}

/** The collections of a redis-core design as its entity Function (and the cluster steps, issue 29) read them. */
export function coreLuaCollections(
    kvlm: KvlmModel,
    schema: EntityStoreSchema,
    collections: readonly CoreCollection[],
): EntityLuaCollection[] {
    return collections.map((collection): EntityLuaCollection => {
        const kvlmCollection = kvlm.collections.find((candidate) => candidate.name === collection.name)!;
        const { tree, position } = nodeTree(
            { name: kvlmCollection.root.name, entity: kvlmCollection.root.entity },
            kvlmCollection.nodes.map((node) => ({
                name: node.name,
                parent: node.parent.ref?.name ?? node.parent.$refText,
                reference: node.reference,
                entity: node.entity,
            })),
        );
        const recorded = new Set(collection.record.map((column) => column.field));
        return {
            name: collection.name,
            index: '',
            prefix: collection.rowPrefix,
            idField: collection.keyField,
            nodes: tree,
            key: keyParts(schema, collection.key.parts, collection.fields, tree, position),
            ...counterOf(collection.key.counterKey),
            fields: collection.fields.map((field) => {
                const [node, attribute] = sourceParts(field.source);
                return { name: field.name, node: position(node), form: attribute, indexed: recorded.has(field.name) };
            }),
        };
    });
}
