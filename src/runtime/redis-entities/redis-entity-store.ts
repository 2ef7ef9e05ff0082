/**
 * The entity store of a Redis design on a live server (issue 28), for both Redis engines: what `kvmod load` writes
 * beside the rows (entity hashes, reverse hashes; the stale rows of entities gone), and the live check that compares,
 * key for key, every row, reverse hash and entity hash with what the entities read back imply. The engine supplies
 * what differs between engines (`RedisStoreAccess`): how a row is encoded and deleted, and its index entries.
 */
import { isNaturalKey, type Collection, type KvlmModel } from '../../language/generated/ast.js';
import {
    entityHashFields,
    entityKey,
    reverseKey,
    rowBindingField,
    storedId,
    storedTargets,
    referenceField,
    VERSION_FIELD,
    type EntityStoreSchema,
} from '../../generation/shared/entity-store.js';
import { KvmodError } from '../../pipeline/errors.js';
import {
    describeIds,
    type EngineEntityStore,
    type EntityIds,
    type EntityLoadPlan,
    type EntityLoadResult,
    type LiveCheckResult,
} from '../engine.js';
import { formatCount } from '../format-count.js';
import { identityOf, indexInstanceData, type InstanceData, type InstanceIndex } from '../instance-data.js';
import { collectionNodes, materializeCollection, type MaterializedRow } from '../materialize.js';
import { bindNodes } from '../oracle.js';
import type { RuntimeModel } from '../runtime-model.js';
import { isErrorReply, RedisConnectionLost } from '../redis-connection/redis-link.js';
import { respBatch, type RespBatch } from '../redis-connection/redis-resp.js';
import { BATCHES_IN_FLIGHT } from '../redis-connection/write-batches.js';
import { readHashes, readServerEntities, scanKeys, type EntityNode, type ServerEntities } from './server-entities.js';

/** A row's hash as a design stores it: field → stored value. */
export type RowHash = Record<string, string>;

/** Rows of one collection by key. */
export type CollectionHashes = Map<string, RowHash>;

/** The one server the store is read from and written to; `sendBatch` pipelines a batch in one buffer. */
export interface StoreNode extends EntityNode {
    sendBatch?(batch: RespBatch): Promise<PromiseSettledResult<unknown>[]>;
}

/** What differs between the Redis engines, for the entity store. */
export interface RedisStoreAccess<Design> {
    node: StoreNode;
    /** Why the design keeps no entity store (counter keys), or null. */
    unsupported(design: Design): string | null;
    /** The design's entity store schema (only asked when `unsupported` is null). */
    schemaOf(design: Design): EntityStoreSchema;
    /**
     * The rows of a collection exactly as the engine's loader writes them, by key (a counter-key collection's row:
     * `keyParts` is its number).
     */
    rowHashes(design: Design, collection: Collection, rows: readonly MaterializedRow[]): CollectionHashes;
    /** A counter-key collection's counter and row map (`rowMapKey`); null for a natural key. */
    counterKeys(design: Design, collection: string): { counter: string; map: string } | null;
    /** The SCAN pattern of a collection's row keys. */
    rowPattern(design: Design, collection: string): string;
    /** Deletes rows with their index entries. */
    deleteRows(design: Design, collection: string, keys: readonly string[]): Promise<void>;
    /**
     * Installs the design's entity Function library (`FUNCTION LOAD REPLACE`), where the engine's design has one
     * apart from what `prepareSchema` loads.
     */
    installFunctions?(design: Design): Promise<void>;
    /** The index entries of every collection against the rows the entities imply: differences. */
    checkIndexes(design: Design, expected: ReadonlyMap<string, CollectionHashes>): Promise<string[]>;
}

/** The entity hashes (fields but `_v`) and reverse hashes (key → referrer ids) that instance data implies. */
export interface ExpectedStore {
    entities: Map<string, RowHash>;
    reverse: Map<string, Set<string>>;
}

/** The store `data` implies. */
export function expectedStore(schema: EntityStoreSchema, model: RuntimeModel, data: InstanceData): ExpectedStore {
    const entities = new Map<string, RowHash>();
    const reverse = new Map<string, Set<string>>();
    for (const entity of model.entities.values()) {
        const e = schema.entities[entity.name];
        for (const object of data[entity.name] ?? []) {
            const id = storedId(schema, entity.name, object[entity.idName]);
            entities.set(
                entityKey(schema.database, entity.name, id),
                recordOf(entityHashFields(schema, entity.name, object)),
            );
            for (const reference of e.references) {
                const value = object[reference.name];
                const targets = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
                for (const target of targets) {
                    const key = reverseKey(
                        schema.database,
                        reference.target,
                        storedId(schema, reference.target, target),
                        entity.name,
                        reference.name,
                    );
                    const referrers = reverse.get(key) ?? new Set<string>();
                    referrers.add(id);
                    reverse.set(key, referrers);
                }
            }
        }
    }
    return { entities, reverse };
}

/** Flat field/value pairs as a record. */
function recordOf(fields: readonly string[]): RowHash {
    const record: RowHash = {};
    for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i]] = fields[i + 1];
    return record;
}

/** The differences between the hashes a server holds and those expected, as sentences (`what` names the kind). */
export function diffHashes(
    what: string,
    expected: ReadonlyMap<string, RowHash>,
    actual: ReadonlyMap<string, RowHash>,
    implied: string,
): string[] {
    const out: string[] = [];
    for (const [key, have] of actual) {
        const want = expected.get(key);
        if (want === undefined) {
            out.push(`stale ${what} ${key}: ${implied} none`);
            continue;
        }
        out.push(...diffFields(what, key, want, have));
    }
    for (const key of expected.keys()) if (!actual.has(key)) out.push(`missing ${what} ${key}`);
    return out;
}

function diffFields(what: string, key: string, want: RowHash, have: RowHash): string[] {
    const out: string[] = [];
    for (const [field, value] of Object.entries(want)) {
        if (!(field in have)) out.push(`${what} ${key} lacks field ${field} (${JSON.stringify(value)})`);
        else if (have[field] !== value)
            out.push(
                `${what} ${key}: field ${field} is ${JSON.stringify(have[field])}, the entities imply ${JSON.stringify(value)}`,
            );
    }
    for (const field of Object.keys(have))
        if (!(field in want)) out.push(`${what} ${key} has a field ${field} the entities do not imply`);
    return out;
}

/** The entity hashes and reverse hashes against what the entities read back imply. */
export function checkEntityStore(schema: EntityStoreSchema, model: RuntimeModel, server: ServerEntities): string[] {
    const out: string[] = [];
    const expected = expectedStore(schema, model, server.data);
    for (const read of server.entities.values()) {
        if (read.problem !== undefined) {
            out.push(`entity hash ${read.key} cannot be read: ${read.problem}`);
            continue;
        }
        const { [VERSION_FIELD]: version, ...fields } = read.hash;
        if (version === undefined || !/^[1-9][0-9]*$/.test(version))
            out.push(
                `entity hash ${read.key}: its version ${VERSION_FIELD} is ${JSON.stringify(version ?? null)}, not a whole number from 1`,
            );
        const want = expected.entities.get(read.key);
        if (want === undefined) {
            // Decoded, but under another key: the identifier stored differs from the key's.
            out.push(`entity hash ${read.key} holds an entity whose key is another one`);
            continue;
        }
        // encode(decode(x)) = x, companions recomputed.
        out.push(...diffFields('entity hash', read.key, want, fields));
        for (const reference of schema.entities[read.entity].references) {
            for (const target of storedTargets(reference, read.hash[referenceField(reference.name)])) {
                if (!expected.entities.has(entityKey(schema.database, reference.target, target)))
                    out.push(
                        `entity hash ${read.key}: ${reference.name} names ${reference.target} ${target}, which the server does not hold`,
                    );
            }
        }
    }
    for (const [key, fields] of server.reverse) {
        const want = expected.reverse.get(key);
        if (want === undefined) {
            out.push(`stale reverse hash ${key}: no entity holds that reference`);
            continue;
        }
        for (const [id, value] of Object.entries(fields)) {
            if (!want.has(id)) out.push(`reverse hash ${key} has a stale referrer ${id}`);
            else if (value !== '')
                out.push(`reverse hash ${key}: referrer ${id} holds ${JSON.stringify(value)}, not ""`);
        }
        for (const id of want) if (!(id in fields)) out.push(`reverse hash ${key} lacks referrer ${id}`);
    }
    for (const key of expected.reverse.keys()) if (!server.reverse.has(key)) out.push(`missing reverse hash ${key}`);
    return out;
}

/**
 * The row map fields of a collection's rows, in the order materialization makes the rows (one row per binding): the
 * stored identifiers of the objects bound at its nodes (`rowBindingField`).
 */
export function rowBindings(
    schema: EntityStoreSchema,
    collection: Collection,
    data: InstanceData,
    index: InstanceIndex,
): string[] {
    const nodes = collectionNodes(collection);
    const idNames = nodes.map((node) => schema.entities[node.entity]?.idName ?? '');
    return bindNodes(nodes, data, index).map((binding) =>
        rowBindingField(
            binding.map((object, position) => storedId(schema, nodes[position].entity, object[idNames[position]])),
        ),
    );
}

/** A row map as read (binding → row number), per counter-key collection. */
type RowMaps = ReadonlyMap<string, Readonly<Record<string, string>>>;

/**
 * The rows of every collection the instance data implies, as the engine writes them; a collision is a difference.
 * A counter-key collection's rows are numbered as `maps` (the server's row maps) say, each difference of a map from
 * the bindings is a difference; without `maps`, in binding order from 1 (as `kvmod load` numbers them).
 */
function expectedRows<D>(
    access: RedisStoreAccess<D>,
    design: D,
    kvlm: KvlmModel,
    model: RuntimeModel,
    data: InstanceData,
    problems: string[],
    schema?: EntityStoreSchema,
    maps?: RowMaps,
): Map<string, CollectionHashes> {
    const index = indexInstanceData(model, data);
    const expected = new Map<string, CollectionHashes>();
    for (const collection of kvlm.collections) {
        try {
            let rows = materializeCollection(collection, data, index).rows;
            const map = maps?.get(collection.name);
            if (map !== undefined && schema !== undefined)
                rows = numberedRows(collection.name, access.counterKeys(design, collection.name)!.map, rows, {
                    bindings: rowBindings(schema, collection, data, index),
                    map,
                    problems,
                });
            expected.set(collection.name, access.rowHashes(design, collection, rows));
        } catch (error) {
            problems.push(`collection ${collection.name}: the entities make no rows: ${(error as Error).message}`);
            expected.set(collection.name, new Map());
        }
    }
    return expected;
}

/** A counter-key collection's rows with the numbers its row map gives their bindings; each map difference a problem. */
function numberedRows(
    collection: string,
    mapKey: string,
    rows: readonly MaterializedRow[],
    read: { bindings: readonly string[]; map: Readonly<Record<string, string>>; problems: string[] },
): MaterializedRow[] {
    const { bindings, map, problems } = read;
    const numbered: MaterializedRow[] = [];
    rows.forEach((row, position) => {
        const number = Object.prototype.hasOwnProperty.call(map, bindings[position])
            ? map[bindings[position]]
            : undefined;
        if (number === undefined)
            problems.push(
                `row map ${mapKey} lacks the row of binding ${JSON.stringify(bindings[position])} (collection ${collection})`,
            );
        else numbered.push({ ...row, keyParts: [number] });
    });
    const implied = new Set(bindings);
    for (const [binding, number] of Object.entries(map))
        if (!implied.has(binding))
            problems.push(
                `stale row map entry ${JSON.stringify(binding)} → ${number} in ${mapKey}: no binding of the entities makes it`,
            );
    return numbered;
}

/** Sends commands pipelined, a batch at a time with a few in flight; a refused command is a KvmodError. */
async function sendAll(node: StoreNode, commands: readonly string[][], batchSize: number): Promise<void> {
    const inFlight: Promise<void>[] = [];
    const settle = async (replies: Promise<PromiseSettledResult<unknown>[]>, batch: readonly string[][]) => {
        for (const [position, reply] of (await replies).entries()) {
            if (reply.status === 'fulfilled') continue;
            if (reply.reason instanceof RedisConnectionLost || !isErrorReply(reply.reason)) throw reply.reason;
            throw new KvmodError(
                `the server refused ${batch[position][0]} ${batch[position][1]}: ${(reply.reason as Error).message}`,
                { code: 'redis.refused', cause: reply.reason },
            );
        }
    };
    try {
        for (let start = 0; start < commands.length; start += batchSize) {
            const batch = commands.slice(start, start + batchSize);
            const replies = node.sendBatch
                ? node.sendBatch(respBatch(batch))
                : Promise.allSettled(batch.map((argv) => node.send(argv)));
            inFlight.push(settle(replies, batch));
            if (inFlight.length >= BATCHES_IN_FLIGHT) await inFlight.shift();
        }
        while (inFlight.length > 0) await inFlight.shift();
    } finally {
        await Promise.allSettled(inFlight);
    }
}

/** The store's commands: DEL + HSET of every entity and reverse hash that differs, DEL of those no longer implied. */
function storeCommands(expected: ExpectedStore, server: ServerEntities, removed: ReadonlySet<string>): string[][] {
    const commands: string[][] = [];
    for (const key of removed) commands.push(['DEL', key]);
    for (const [key, fields] of expected.entities) {
        const want = { ...fields, [VERSION_FIELD]: '1' };
        const have = server.entities.get(key)?.hash;
        if (have !== undefined && sameHash(want, have)) continue;
        if (have !== undefined) commands.push(['DEL', key]);
        commands.push(['HSET', key, ...Object.entries(want).flat()]);
    }
    for (const key of server.reverse.keys()) if (!expected.reverse.has(key)) commands.push(['DEL', key]);
    for (const [key, ids] of expected.reverse) {
        const have = server.reverse.get(key);
        if (have !== undefined && sameHash(Object.fromEntries([...ids].map((id) => [id, ''])), have)) continue;
        if (have !== undefined) commands.push(['DEL', key]);
        commands.push(['HSET', key, ...[...ids].sort().flatMap((id) => [id, ''])]);
    }
    return commands;
}

/** Rows written per HSET of a row map. */
const MAP_ENTRIES_PER_COMMAND = 500;

/**
 * The row maps `kvmod load` writes: each counter-key collection's counter reset and its map anew, its rows numbered
 * in binding order from 1, as the loader then writes them (its rows were dropped with its index).
 */
function rowMapCommands<D>(
    access: RedisStoreAccess<D>,
    design: D,
    kvlm: KvlmModel,
    schema: EntityStoreSchema,
    model: RuntimeModel,
    data: InstanceData,
): string[][] {
    const commands: string[][] = [];
    let index: InstanceIndex | undefined;
    for (const collection of kvlm.collections) {
        if (isNaturalKey(collection.strategy)) continue;
        const counter = access.counterKeys(design, collection.name);
        if (counter === null) continue;
        commands.push(['DEL', counter.counter, counter.map]);
        index ??= indexInstanceData(model, data);
        const bindings = rowBindings(schema, collection, data, index);
        for (let start = 0; start < bindings.length; start += MAP_ENTRIES_PER_COMMAND) {
            const entries = bindings
                .slice(start, start + MAP_ENTRIES_PER_COMMAND)
                .flatMap((binding, offset) => [binding, String(start + offset + 1)]);
            commands.push(['HSET', counter.map, ...entries]);
        }
    }
    return commands;
}

function sameHash(a: RowHash, b: RowHash): boolean {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => b[key] === a[key]);
}

/** Entities named per entity in a message. */
const SHOWN_IDS = 10;

/** The entity store of a Redis design, over the engine's `access`. */
export function redisEntityStore<D>(access: RedisStoreAccess<D>): EngineEntityStore<D> {
    const schemaFor = (design: D): EntityStoreSchema => {
        const reason = access.unsupported(design);
        if (reason !== null) throw new KvmodError(reason, { code: 'entity-store.unsupported' });
        return access.schemaOf(design);
    };
    return {
        unsupported: (design) => access.unsupported(design),
        async planLoad(design, runtime, data, { fresh, sync }): Promise<EntityLoadPlan> {
            const schema = schemaFor(design);
            const model = runtime.model;
            const server = await readServerEntities(access.node, schema, model);
            const expected = expectedStore(schema, model, data);
            const extra: EntityIds[] = [];
            for (const entity of model.entities.keys()) {
                const ids = [...server.entities.values()]
                    .filter((read) => read.entity === entity && !expected.entities.has(read.key))
                    .map((read) => read.key);
                if (ids.length > 0 && !fresh) extra.push({ entity, ids: ids.map((key) => idOfKey(key)).sort() });
            }
            if (extra.length > 0 && !sync) throw refusal(schema, extra);
            if (sync)
                refuseReferenced(
                    schema,
                    model,
                    data,
                    new Set(
                        extra.flatMap(({ entity, ids }) => ids.map((id) => entityKey(schema.database, entity, id))),
                    ),
                );
            const extraKeys = new Set(
                [...server.entities.values()]
                    .filter((read) => !expected.entities.has(read.key))
                    .map((read) => read.key),
            );
            return {
                extra,
                async write({ batchSize = 2000 } = {}): Promise<EntityLoadResult> {
                    // The rows the server's entities implied and the data's do not (records gone, references moved).
                    // A counter-key collection is reloaded whole (its rows were dropped with its index).
                    let rowsDeleted = 0;
                    if (!fresh && server.entities.size > 0) {
                        const kvlm = runtime.kvlm;
                        const old = expectedRows(access, design, kvlm, model, server.data, []);
                        const now = expectedRows(access, design, kvlm, model, data, []);
                        for (const [collection, rows] of old) {
                            if (access.counterKeys(design, collection) !== null) continue;
                            const stale = [...rows.keys()].filter((key) => !now.get(collection)?.has(key));
                            if (stale.length === 0) continue;
                            await access.deleteRows(design, collection, stale);
                            rowsDeleted += stale.length;
                        }
                    }
                    const commands = [
                        ...storeCommands(expected, server, extraKeys),
                        ...rowMapCommands(access, design, runtime.kvlm, schema, model, data),
                    ];
                    await sendAll(access.node, commands, batchSize);
                    await access.installFunctions?.(design);
                    return {
                        written: commands.filter((argv) => argv[0] === 'HSET' && argv[1].endsWith('}')).length,
                        removed: extra,
                        rowsDeleted,
                    };
                },
            };
        },
        async check(design, runtime): Promise<LiveCheckResult> {
            const schema = schemaFor(design);
            const server = await readServerEntities(access.node, schema, runtime.model);
            const differences = checkEntityStore(schema, runtime.model, server);
            const maps = new Map<string, Record<string, string>>();
            for (const collection of runtime.kvlm.collections) {
                const counter = access.counterKeys(design, collection.name);
                if (counter !== null) maps.set(collection.name, (await readHashes(access.node, [counter.map]))[0]);
            }
            const expected = expectedRows(
                access,
                design,
                runtime.kvlm,
                runtime.model,
                server.data,
                differences,
                schema,
                maps,
            );
            for (const [collection, rows] of expected) {
                const counter = access.counterKeys(design, collection);
                const keys = (await scanKeys(access.node, access.rowPattern(design, collection))).filter(
                    (key) => key !== counter?.counter && key !== counter?.map,
                );
                const hashes = await readHashes(access.node, keys);
                const actual = new Map(keys.map((key, position) => [key, hashes[position]]));
                differences.push(...diffHashes('row', rows, actual, 'no entity implies it; the entities imply'));
            }
            differences.push(...(await access.checkIndexes(design, expected)));
            return { data: server.data, differences };
        },
    };
}

/** The stored id of an entity key (`kvmod:<db>:{E:<escaped id>}`), unescaped. */
function idOfKey(key: string): string {
    const inner = key.slice(key.indexOf('{') + 1, -1);
    return decodeURIComponentSafe(inner.slice(inner.indexOf(':') + 1));
}

function decodeURIComponentSafe(text: string): string {
    return text.replace(/%(25|3A|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** `load` without `--sync` on a server holding entities the data lacks. */
function refusal(schema: EntityStoreSchema, extra: readonly EntityIds[]): KvmodError {
    const total = extra.reduce((sum, e) => sum + e.ids.length, 0);
    return new KvmodError(
        `the server holds ${formatCount(total)} ${total === 1 ? 'entity' : 'entities'} of design ${schema.database} that the data lacks: ${extra.map(describeIds).join('; ')}; nothing was written: run with --sync to remove them and their rows, or load data that holds them`,
        { code: 'load.entities-not-in-data' },
    );
}

/** `--sync` removes no entity that a kept one still references. */
function refuseReferenced(
    schema: EntityStoreSchema,
    model: RuntimeModel,
    data: InstanceData,
    removed: ReadonlySet<string>,
): void {
    const problems: string[] = [];
    for (const entity of model.entities.values())
        for (const object of data[entity.name] ?? [])
            for (const reference of entity.references) {
                const value = object[reference.name];
                for (const target of Array.isArray(value)
                    ? value
                    : value === null || value === undefined
                      ? []
                      : [value]) {
                    const key = entityKey(
                        schema.database,
                        reference.target,
                        storedId(schema, reference.target, target),
                    );
                    if (removed.has(key))
                        problems.push(
                            `${entity.name} ${identityOf(object[entity.idName])} references ${reference.target} ${identityOf(target)} through ${reference.name}`,
                        );
                }
            }
    if (problems.length > 0)
        throw new KvmodError(
            `--sync cannot remove entities still referenced: ${problems.slice(0, SHOWN_IDS).join('; ')}; nothing was written`,
            { code: 'entity.still-referenced' },
        );
}
