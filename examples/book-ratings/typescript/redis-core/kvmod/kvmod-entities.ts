// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-entities.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The entity operations of a generated TypeScript client (issue 28): create, patch, delete, read one entity, and
 * change its references, each one call of the design's entity Function (`FCALL`), which checks everything before
 * its first write and keeps every collection row the entity contributes to true. Engine-agnostic: the redis
 * target (both dialects) and redis-core serve the same call. On a Redis Cluster (node-redis's cluster client given
 * as the client) an operation crosses slots, so the redis-core client runs it as the cluster steps instead
 * (`ClientEntityStore.cluster`, kvmod-cluster-entities.ts); the functions and their refusals are the same. Shipped verbatim in every generated client
 * (`kvmod/kvmod-entities.ts`) beside the shared layout module (`kvmod/entity-store.ts`), so the client encodes
 * values exactly as `kvmod load` does.
 *
 * Values are checked here before anything is sent: a value of the wrong type is `entity.bad-value`, a value the
 * design cannot serve (a compared text the engine would miss, a compared float RediSearch 1.2 rounds) is
 * `entity.unservable-value`. Existence, references and numbers are checked by the server, whose `KVMOD_<CODE>`
 * refusals become `EntityError`s with the same codes. A patch never drops a field: an `undefined` property is
 * left unchanged, a `null` one is refused (every attribute holds a value).
 */
import { KvmodClientError, OtherDesignError, type CommandClient } from './kvmod-client.js';
import {
    companionForm,
    decodeEntityHash,
    entityCallArgv,
    entityKey,
    formField,
    referenceField,
    parseEntityError,
    parseEntityReply,
    storedId,
    unservableReason,
    type EntityAttributeSchema,
    type EntityCall,
    type EntityErrorCode,
    type EntityReferenceSchema,
    type EntityReferrer,
    type EntitySchema,
    type EntityStoreSchema,
    type EntityWrite,
} from './entity-store.js';
import { encodeRedisValue, type RedisLogicalType } from './redis-encoding.js';

export type { EntityErrorCode, EntityReferrer, EntityStoreSchema, EntityWrite } from './entity-store.js';

/** A refused entity operation; `code` is stable (`entity.not-found`, `entity.still-referenced`, …). */
export class EntityError extends KvmodClientError {
    declare readonly code: EntityErrorCode;
    /** Who still references the entity (`entity.still-referenced`): per reference, a count and up to 5 ids. */
    readonly referrers?: EntityReferrer[];

    constructor(code: EntityErrorCode, message: string, options?: { cause?: unknown; referrers?: EntityReferrer[] }) {
        super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
        this.name = 'EntityError';
        if (options?.referrers !== undefined) this.referrers = options.referrers;
    }
}

/**
 * What the client needs of node-redis's cluster client (`createCluster`): a command sent to the node serving its
 * first key, and the masters (to load the library on each).
 */
export interface ClusterCommandClient {
    sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
    readonly masters: readonly unknown[];
    nodeClient(node: unknown): Promise<CommandClient>;
}

/** A connection the entity operations take: one server (node-redis's client) or a cluster (its cluster client). */
export type EntityClient = CommandClient | ClusterCommandClient;

/** True for node-redis's cluster client: the client knows where it runs from the connection it is given. */
export function isClusterClient(client: EntityClient): client is ClusterCommandClient {
    return 'masters' in client && typeof (client as Partial<ClusterCommandClient>).nodeClient === 'function';
}

/** Sends a command about one key: on a cluster, to the node serving it. */
export function sendKeyed(client: EntityClient, key: string, args: string[], readonly = false): Promise<unknown> {
    return isClusterClient(client) ? client.sendCommand(key, readonly, args) : client.sendCommand(args);
}

/** What the client needs of a design's entity store. */
export interface ClientEntityStore {
    schema: EntityStoreSchema;
    /** The Lua library holding the entity Function (`FUNCTION LOAD REPLACE` installs it). */
    library: string;
    /**
     * How an operation runs on a Redis Cluster (the redis-core client's steps); absent where the design's entity
     * Function is the only writer (one server).
     */
    cluster?: (client: ClusterCommandClient, store: ClientEntityStore, call: EntityCall) => Promise<EntityWrite>;
}

/** Options of an update. */
export interface UpdateOptions {
    /** Refuse (`entity.conflict`) unless the entity's version is this one. */
    ifVersion?: number;
}

/** Options of a delete. */
export interface DeleteOptions {
    /** Remove the id from the `[*]` and `[0..1]` references that hold it, in the same call (never from a `[1]`). */
    detach?: boolean;
}

/** Installs (or replaces) the design's entity Function on the server: `FUNCTION LOAD REPLACE`. */
export async function installEntityFunctions(client: EntityClient, store: ClientEntityStore): Promise<void> {
    if (isClusterClient(client))
        throw new KvmodClientError('one-server-design', 'this design keeps its entities on one server: connect to one');
    await client.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', store.library]);
}

/** Creates an entity: every attribute, and its references (`[1]` required, `[0..1]` null or left out, `[*]` a list). */
export async function createEntity(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    object: object,
): Promise<EntityWrite> {
    const e = schemaOf(store, entity);
    if (!isPlainObject(object))
        refuse('entity.bad-value', `a new ${entity} must be an object of its attributes and references`);
    const given = object as Readonly<Record<string, unknown>>;
    const idValue = given[e.idName];
    if (idValue === undefined || idValue === null)
        refuse('entity.bad-value', `a new ${entity} needs its identifier ${e.idName}`);
    const id = idOf(store, entity, idValue);
    if (id === '') refuse('entity.bad-value', `${entity}.${e.idName}: the identifier is empty; every object needs one`);
    const { attributes, references } = membersOf(e);
    for (const name in given)
        if (
            Object.prototype.hasOwnProperty.call(given, name) &&
            given[name] !== undefined &&
            !attributes.has(name) &&
            !references.has(name)
        )
            refuse('entity.bad-value', `${entity} has no attribute ${JSON.stringify(name)}`);
    // The hash fields as `entityHashFields` writes them (attributes with companions, then references), each value
    // encoded once, while it is checked.
    const fields: string[] = [];
    for (const attribute of e.attributes) {
        const value = given[attribute.name];
        if (value === undefined) refuse('entity.bad-value', `a new ${entity} needs its attribute ${attribute.name}`);
        pushAttributeFields(fields, attribute, checkValue(store, e, idValue, attribute, value));
    }
    for (const reference of e.references) {
        const stored = checkReferenceValue(store, e, idValue, reference, given[reference.name]);
        if (stored !== undefined) fields.push(referenceField(reference.name), stored);
    }
    return call(client, store, { op: 'create', entity, id, fields });
}

/**
 * Changes the given attributes of an entity, nothing else: a property left out or `undefined` keeps its value; a
 * reference is not an attribute (use the reference operations); the identifier cannot change.
 */
export async function updateEntity(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
    patch: object,
    options: UpdateOptions = {},
): Promise<EntityWrite> {
    const e = schemaOf(store, entity);
    const stored = idOf(store, entity, id);
    if (!isPlainObject(patch)) refuse('entity.bad-value', `a patch of ${entity} must be an object of attributes`);
    const given = patch as Readonly<Record<string, unknown>>;
    const fields: string[] = [];
    const { attributes, references } = membersOf(e);
    for (const name in given) {
        if (!Object.prototype.hasOwnProperty.call(given, name)) continue;
        const value = given[name];
        if (value === undefined) continue;
        const attribute = attributes.get(name);
        if (attribute === undefined) {
            if (references.has(name))
                refuse(
                    'entity.bad-value',
                    `${entity}.${name} is a reference: a patch changes attributes only (use set, unset, add or remove)`,
                );
            refuse('entity.bad-value', `${entity} has no attribute ${JSON.stringify(name)}`);
        }
        if (attribute === e.attributes[0]) {
            if (idOf(store, entity, value) !== stored)
                refuse(
                    'entity.identifier-change',
                    `${entity}.${name} is the identifier of ${entityName(entity, id)}: it cannot change (create a new ${entity} instead)`,
                );
            continue;
        }
        pushAttributeFields(fields, attribute, checkValue(store, e, id, attribute, value));
    }
    const ifVersion = options.ifVersion;
    if (ifVersion !== undefined && (!Number.isSafeInteger(ifVersion) || ifVersion < 0))
        refuse('entity.bad-value', `ifVersion must be a version number (an integer from 0), got ${String(ifVersion)}`);
    return call(client, store, {
        op: 'update',
        entity,
        id: stored,
        ...(ifVersion === undefined ? {} : { ifVersion }),
        fields,
    });
}

/**
 * Deletes an entity with every row it contributes to. Refused (`entity.still-referenced`, naming the referrers)
 * while others reference it, unless `detach` removes it from the `[*]` and `[0..1]` references that hold it.
 */
export async function deleteEntity(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
    options: DeleteOptions = {},
): Promise<EntityWrite> {
    schemaOf(store, entity);
    return call(client, store, { op: 'delete', entity, id: idOf(store, entity, id), detach: options.detach === true });
}

/** Reads one entity by its identifier (its attributes and references, and its version), or null. */
export async function getEntity(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
): Promise<{ object: Record<string, unknown>; version: number } | null> {
    schemaOf(store, entity);
    const key = entityKey(store.schema.database, entity, idOf(store, entity, id));
    const hash = hashOf(await sendKeyed(client, key, ['HGETALL', key], true));
    if (Object.keys(hash).length === 0) return null;
    return decodeEntityHash(store.schema, entity, hash);
}

/** Sets a `[1]` or `[0..1]` reference to a target's identifier; null unsets a `[0..1]` one. */
export async function setReference(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
    reference: string,
    target: unknown,
): Promise<EntityWrite> {
    const r = referenceOf(store, entity, reference, 'set');
    const stored = idOf(store, entity, id);
    if (target === null || target === undefined)
        return call(client, store, { op: 'unset', entity, id: stored, reference });
    return call(client, store, { op: 'set', entity, id: stored, reference, target: targetId(store, r, target) });
}

/** Adds targets to a `[*]` reference (each at most once), after those it lists. */
export async function addReferences(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
    reference: string,
    targets: readonly unknown[],
): Promise<EntityWrite> {
    return listCall(client, store, 'add', entity, id, reference, targets);
}

/** Removes targets from a `[*]` reference. */
export async function removeReferences(
    client: EntityClient,
    store: ClientEntityStore,
    entity: string,
    id: unknown,
    reference: string,
    targets: readonly unknown[],
): Promise<EntityWrite> {
    return listCall(client, store, 'remove', entity, id, reference, targets);
}

async function listCall(
    client: EntityClient,
    store: ClientEntityStore,
    op: 'add' | 'remove',
    entity: string,
    id: unknown,
    reference: string,
    targets: readonly unknown[],
): Promise<EntityWrite> {
    const r = referenceOf(store, entity, reference, op);
    const stored = idOf(store, entity, id);
    if (!Array.isArray(targets))
        refuse('entity.bad-value', `${entity}.${reference}: ${op} takes a list of ${r.target} identifiers`);
    const ids = targets.map((target) => targetId(store, r, target));
    return call(client, store, { op, entity, id: stored, reference, targets: ids });
}

/** Sends one call; a `KVMOD_<CODE>` refusal becomes an `EntityError`. */
async function call(client: EntityClient, store: ClientEntityStore, entityCall: EntityCall): Promise<EntityWrite> {
    if (isClusterClient(client)) {
        if (store.cluster === undefined)
            throw new KvmodClientError(
                'one-server-design',
                "this design's entity operations are one call of its entity Function on one server: connect to one",
            );
        return store.cluster(client, store, entityCall);
    }
    let reply: unknown;
    try {
        reply = await client.sendCommand(entityCallArgv(store.schema, entityCall));
    } catch (error) {
        const refusal = error instanceof Error ? parseEntityError(error.message) : null;
        if (refusal === null) {
            // The Function of a design the server no longer serves (a database renamed by `kvmod migrate`) refuses
            // every call: not a refusal of this operation, but the application's client being out of date.
            const other = error instanceof Error ? /^(?:ERR )?KVMOD_OTHER_DESIGN ([\s\S]*)$/.exec(error.message) : null;
            if (other !== null) throw new OtherDesignError(other[1] ?? '', [], { cause: error });
            throw error;
        }
        throw new EntityError(refusal.code, refusal.message, {
            cause: error,
            ...(refusal.referrers === undefined ? {} : { referrers: refusal.referrers }),
        });
    }
    return parseEntityReply(reply);
}

function refuse(code: EntityErrorCode, message: string): never {
    throw new EntityError(code, message);
}

function isPlainObject(value: unknown): boolean {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entityName(entity: string, id: unknown): string {
    return `${entity} ${JSON.stringify(String(id))}`;
}

function schemaOf(store: ClientEntityStore, entity: string): EntitySchema {
    const found = Object.prototype.hasOwnProperty.call(store.schema.entities, entity)
        ? store.schema.entities[entity]
        : undefined;
    if (found === undefined) refuse('entity.bad-value', `${JSON.stringify(entity)} is no entity of the design`);
    return found;
}

function referenceOf(
    store: ClientEntityStore,
    entity: string,
    name: string,
    op: 'set' | 'add' | 'remove',
): EntityReferenceSchema {
    const reference = membersOf(schemaOf(store, entity)).references.get(name);
    if (reference === undefined) refuse('entity.bad-value', `${entity} has no reference ${JSON.stringify(name)}`);
    const many = reference.kind === 'many';
    if (many !== (op !== 'set'))
        refuse(
            'entity.bad-value',
            `${entity}.${name} is a ${many ? '[*]' : '[1] or [0..1]'} reference: ${op} does not apply (use ${many ? 'add or remove' : 'set or unset'})`,
        );
    return reference;
}

/** The stored form of an identifier of `entity` (a text id is a string; a numeric one a number or its text). */
function idOf(store: ClientEntityStore, entity: string, id: unknown): string {
    const type = schemaOf(store, entity).idType;
    const numeric = type === 'int' || type === 'float';
    if (!(typeof id === 'string' || (numeric && typeof id === 'number')))
        refuse(
            'entity.bad-value',
            `an identifier of ${entity} must be ${numeric ? 'a number or a text' : 'a text'}; got ${shown(id)}`,
        );
    try {
        return storedId(store.schema, entity, id);
    } catch (error) {
        throw new EntityError('entity.bad-value', `an identifier of ${entity}: ${messageOf(error)}`, { cause: error });
    }
}

function targetId(store: ClientEntityStore, reference: EntityReferenceSchema, target: unknown): string {
    return idOf(store, reference.target, target);
}

/** The JavaScript type a value of a logical type must have. */
const VALUE_TYPES: Record<RedisLogicalType, string> = {
    text: 'string',
    int: 'number',
    float: 'number',
    boolean: 'boolean',
    date: 'string',
    time: 'string',
    datetime: 'string',
};

/**
 * Refuses a value of the wrong type (`entity.bad-value`) or one the design cannot serve (`entity.unservable-value`);
 * returns its stored form.
 */
function checkValue(
    store: ClientEntityStore,
    entity: EntitySchema,
    id: unknown,
    attribute: EntityAttributeSchema,
    value: unknown,
): string {
    const owner = () => (id === undefined || id === null ? `a new ${entity.name}` : entityName(entity.name, id));
    let problem: string | null = null;
    let stored = '';
    if (typeof value !== VALUE_TYPES[attribute.type] || value === null)
        problem = `must be a ${VALUE_TYPES[attribute.type]}`;
    // A number past 2^53 is no exact integer: JSON and the data files' rule refuse it, so the server never stores one.
    else if (attribute.type === 'int' && !Number.isSafeInteger(value))
        problem = 'must be an integer (at most 2^53 - 1 in size)';
    else {
        try {
            stored = encodeRedisValue(attribute.type, value);
        } catch (error) {
            problem = messageOf(error);
        }
    }
    if (problem !== null)
        refuse('entity.bad-value', `${owner()}.${attribute.name} ${problem} (${attribute.type}); got ${shown(value)}`);
    const reason = unservableReason(store.schema, attribute, value);
    if (reason !== null)
        refuse(
            'entity.unservable-value',
            `${owner()}.${attribute.name}: the design cannot serve ${shown(value)}: ${reason}`,
        );
    return stored;
}

/** The hash fields of an attribute's stored form and its companions, as `attributeFields` writes them. */
function pushAttributeFields(fields: string[], attribute: EntityAttributeSchema, stored: string): void {
    fields.push(attribute.name, stored);
    for (const form of attribute.forms) fields.push(formField(attribute.name, form), companionForm(form, stored));
}

/** An entity's attributes and references by name, built once per schema. */
const memberMaps = new WeakMap<
    EntitySchema,
    { attributes: Map<string, EntityAttributeSchema>; references: Map<string, EntityReferenceSchema> }
>();
function membersOf(entity: EntitySchema): {
    attributes: Map<string, EntityAttributeSchema>;
    references: Map<string, EntityReferenceSchema>;
} {
    let members = memberMaps.get(entity);
    if (members === undefined) {
        members = {
            attributes: new Map(entity.attributes.map((a) => [a.name, a])),
            references: new Map(entity.references.map((r) => [r.name, r])),
        };
        memberMaps.set(entity, members);
    }
    return members;
}

/**
 * Refuses a reference value of the wrong shape; whether its targets exist is the server's check. Returns its stored
 * value as `referenceValue` writes it (undefined: the field is absent).
 */
function checkReferenceValue(
    store: ClientEntityStore,
    entity: EntitySchema,
    id: unknown,
    reference: EntityReferenceSchema,
    value: unknown,
): string | undefined {
    const where = () => `${entityName(entity.name, id)}.${reference.name}`;
    if (reference.kind !== 'many') {
        if (value === undefined || value === null) {
            if (reference.kind === 'one')
                refuse('entity.required-reference', `${where()} is required ([1]): name a ${reference.target}`);
            return undefined;
        }
        if (Array.isArray(value)) refuse('entity.bad-value', `${entity.name}.${reference.name} holds one identifier`);
        return targetId(store, reference, value);
    }
    const list = value === undefined || value === null ? [] : value;
    if (!Array.isArray(list))
        refuse('entity.bad-value', `${entity.name}.${reference.name} holds a list of identifiers`);
    const seen = new Set<string>();
    const ids: string[] = [];
    for (const target of list as unknown[]) {
        const stored = targetId(store, reference, target);
        if (seen.has(stored))
            refuse('entity.bad-value', `${where()} lists ${entityName(reference.target, target)} twice`);
        seen.add(stored);
        ids.push(stored);
    }
    if (list.length < reference.minItems)
        refuse('entity.required-reference', `${where()} must list at least ${reference.minItems} ${reference.target}`);
    if (reference.maxItems !== undefined && list.length > reference.maxItems)
        refuse('entity.bad-value', `${where()} can list at most ${reference.maxItems} ${reference.target}`);
    return JSON.stringify(ids);
}

/** An HGETALL reply as a record (RESP2: a flat list; RESP3 clients: a map or an object). */
function hashOf(reply: unknown): Record<string, string> {
    const hash: Record<string, string> = {};
    if (Array.isArray(reply)) {
        for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
    } else if (reply instanceof Map) {
        for (const [field, value] of reply) hash[String(field)] = String(value);
    } else if (typeof reply === 'object' && reply !== null) {
        for (const [field, value] of Object.entries(reply)) hash[field] = String(value);
    }
    return hash;
}

function shown(value: unknown): string {
    return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function messageOf(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}
