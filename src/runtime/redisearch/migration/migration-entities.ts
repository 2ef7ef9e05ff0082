/**
 * Building a new design's collections from the entities the server holds (issue 30), while the application keeps
 * writing. The entity Function is what writes rows, so the migration makes it write both designs: while the new
 * collections are built, the server runs a *migration library* — the old design's entity Function over the old
 * collections and the new ones — and a fill Function that writes every row of a new collection rooted at some
 * entities from the entities as they are, atomically. An entity operation and a fill call never interleave, and each
 * leaves the new rows true for the entities it saw: whatever order they run in, the new collections end up true.
 * The switch then loads the new design's own library in the same MULTI as the stable names.
 */
import { entityMigrationLibraryText, type EntityFieldCopies } from '../../../generation/entities/entity-lua.js';
import { redisLuaCollections } from '../../../generation/entities/entity-store-design.js';
import type { AttributeRename } from '../../../generation/redis/redis-migration-plan.js';
import type { RedisCollection, RedisViewModel } from '../../../generation/redis/redis-view-model.js';
import {
    ENTITY_KEY_ROOT,
    formField,
    type EntitySchema,
    type EntityStoreSchema,
} from '../../../generation/shared/entity-store.js';
import { KvmodError } from '../../../pipeline/errors.js';

/** The fill Function of a database's migration library. */
export function fillFunctionName(database: string): string {
    return `kvmod_${database}_migrate_fill`;
}

/** The copy Function of a migration that renames attributes. */
export function copyFunctionName(database: string): string {
    return `kvmod_${database}_migrate_copy`;
}

/**
 * An entity's schema without what only the collections decide (companions, servability flags), its attributes under
 * the names the new design gives them (`renamed`: old name -> new name).
 */
function entityShape(entity: EntitySchema, renamed: ReadonlyMap<string, string> = new Map()): unknown {
    const name = (attribute: string) => renamed.get(attribute) ?? attribute;
    return {
        ...entity,
        idName: name(entity.idName),
        attributes: entity.attributes.map((attribute) => ({ name: name(attribute.name), type: attribute.type })),
    };
}

/** Per entity, old attribute name -> new name. */
function renamesByEntity(renames: readonly AttributeRename[]): Map<string, Map<string, string>> {
    const out = new Map<string, Map<string, string>>();
    for (const r of renames) {
        if (!out.has(r.entity)) out.set(r.entity, new Map());
        out.get(r.entity)!.set(r.from, r.to);
    }
    return out;
}

/** The Function of a database rename that mirrors entity keys under the new database's root. */
export function mirrorFunctionName(database: string): string {
    return `kvmod_${database}_migrate_mirror`;
}

/**
 * The key a database rename leaves from its switch until its removal is done: under the new database's name, the old
 * one, so that `plan`/`migrate` given one design find the old database still to be removed.
 */
export function renamedDatabaseKey(database: string): string {
    return `kvmod:renamed:${database}`;
}

/**
 * The root of a database's entity keys and their reverse hashes (`kvmod:<db>:{`): every key the entity Function
 * writes starts with it, and nothing else does.
 */
export function entityRoot(database: string): string {
    return `${ENTITY_KEY_ROOT}:${database}:{`;
}

/** How people write a rename on the command line. */
export function renamedOption(rename: AttributeRename): string {
    return `--renamed ${rename.entity}.${rename.from}=${rename.to}`;
}

/**
 * The renames of `--renamed <Entity>.<old>=<new>`, checked against both designs' entities: the old design has the
 * attribute and not the new name, the new design the new name and not the old one, with the same type. A KvmodError
 * names what does not hold (`cli.option`: not of that form; `migrate.renamed`: not so in the designs).
 */
export function parseRenames(given: readonly string[], from: RedisViewModel, to: RedisViewModel): AttributeRename[] {
    const out: AttributeRename[] = [];
    for (const text of given) {
        const match = /^([^.=\s]+)\.([^.=\s]+)=([^.=\s]+)$/.exec(text);
        // A malformed value is a usage error; one the designs do not bear out is a plain failure (exit 1).
        const fail = (why: string, code = 'migrate.renamed'): never => {
            throw new KvmodError(`--renamed ${text}: ${why}`, { code });
        };
        if (match === null)
            fail('give <Entity>.<old attribute>=<new attribute>, for example --renamed Book.title=name', 'cli.option');
        const [, entity, oldName, newName] = match!;
        const rename = { entity: entity!, from: oldName!, to: newName! };
        const old = from.entityStore?.schema.entities[rename.entity];
        const next = to.entityStore?.schema.entities[rename.entity];
        if (from.entityStore === null || to.entityStore === null)
            fail(
                'the designs keep no entities on the server, so there is nothing to carry over; give the new rows with --data',
            );
        if (old === undefined || next === undefined)
            fail(`${old === undefined ? 'the old' : 'the new'} design has no entity ${rename.entity}`);
        const attribute = (schema: EntitySchema, name: string) => schema.attributes.find((a) => a.name === name);
        const was = attribute(old!, rename.from);
        const is = attribute(next!, rename.to);
        if (was === undefined) fail(`the old design's ${rename.entity} has no attribute ${rename.from}`);
        if (is === undefined) fail(`the new design's ${rename.entity} has no attribute ${rename.to}`);
        if (attribute(next!, rename.from) !== undefined)
            fail(`the new design's ${rename.entity} still has ${rename.from}: nothing was renamed`);
        if (attribute(old!, rename.to) !== undefined)
            fail(`the old design's ${rename.entity} has ${rename.to} already`);
        if (was!.type !== is!.type)
            fail(
                `${rename.entity}.${rename.from} is ${was!.type} and ${rename.entity}.${rename.to} is ${is!.type}: a rename keeps the type`,
            );
        if (out.some((r) => r.entity === rename.entity && (r.from === rename.from || r.to === rename.to)))
            fail(`${rename.entity}.${rename.from} or ${rename.entity}.${rename.to} is renamed twice`);
        out.push(rename);
    }
    return out;
}

/**
 * The renames an entity change looks like, for the message that asks for them: per entity whose attributes differ
 * only by names, each attribute gone paired with the new one of the same type in the same place.
 */
function likelyRenames(old: EntitySchema, next: EntitySchema): AttributeRename[] | null {
    if (old.attributes.length !== next.attributes.length) return null;
    const out: AttributeRename[] = [];
    for (const [i, was] of old.attributes.entries()) {
        const is = next.attributes[i]!;
        if (was.name === is.name) continue;
        if (was.type !== is.type) return null;
        if (next.attributes.some((a) => a.name === was.name) || old.attributes.some((a) => a.name === is.name))
            return null;
        out.push({ entity: old.name, from: was.name, to: is.name });
    }
    const shape = (entity: EntitySchema) =>
        JSON.stringify({ ...(entityShape(entity) as object), attributes: [], idName: '' });
    return out.length > 0 && shape(old) === shape(next) ? out : null;
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
    renames: readonly AttributeRename[] = [],
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
    const names = (schema: EntityStoreSchema) => Object.keys(schema.entities).sort().join(', ');
    if (names(old) !== names(next)) return `the entities change (old: ${names(old)}; new: ${names(next)}); ${data}`;
    const renamed = renamesByEntity(renames);
    for (const [name, entity] of Object.entries(next.entities)) {
        const was = old.entities[name]!;
        if (JSON.stringify(entityShape(entity)) === JSON.stringify(entityShape(was, renamed.get(name)))) continue;
        // Attributes that differ by name alone may be renames, which only the user can tell: ask for them.
        const likely = renamed.has(name) ? null : likelyRenames(was, entity);
        if (likely !== null)
            return `entity ${name} changes: ${likely.map((r) => `${name}.${r.from} is gone and ${name}.${r.to} is new`).join('; ')}; if ${likely.length === 1 ? 'it is' : 'they are'} renamed, say so with ${likely.map(renamedOption).join(' ')} (the entities keep their values under the new name), otherwise the entities the server holds do not fit the new design; ${data}`;
        return `entity ${name} changes (its attributes, their types or its references), so the entities the server holds do not fit the new design; ${data}`;
    }
    const held = new Set<string>();
    for (const entity of Object.values(old.entities))
        for (const attribute of entity.attributes) {
            const name = renamed.get(entity.name)?.get(attribute.name) ?? attribute.name;
            for (const form of attribute.forms) held.add(`${entity.name}.${formField(name, form)}`);
        }
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
export function droppedCompanions(
    from: RedisViewModel,
    to: RedisViewModel,
    renames: readonly AttributeRename[] = [],
): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (from.entityStore === null || to.entityStore === null) return out;
    const renamed = renamesByEntity(renames);
    for (const entity of Object.values(from.entityStore.schema.entities)) {
        const next = to.entityStore.schema.entities[entity.name];
        if (next === undefined) continue;
        const fields: string[] = [];
        for (const attribute of entity.attributes) {
            // A renamed attribute goes with all its fields (renamedFields).
            if (renamed.get(entity.name)?.has(attribute.name)) continue;
            const kept = new Set(next.attributes.find((a) => a.name === attribute.name)?.forms ?? []);
            for (const form of attribute.forms) if (!kept.has(form)) fields.push(formField(attribute.name, form));
        }
        if (fields.length > 0) out.set(entity.name, fields);
    }
    return out;
}

/**
 * The hash fields a rename copies, per entity: the attribute and each companion the new design keeps of it, old name
 * -> new name (a companion the new design needs and the old one lacks stops the migration: entityMigrationBlocker).
 */
export function renamedFieldCopies(
    to: RedisViewModel,
    renames: readonly AttributeRename[],
): Map<string, [string, string][]> {
    const out = new Map<string, [string, string][]>();
    for (const r of renames) {
        const attribute = to.entityStore!.schema.entities[r.entity]!.attributes.find((a) => a.name === r.to)!;
        const pairs: [string, string][] = [[r.from, r.to]];
        for (const form of attribute.forms) pairs.push([formField(r.from, form), formField(r.to, form)]);
        out.set(r.entity, [...(out.get(r.entity) ?? []), ...pairs]);
    }
    return out;
}

/** The hash fields of the renamed attributes the old design wrote (the attribute and all its companions), per entity. */
export function renamedFields(from: RedisViewModel, renames: readonly AttributeRename[]): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of renames) {
        const attribute = from.entityStore!.schema.entities[r.entity]!.attributes.find((a) => a.name === r.from)!;
        const fields = [r.from, ...attribute.forms.map((form) => formField(r.from, form))];
        out.set(r.entity, [...(out.get(r.entity) ?? []), ...fields]);
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
    renames: readonly AttributeRename[] = [],
): string {
    const old = from.entityStore!.schema;
    // The new collections read a renamed attribute under its old name: the old application writes that one, and the
    // new name is only a copy of it until the switch.
    const back = new Map([...renamesByEntity(renames)].map(([e, m]) => [e, new Map([...m].map(([a, b]) => [b, a]))]));
    const oldForm = (entity: string, form: string) => {
        const [attribute, companion] = form.split('#') as [string, string | undefined];
        const was = back.get(entity)?.get(attribute);
        return was === undefined ? form : companion === undefined ? was : `${was}#${companion}`;
    };
    const collections = [
        ...redisLuaCollections(old, from.collections),
        ...redisLuaCollections(to.entityStore!.schema, building).map((c) => ({
            ...c,
            name: c.index,
            // Until the fill reaches a row it does not exist: the Function writes these rows whole.
            building: true,
            key: c.key.map((p) => ({ ...p, form: oldForm(c.nodes[p.node - 1]!.entity, p.form) })),
            fields: c.fields.map((f) => ({ ...f, form: oldForm(c.nodes[f.node - 1]!.entity, f.form) })),
        })),
    ];
    const engine = to.dialect === 'redisearch1' ? 'rs1' : 'rs2';
    const copies: EntityFieldCopies | null =
        renames.length === 0
            ? null
            : {
                  fields: Object.fromEntries(renamedFieldCopies(to, renames)),
                  copyFunction: copyFunctionName(old.database),
              };
    return entityMigrationLibraryText(old, engine, collections, fillFunctionName(old.database), copies);
}

const luaText = (text: string) => JSON.stringify(text);

/**
 * The migration library of a database rename: the one of entityMigrationLibrary (the old entity Function over the
 * old collections and the new ones, the fill Function), where every key of the old database the entity Function
 * writes is mirrored under the new database's root after each operation, in the same call, and a mirror Function
 * (`FCALL <mirror> 0 <old key…>`) that copies keys written before. The key of an entity and its reverse hashes
 * differ only by the database, so they keep their hash tag. Writes are caught by a `redis` of the library's own
 * (the body calls `redis.call` by that name), and the old Function's registration is wrapped, so the body stays
 * as it is; the new collections read the old keys until the switch.
 */
export function databaseRenameLibrary(
    from: RedisViewModel,
    to: RedisViewModel,
    building: readonly RedisCollection[],
): string {
    const old = from.entityStore!.schema;
    const next = to.entityStore!.schema;
    const library = entityMigrationLibrary(from, to, building);
    const anchor = `redis.register_function('${old.functionName}', function(_, args)`;
    const at = library.indexOf(anchor);
    const firstLine = library.indexOf('\n');
    if (at < 0 || library.indexOf(anchor, at + 1) >= 0 || !library.startsWith('#!lua'))
        throw new Error(`entity Lua: the registration of ${old.functionName} is not where the migration wraps it`);
    const head = library.slice(0, firstLine + 1);
    const body = library.slice(firstLine + 1, at) + 'local e_operation = (function(_, args)';
    const rest = library.slice(at + anchor.length).trimEnd();
    return [
        head.trimEnd(),
        DATABASE_MIRROR_HEAD_LUA.replace('__OLD__', luaText(entityRoot(old.database)))
            .replace('__NEW__', luaText(entityRoot(next.database)))
            .trim(),
        body + rest,
        DATABASE_MIRROR_TAIL_LUA.replace('__FUNCTION__', old.functionName)
            .replace('__MIRROR__', mirrorFunctionName(old.database))
            .trim(),
        '',
    ].join('\n');
}

const DATABASE_MIRROR_HEAD_LUA = String.raw`
-- A database rename (kvmod migrate): every key of the old database an operation writes is mirrored under the new one.
local M_OLD, M_NEW = __OLD__, __NEW__
local M_WRITES = { HSET = true, HMSET = true, HSETNX = true, HDEL = true, DEL = true, UNLINK = true, HINCRBY = true, HINCRBYFLOAT = true }
local m_touched = {}
-- The server's redis, looked up when called: a library is loaded with another redis than its functions run with.
local function m_call(name, ...) return redis.call(name, ...) end
local function m_pcall(name, ...) return redis.pcall(name, ...) end
local function m_error_reply(message) return redis.error_reply(message) end
local function m_register(name, f) return redis.register_function(name, f) end
local function m_note(name, ...)
    if M_WRITES[string.upper(name)] then
        local n = select('#', ...)
        local last = 1
        local upper = string.upper(name)
        if upper == 'DEL' or upper == 'UNLINK' then last = n end
        for i = 1, last do
            local key = select(i, ...)
            if type(key) == 'string' and string.sub(key, 1, #M_OLD) == M_OLD then m_touched[key] = true end
        end
    end
end
-- The library's own redis for the body below: its calls noted, then made.
local redis = {
    register_function = m_register,
    error_reply = m_error_reply,
    call = function(name, ...)
        m_note(name, ...)
        return m_call(name, ...)
    end,
    pcall = function(name, ...)
        m_note(name, ...)
        return m_pcall(name, ...)
    end,
}
-- Makes the new database's copy of an old key what the old key is (absent when it is); 1 when the old key exists.
local function m_mirror(key)
    local copy = M_NEW .. string.sub(key, #M_OLD + 1)
    m_call('DEL', copy)
    local flat = m_call('HGETALL', key)
    for i = 1, #flat, 1000 do
        m_call('HSET', copy, unpack(flat, i, math.min(i + 999, #flat)))
    end
    if #flat > 0 then return 1 end
    return 0
end
`;

const DATABASE_MIRROR_TAIL_LUA = String.raw`
redis.register_function('__FUNCTION__', function(keys, args)
    m_touched = {}
    local reply = e_operation(keys, args)
    for key in pairs(m_touched) do m_mirror(key) end
    m_touched = {}
    return reply
end)
-- FCALL <mirror> 0 <old key…>: mirrors keys written before the operations mirrored their own.
redis.register_function('__MIRROR__', function(_, args)
    local copied = 0
    for i = 1, #args do
        if string.sub(args[i], 1, #M_OLD) == M_OLD then copied = copied + m_mirror(args[i]) end
    end
    return copied
end)
`;

/**
 * The library that takes the place of a renamed database's entity library at the switch: the old Function refuses
 * every operation, naming the database that now serves, so that an old application's write is never made only under
 * the old keys.
 */
export function renamedDatabaseLibrary(from: RedisViewModel, to: RedisViewModel, source: string): string {
    const old = from.entityStore!.schema;
    const next = to.entityStore!.schema;
    const message = `KVMOD_OTHER_DESIGN the server serves another design (${source}): database ${old.database} was renamed ${next.database} by kvmod migrate, and this client was generated for ${old.database}; use the client generated from the design the server serves`;
    return [
        `#!lua name=${libraryNameOf(from)}`,
        `-- Database ${old.database} was renamed ${next.database} (kvmod migrate): its entity Function refuses every operation.`,
        `redis.register_function('${old.functionName}', function() return redis.error_reply(${luaText(message)}) end)`,
        '',
    ].join('\n');
}

/** The name of a design's entity library, as its text declares it. */
function libraryNameOf(view: RedisViewModel): string {
    const match = /^#!lua name=(\S+)/.exec(view.entityStore!.library);
    if (match === null) throw new Error('entity Lua: the library declares no name');
    return match[1]!;
}

/** The stored identifier in an entity key (`kvmod:<db>:{<Entity>:<escaped id>}`). */
export function storedIdOfKey(key: string): string {
    const inner = key.slice(key.indexOf('{') + 1, -1);
    return inner
        .slice(inner.indexOf(':') + 1)
        .replace(/%(25|3A|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
