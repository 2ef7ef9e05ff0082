// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-dynamo-operations.ts: the rules of the DynamoDB design have one source. Do not edit.
/**
 * The entity operations of the generated DynamoDB client (issue 31): what an operation means, stated from the design
 * data the client embeds (`DynamoEntityDesign`: the entities, and per collection its join path, fields and keys), and
 * the API the client exposes (`createEntity`, `updateEntity`, … as the Redis clients name them), each carried to the
 * items by the protocol of `kvmod-dynamo-entities.ts` (head item, change item, versioned idempotent steps, lease).
 * Shipped verbatim in the client (`kvmod/kvmod-dynamo-operations.ts`); `kvmod workload --target dynamodb` and `kvmod
 * load`'s writers run the same code with the same design data. Its semantics are those of kvmod's
 * `applyEntityOperation` and `rowEffects` (src/runtime/entities), which a property test holds it to over random
 * models and operations; it imports nothing of kvmod's model machinery.
 *
 * A refusal (a value of the wrong type, a missing entity or target, a referenced delete, …) writes nothing and
 * throws an `EntityError` with the Redis clients' stable codes.
 */
import { isCalendarDate } from './calendar-date.js';
import type { EntityErrorCode } from './entity-error-codes.js';
import { partitionKey, rowKeyText, sortKey, type KeyType } from './dynamodb-keys.js';
import { itemValue } from './kvmod-dynamo-client.js';
import {
    completePendingChange,
    executeEntityOperation,
    readEntity,
    storedIdentity,
    type ChangeStep,
    type DynamoChangePlanner,
    type DynamoEntityProtocol,
    type EntityData,
    type EntityObject,
    type EntityRef,
    type FaultHook,
    type PlannedChange,
} from './kvmod-dynamo-entities.js';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** An attribute of an entity. */
export interface DynamoEntityAttribute {
    name: string;
    type: KeyType;
}

/** A reference of an entity: `[1]` (`one`), `[0..1]` (`optional`) or a list (`many`, with its bounds). */
export interface DynamoEntityReference {
    name: string;
    target: string;
    kind: 'one' | 'optional' | 'many';
    minItems: number;
    /** Absent: unbounded. */
    maxItems?: number;
}

/** An entity: its identifier, its attributes (the identifier first) and its references, in declaration order. */
export interface DynamoEntitySchema {
    name: string;
    idName: string;
    idType: KeyType;
    attributes: DynamoEntityAttribute[];
    references: DynamoEntityReference[];
}

/** A key of a row table (the base table's or an index's): attributes, prefix and the fields it composes. */
export interface DynamoRowKey {
    partitionAttribute: string;
    partitionPrefix: string;
    partitionParts: { field: string; type: KeyType }[];
    sortAttribute: string;
    sortParts: { field: string; type: KeyType }[];
}

/** A collection as its rows are made from the entities (inner joins along its nodes) and written to its table. */
export interface DynamoRowCollection {
    name: string;
    table: string;
    /** Nodes, root first: the entity, the parent's position (-1 for the root) and the reference followed from it. */
    nodes: { entity: string; parent: number; reference: string }[];
    /** Fields: the node and attribute each copies. */
    fields: { name: string; type: KeyType; node: number; attribute: string }[];
    /** The row key's parts (natural keys: identifiers along the path). */
    key: { node: number; attribute: string }[];
    /** The base table's key first, then each global secondary index's. */
    keys: DynamoRowKey[];
}

/** What the client embeds of the design for its entity operations. */
export interface DynamoEntityDesign {
    /** The design's entity table (`<db>_kvmod_entities`). */
    entityTable: string;
    entities: Record<string, DynamoEntitySchema>;
    collections: DynamoRowCollection[];
}

/** An identifier as an operation names it. */
export type DynamoEntityId = string | number;

/** One entity operation, as plain data (the shape of kvmod's `EntityOperation`). */
export type DynamoEntityOperation =
    | { kind: 'create'; entity: string; object: EntityObject }
    | { kind: 'update'; entity: string; id: DynamoEntityId; patch: Record<string, unknown> }
    | { kind: 'delete'; entity: string; id: DynamoEntityId; detach?: boolean }
    | { kind: 'set'; entity: string; id: DynamoEntityId; reference: string; target: DynamoEntityId }
    | { kind: 'unset'; entity: string; id: DynamoEntityId; reference: string }
    | { kind: 'add' | 'remove'; entity: string; id: DynamoEntityId; reference: string; targets: DynamoEntityId[] };

/** Who still references a deleted id, per referring reference (at most 5 ids named). */
export interface DynamoReferrer {
    entity: string;
    reference: string;
    count: number;
    sample: string[];
}

/** A refused entity operation; `code` is stable (`entity.not-found`, `entity.still-referenced`, …). */
export class EntityError extends Error {
    readonly code: EntityErrorCode;
    /** Who still references the entity (`entity.still-referenced`). */
    readonly referrers?: DynamoReferrer[];

    constructor(code: EntityErrorCode, message: string, referrers?: DynamoReferrer[]) {
        super(message);
        this.name = 'EntityError';
        this.code = code;
        if (referrers !== undefined) this.referrers = referrers;
    }
}

/** A row item that cannot be written: a key longer than DynamoDB takes. */
export class DynamoRowError extends Error {
    readonly code = 'dynamodb.key-too-long';

    constructor(message: string) {
        super(message);
        this.name = 'DynamoRowError';
    }
}

/** How many referrer ids a refused delete names per reference. */
const MAX_REFERRER_SAMPLE = 5;

/** DynamoDB's key sizes (bytes of UTF-8). */
const PARTITION_KEY_BYTES = 2048;
const SORT_KEY_BYTES = 1024;

// ---------------------------------------------------------------------------------------------------------------
// The semantics: an operation applied to the entities in memory.

/** Characters a message never shows raw (control and direction marks). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

function quoteText(value: unknown): string {
    return (JSON.stringify(value) ?? String(value)).replace(
        UNSAFE,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
}

function refuse(code: EntityErrorCode, message: string, referrers?: DynamoReferrer[]): never {
    throw new EntityError(code, message, referrers);
}

/** The plain name of an object in messages: `Book "978-1"`. */
function entityName(entity: string, id: unknown): string {
    return `${entity} ${quoteText(storedIdentity(id))}`;
}

const DATE = '(\\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])';
const TIME = '([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d';
const TEMPORAL: Record<'date' | 'time' | 'datetime', RegExp> = {
    date: new RegExp(`^${DATE}$`, 'u'),
    time: new RegExp(`^${TIME}$`, 'u'),
    datetime: new RegExp(`^${DATE}T${TIME}$`, 'u'),
};

function fitsType(type: KeyType, value: unknown): boolean {
    switch (type) {
        case 'int':
            return (
                typeof value === 'number' &&
                !(value % 1) &&
                value >= Number.MIN_SAFE_INTEGER &&
                value <= Number.MAX_SAFE_INTEGER
            );
        case 'float':
            return typeof value === 'number' && value >= -Number.MAX_VALUE && value <= Number.MAX_VALUE;
        case 'boolean':
            return typeof value === 'boolean';
        case 'date':
        case 'time':
        case 'datetime':
            return typeof value === 'string' && TEMPORAL[type].test(value);
        default:
            return typeof value === 'string';
    }
}

/** Why a value is no value of the type, or null (the data files' rule, and calendar dates). */
function valueProblem(type: KeyType, value: unknown): string | null {
    if (fitsType(type, value)) {
        if (type !== 'date' && type !== 'datetime') return null;
        const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value as string);
        return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))
            ? null
            : 'is not a calendar date';
    }
    switch (type) {
        case 'int':
            return 'must be an integer (at most 2^53 - 1 in size)';
        case 'float':
            return 'must be a finite number';
        case 'boolean':
            return 'must be true or false';
        case 'date':
            return 'must be a date YYYY-MM-DD';
        case 'time':
            return 'must be a time HH:MM:SS';
        case 'datetime':
            return 'must be a datetime YYYY-MM-DDTHH:MM:SS';
        default:
            return 'must be a text';
    }
}

function schemaOf(design: DynamoEntityDesign, entity: string): DynamoEntitySchema | undefined {
    return Object.prototype.hasOwnProperty.call(design.entities, entity) ? design.entities[entity] : undefined;
}

function findObject(objects: readonly EntityObject[], entity: DynamoEntitySchema, id: string): number {
    for (let i = 0; i < objects.length; i++) if (storedIdentity(objects[i]![entity.idName]) === id) return i;
    return -1;
}

function checkValue(entity: DynamoEntitySchema, id: unknown, attribute: DynamoEntityAttribute, value: unknown): void {
    const problem = valueProblem(attribute.type, value);
    if (problem === null) return;
    const shown = typeof value === 'string' ? quoteText(value) : String(value);
    const owner = id === undefined || id === null ? `a new ${entity.name}` : entityName(entity.name, id);
    refuse('entity.bad-value', `${owner}.${attribute.name} ${problem} (${attribute.type}); got ${shown}`);
}

function checkIdShape(
    design: DynamoEntityDesign,
    reference: DynamoEntityReference,
    target: unknown,
): asserts target is DynamoEntityId {
    const idType = schemaOf(design, reference.target)?.idType;
    const numeric = idType === 'int' || idType === 'float';
    if (typeof target === 'string' || (numeric && typeof target === 'number' && Number.isFinite(target))) return;
    refuse(
        'entity.bad-value',
        `${reference.name} holds identifiers of ${reference.target} (${numeric ? 'texts or numbers' : 'texts'}); got ${String(target)}`,
    );
}

function checkTargets(
    design: DynamoEntityDesign,
    data: EntityData,
    entity: DynamoEntitySchema,
    reference: DynamoEntityReference,
    targets: readonly unknown[],
): void {
    const target = schemaOf(design, reference.target);
    if (target === undefined) refuse('entity.missing-target', `${reference.target} is no entity of the model`);
    const objects = data[target.name] ?? [];
    for (const id of targets) {
        checkIdShape(design, reference, id);
        if (findObject(objects, target, storedIdentity(id)) < 0)
            refuse(
                'entity.missing-target',
                `${entity.name}.${reference.name}: ${entityName(target.name, id)} does not exist`,
            );
    }
}

function checkBounds(entity: DynamoEntitySchema, id: string, reference: DynamoEntityReference, length: number): void {
    if (length < reference.minItems)
        refuse(
            'entity.required-reference',
            `${entityName(entity.name, id)}.${reference.name} must list at least ${reference.minItems} ${reference.target}`,
        );
    if (reference.maxItems !== undefined && length > reference.maxItems)
        refuse(
            'entity.bad-value',
            `${entityName(entity.name, id)}.${reference.name} can list at most ${reference.maxItems} ${reference.target}`,
        );
}

function checkKnownFields(entity: DynamoEntitySchema, names: readonly string[], referencesToo: boolean): void {
    for (const name of names) {
        if (entity.attributes.some((attribute) => attribute.name === name)) continue;
        if (entity.references.some((reference) => reference.name === name)) {
            if (referencesToo) continue;
            refuse(
                'entity.bad-value',
                `${entity.name}.${name} is a reference: a patch changes attributes only (use set, unset, add or remove)`,
            );
        }
        refuse('entity.bad-value', `${entity.name} has no attribute ${quoteText(name)}`);
    }
}

function referenceNamed(
    entity: DynamoEntitySchema,
    name: string,
    kinds: DynamoEntityReference['kind'][],
    operation: string,
): DynamoEntityReference {
    const reference = entity.references.find((candidate) => candidate.name === name);
    if (reference === undefined) refuse('entity.bad-value', `${entity.name} has no reference ${quoteText(name)}`);
    if (!kinds.includes(reference.kind))
        refuse(
            'entity.bad-value',
            `${entity.name}.${reference.name} is a ${reference.kind === 'many' ? '[*]' : '[1] or [0..1]'} reference: ${operation} does not apply (use ${reference.kind === 'many' ? 'add or remove' : 'set or unset'})`,
        );
    return reference;
}

function listOf(object: EntityObject, reference: DynamoEntityReference): unknown[] {
    const value = object[reference.name];
    return Array.isArray(value) ? value : [];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkedNew(
    design: DynamoEntityDesign,
    data: EntityData,
    entity: DynamoEntitySchema,
    given: unknown,
    objects: readonly EntityObject[],
): EntityObject {
    if (!isPlainObject(given))
        refuse('entity.bad-value', `a new ${entity.name} must be an object of its attributes and references`);
    const idValue = given[entity.idName];
    if (idValue === undefined || idValue === null)
        refuse('entity.bad-value', `a new ${entity.name} needs its identifier ${entity.idName}`);
    checkValue(entity, undefined, entity.attributes[0]!, idValue);
    const id = storedIdentity(idValue);
    if (id === '')
        refuse('entity.bad-value', `${entity.name}.${entity.idName}: the identifier is empty; every object needs one`);
    if (findObject(objects, entity, id) >= 0) refuse('entity.exists', `${entityName(entity.name, id)} exists already`);
    checkKnownFields(
        entity,
        Object.keys(given).filter((name) => given[name] !== undefined),
        true,
    );
    const object: EntityObject = {};
    for (const attribute of entity.attributes) {
        const value = given[attribute.name];
        if (value === undefined)
            refuse('entity.bad-value', `a new ${entity.name} needs its attribute ${attribute.name}`);
        checkValue(entity, idValue, attribute, value);
        object[attribute.name] = value;
    }
    for (const reference of entity.references) {
        const value = given[reference.name];
        if (reference.kind === 'one' || reference.kind === 'optional') {
            if (value === undefined || value === null) {
                if (reference.kind === 'one')
                    refuse(
                        'entity.required-reference',
                        `${entityName(entity.name, id)}.${reference.name} is required ([1]): name a ${reference.target}`,
                    );
                object[reference.name] = null;
                continue;
            }
            if (Array.isArray(value))
                refuse('entity.bad-value', `${entity.name}.${reference.name} holds one identifier`);
            checkIdShape(design, reference, value);
            checkTargets(design, data, entity, reference, [value]);
            object[reference.name] = value;
        } else {
            const list = value === undefined ? [] : value;
            if (!Array.isArray(list))
                refuse('entity.bad-value', `${entity.name}.${reference.name} holds a list of identifiers`);
            const seen = new Set<string>();
            for (const target of list as unknown[]) {
                checkIdShape(design, reference, target);
                if (seen.has(storedIdentity(target)))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} lists ${entityName(reference.target, target)} twice`,
                    );
                seen.add(storedIdentity(target));
            }
            checkBounds(entity, id, reference, list.length);
            checkTargets(design, data, entity, reference, list);
            object[reference.name] = [...(list as unknown[])];
        }
    }
    return object;
}

function patched(entity: DynamoEntitySchema, old: EntityObject, patch: unknown): EntityObject {
    if (!isPlainObject(patch)) refuse('entity.bad-value', `a patch of ${entity.name} must be an object of attributes`);
    const given = Object.keys(patch).filter((name) => patch[name] !== undefined);
    checkKnownFields(entity, given, false);
    const id = old[entity.idName];
    const object = { ...old };
    for (const name of given) {
        const attribute = entity.attributes.find((candidate) => candidate.name === name)!;
        const value = patch[name];
        if (attribute === entity.attributes[0]) {
            if (storedIdentity(value) !== storedIdentity(id))
                refuse(
                    'entity.identifier-change',
                    `${entity.name}.${attribute.name} is the identifier of ${entityName(entity.name, id)}: it cannot change (create a new ${entity.name} instead)`,
                );
            continue;
        }
        checkValue(entity, id, attribute, value);
        object[name] = value;
    }
    return object;
}

function holds(value: unknown, id: string): boolean {
    if (value === undefined || value === null) return false;
    if (Array.isArray(value)) return value.some((element) => storedIdentity(element) === id);
    return storedIdentity(value) === id;
}

function deleted(
    design: DynamoEntityDesign,
    data: EntityData,
    entity: DynamoEntitySchema,
    at: number,
    detach: boolean,
): EntityData {
    const objects = data[entity.name] ?? [];
    const id = storedIdentity(objects[at]![entity.idName]);
    const referrers: DynamoReferrer[] = [];
    const detached: { from: DynamoEntitySchema; reference: DynamoEntityReference; positions: number[] }[] = [];
    for (const from of Object.values(design.entities))
        for (const reference of from.references) {
            if (reference.target !== entity.name) continue;
            const holders = data[from.name] ?? [];
            const positions: number[] = [];
            for (let i = 0; i < holders.length; i++) {
                if (from === entity && i === at) continue;
                if (holds(holders[i]![reference.name], id)) positions.push(i);
            }
            if (positions.length === 0) continue;
            if (!detach || reference.kind === 'one' || reference.minItems > 0)
                referrers.push({
                    entity: from.name,
                    reference: reference.name,
                    count: positions.length,
                    sample: positions
                        .slice(0, MAX_REFERRER_SAMPLE)
                        .map((i) => storedIdentity(holders[i]![from.idName])),
                });
            else detached.push({ from, reference, positions });
        }
    if (referrers.length > 0) {
        const listed = referrers
            .map(
                (referrer) =>
                    `${referrer.entity}.${referrer.reference} (${referrer.count}: ${referrer.sample.map(quoteText).join(', ')}${referrer.count > referrer.sample.length ? ', …' : ''})`,
            )
            .join('; ');
        refuse(
            'entity.still-referenced',
            `${entityName(entity.name, id)} is still referenced by ${listed}: delete or change the referrers first`,
            referrers,
        );
    }
    const next: EntityData = { ...data };
    for (const { from, reference, positions } of detached) {
        const holders = (next[from.name] ?? []).slice();
        for (const i of positions) {
            const value = holders[i]![reference.name];
            holders[i] = {
                ...holders[i],
                [reference.name]: Array.isArray(value)
                    ? value.filter((element) => storedIdentity(element) !== id)
                    : null,
            };
        }
        next[from.name] = holders;
    }
    const remaining = (next[entity.name] ?? objects).slice();
    remaining.splice(at, 1);
    next[entity.name] = remaining;
    return next;
}

/** Code point order of two texts. */
function compareCodePoints(a: string, b: string): number {
    for (let at = 0; ;) {
        const x = a.codePointAt(at);
        const y = b.codePointAt(at);
        if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
        if (x !== y) return x < y ? -1 : 1;
        at += x > 0xffff ? 2 : 1;
    }
}

/**
 * Applies one operation to the entities (each entity's objects in identifier order, as a referrer sample names them):
 * the entities after it (the input is not modified), or throws the `EntityError` that refuses it.
 */
export function applyOperation(
    design: DynamoEntityDesign,
    before: EntityData,
    operation: DynamoEntityOperation,
): EntityData {
    const data: EntityData = {};
    for (const [name, objects] of Object.entries(before)) {
        const idName = schemaOf(design, name)?.idName ?? 'id';
        data[name] = objects
            .slice()
            .sort((a, b) => compareCodePoints(storedIdentity(a[idName]), storedIdentity(b[idName])));
    }
    const entity = schemaOf(design, operation.entity);
    if (entity === undefined) refuse('entity.bad-value', `${quoteText(operation.entity)} is no entity of the model`);
    const objects = data[entity.name] ?? [];
    if (operation.kind === 'create')
        return { ...data, [entity.name]: [...objects, checkedNew(design, data, entity, operation.object, objects)] };
    const id = storedIdentity(operation.id);
    const at = findObject(objects, entity, id);
    if (at < 0) refuse('entity.not-found', `${entityName(entity.name, id)} does not exist`);
    const old = objects[at]!;
    if (operation.kind === 'delete') return deleted(design, data, entity, at, operation.detach === true);
    let object: EntityObject;
    switch (operation.kind) {
        case 'update':
            object = patched(entity, old, operation.patch);
            break;
        case 'set': {
            const reference = referenceNamed(entity, operation.reference, ['one', 'optional'], 'set');
            checkTargets(design, data, entity, reference, [operation.target]);
            object = { ...old, [reference.name]: operation.target };
            break;
        }
        case 'unset': {
            const reference = referenceNamed(entity, operation.reference, ['one', 'optional'], 'unset');
            if (reference.kind === 'one')
                refuse(
                    'entity.required-reference',
                    `${entity.name}.${reference.name} is required ([1]): it cannot be unset, only set to another ${reference.target}`,
                );
            object = { ...old, [reference.name]: null };
            break;
        }
        case 'add': {
            const reference = referenceNamed(entity, operation.reference, ['many'], 'add');
            const listed = listOf(old, reference);
            const seen = new Set(listed.map(storedIdentity));
            if (!Array.isArray(operation.targets))
                refuse('entity.bad-value', `${entity.name}.${reference.name}: add takes a list of identifiers`);
            for (const target of operation.targets) {
                checkIdShape(design, reference, target);
                if (seen.has(storedIdentity(target)))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} lists ${entityName(reference.target, target)} already (a reference lists a target once)`,
                    );
                seen.add(storedIdentity(target));
            }
            checkTargets(design, data, entity, reference, operation.targets);
            const list = [...listed, ...operation.targets];
            checkBounds(entity, id, reference, list.length);
            object = { ...old, [reference.name]: list };
            break;
        }
        case 'remove': {
            const reference = referenceNamed(entity, operation.reference, ['many'], 'remove');
            const listed = listOf(old, reference);
            const gone = new Set<string>();
            if (!Array.isArray(operation.targets))
                refuse('entity.bad-value', `${entity.name}.${reference.name}: remove takes a list of identifiers`);
            for (const target of operation.targets) {
                checkIdShape(design, reference, target);
                const identity = storedIdentity(target);
                if (gone.has(identity) || !listed.some((element) => storedIdentity(element) === identity))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} does not list ${entityName(reference.target, target)}`,
                    );
                gone.add(identity);
            }
            const list = listed.filter((element) => !gone.has(storedIdentity(element)));
            checkBounds(entity, id, reference, list.length);
            object = { ...old, [reference.name]: list };
            break;
        }
    }
    const changed = objects.slice();
    changed[at] = object;
    return { ...data, [entity.name]: changed };
}

// ---------------------------------------------------------------------------------------------------------------
// The rows: what the entities imply in every collection's table.

/** A row of a collection: its identity (the natural key's parts) and its item. */
interface Row {
    identity: string;
    values: unknown[];
    item: Record<string, unknown>;
}

/** The rows of one collection: every binding of its nodes (inner joins), by row identity. */
function collectionRows(
    design: DynamoEntityDesign,
    collection: DynamoRowCollection,
    data: EntityData,
): Map<string, Row> {
    const byId = new Map<string, Map<string, EntityObject>>();
    const indexOf = (entity: string) => {
        let index = byId.get(entity);
        if (index === undefined) {
            const idName = schemaOf(design, entity)?.idName ?? 'id';
            index = new Map((data[entity] ?? []).map((object) => [storedIdentity(object[idName]), object]));
            byId.set(entity, index);
        }
        return index;
    };
    const rows = new Map<string, Row>();
    const nodes = collection.nodes;
    const binding: EntityObject[] = new Array<EntityObject>(nodes.length);
    const emit = () => {
        const keyParts = collection.key.map((part) => storedIdentity(binding[part.node]![part.attribute]));
        const values = collection.fields.map((field) => binding[field.node]![field.attribute]);
        rows.set(JSON.stringify(keyParts), {
            identity: JSON.stringify(keyParts),
            values,
            item: itemOf(collection, keyParts, values),
        });
    };
    const bind = (position: number): void => {
        if (position === nodes.length) return emit();
        const node = nodes[position]!;
        const value = binding[node.parent]![node.reference];
        if (value === undefined || value === null) return;
        const targets = indexOf(node.entity);
        for (const id of Array.isArray(value) ? value : [value]) {
            const target = targets.get(storedIdentity(id));
            if (target === undefined) continue;
            binding[position] = target;
            bind(position + 1);
        }
    };
    for (const root of data[nodes[0]!.entity] ?? []) {
        binding[0] = root;
        bind(1);
    }
    return rows;
}

/** A row's item: its fields typed as the table holds them, and the key attributes of the table and every index. */
function itemOf(
    collection: DynamoRowCollection,
    keyParts: readonly string[],
    values: readonly unknown[],
): Record<string, unknown> {
    const item: Record<string, unknown> = {};
    const byField = new Map<string, unknown>();
    collection.fields.forEach((field, at) => {
        const value = values[at];
        byField.set(field.name, value);
        if (value !== undefined) item[field.name] = itemValue(field.type, value as string | number | boolean);
    });
    const rowKey = rowKeyText(keyParts);
    for (const key of collection.keys) {
        const part = (p: { field: string; type: KeyType }) => ({
            type: p.type,
            value: (byField.get(p.field) ?? '') as string | number | boolean,
        });
        const pk = partitionKey(key.partitionPrefix, key.partitionParts.map(part));
        const sk = sortKey(key.sortParts.map(part), rowKey);
        const bytes = (text: string) => new TextEncoder().encode(text).length;
        if (bytes(pk) > PARTITION_KEY_BYTES)
            throw new DynamoRowError(
                `collection ${collection.name}: the row ${keyParts.join(', ')} makes a partition key of ${bytes(pk)} bytes (${key.partitionParts.map((p) => p.field).join(', ')}), more than DynamoDB's ${PARTITION_KEY_BYTES}`,
            );
        if (bytes(sk) > SORT_KEY_BYTES)
            throw new DynamoRowError(
                `collection ${collection.name}: the row ${keyParts.join(', ')} makes a sort key of ${bytes(sk)} bytes (${[...key.sortParts.map((p) => p.field), 'the row key'].join(', ')}), more than DynamoDB's ${SORT_KEY_BYTES}`,
            );
        item[key.partitionAttribute] = pk;
        item[key.sortAttribute] = sk;
    }
    return item;
}

function sameValue(a: unknown, b: unknown): boolean {
    return a === b || (a !== a && b !== b);
}

/** The row items to put and delete, every table, that take the rows `before` implies to those `after` implies. */
export function rowSteps(design: DynamoEntityDesign, before: EntityData, after: EntityData): ChangeStep[] {
    const steps: ChangeStep[] = [];
    for (const collection of design.collections) {
        const old = collectionRows(design, collection, before);
        const now = collectionRows(design, collection, after);
        const base = collection.keys[0]!;
        const keyOf = (item: Record<string, unknown>) => ({
            [base.partitionAttribute]: item[base.partitionAttribute],
            [base.sortAttribute]: item[base.sortAttribute],
        });
        const byKey = new Map<string, ChangeStep>();
        const remove = (row: Row) => {
            const key = keyOf(row.item);
            const text = JSON.stringify(key);
            if (!byKey.has(text)) byKey.set(text, { table: collection.table, delete: key });
        };
        const changed: Row[] = [];
        for (const [identity, row] of old) {
            const next = now.get(identity);
            if (next === undefined) remove(row);
            else if (row.values.some((value, at) => !sameValue(value, next.values[at]))) {
                remove(row);
                changed.push(next);
            }
        }
        for (const [identity, row] of now)
            if (!old.has(identity))
                byKey.set(JSON.stringify(keyOf(row.item)), { table: collection.table, put: row.item });
        for (const row of changed)
            byKey.set(JSON.stringify(keyOf(row.item)), { table: collection.table, put: row.item });
        steps.push(...byKey.values());
    }
    return steps;
}

/** Every row item the entities imply, per table, by base key (the live check's expectation). */
export function rowItems(
    design: DynamoEntityDesign,
    data: EntityData,
): Map<string, Map<string, Record<string, unknown>>> {
    const tables = new Map<string, Map<string, Record<string, unknown>>>();
    for (const collection of design.collections) {
        const items = tables.get(collection.table) ?? new Map<string, Record<string, unknown>>();
        tables.set(collection.table, items);
        const base = collection.keys[0]!;
        for (const row of collectionRows(design, collection, data).values())
            items.set(
                JSON.stringify({
                    [base.partitionAttribute]: row.item[base.partitionAttribute],
                    [base.sortAttribute]: row.item[base.sortAttribute],
                }),
                row.item,
            );
    }
    return tables;
}

/** The objects an operation starts from: its own and the targets it names. */
function startOf(design: DynamoEntityDesign, operation: DynamoEntityOperation): EntityRef[] {
    const entity = schemaOf(design, operation.entity);
    if (entity === undefined) return [];
    const start: EntityRef[] = [];
    const valid = (id: unknown) => typeof id === 'string' || typeof id === 'number';
    if (operation.kind === 'create') {
        if (!isPlainObject(operation.object)) return [];
        const id = operation.object[entity.idName];
        if (valid(id)) start.push({ entity: entity.name, id: storedIdentity(id) });
        for (const reference of entity.references) {
            const value = operation.object[reference.name];
            for (const target of Array.isArray(value) ? value : [value])
                if (valid(target)) start.push({ entity: reference.target, id: storedIdentity(target) });
        }
        return start;
    }
    if (valid(operation.id)) start.push({ entity: entity.name, id: storedIdentity(operation.id) });
    const named = (name: string) => entity.references.find((reference) => reference.name === name)?.target;
    if (operation.kind === 'set') {
        const target = named(operation.reference);
        if (target !== undefined && valid(operation.target))
            start.push({ entity: target, id: storedIdentity(operation.target) });
    }
    if (operation.kind === 'add' || operation.kind === 'remove') {
        const target = named(operation.reference);
        if (target !== undefined && Array.isArray(operation.targets))
            for (const id of operation.targets) if (valid(id)) start.push({ entity: target, id: storedIdentity(id) });
    }
    return start;
}

/** The planner of the protocol for a design: the semantics above, stated from its data. */
export function designPlanner(design: DynamoEntityDesign): DynamoChangePlanner<DynamoEntityOperation> {
    return {
        idName: (entity) => schemaOf(design, entity)?.idName ?? 'id',
        references: (entity) => schemaOf(design, entity)?.references ?? [],
        startOf: (operation) => startOf(design, operation),
        versioned: (operation) =>
            operation.kind === 'update' ? { entity: operation.entity, id: storedIdentity(operation.id) } : null,
        apply(before, operation): PlannedChange {
            try {
                return { ok: true, data: applyOperation(design, before, operation) };
            } catch (error) {
                if (error instanceof EntityError) return { ok: false, code: error.code, message: error.message };
                throw error;
            }
        },
        rowSteps: (before, after) => rowSteps(design, before, after),
        describe: (operation) => `the ${operation.kind} of ${operation.entity}`,
    };
}

// ---------------------------------------------------------------------------------------------------------------
// The API of the generated client.

/** What one operation did: the entity's version after it (0 after a delete), the row items it put and deleted. */
export interface EntityWrite {
    version: number;
    rowsWritten: number;
    rowsDeleted: number;
}

export type { EntityErrorCode };

/** Options of an operation: a fault hook (tests), the lease of a started change. */
export interface DynamoWriteOptions {
    /** Called after each write (tests kill the writer here by throwing). */
    fault?: FaultHook;
    /** How long another writer's pending change is left to it (default 5 s). */
    leaseMs?: number;
}

function protocolOf(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    leaseMs?: number,
): DynamoEntityProtocol<DynamoEntityOperation> {
    return {
        documents,
        entityTable: design.entityTable,
        planner: designPlanner(design),
        ...(leaseMs === undefined ? {} : { leaseMs }),
    };
}

/**
 * Runs one operation (first completing a change another writer left, as every operation does); a refusal throws an
 * `EntityError` and writes nothing.
 */
export async function runEntityOperation(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    operation: DynamoEntityOperation,
    options: UpdateOptions = {},
): Promise<EntityWrite> {
    const ifVersion = options.ifVersion;
    if (ifVersion !== undefined && (!Number.isSafeInteger(ifVersion) || ifVersion < 0))
        refuse('entity.bad-value', `ifVersion must be a version number (an integer from 0), got ${String(ifVersion)}`);
    const outcome = await executeEntityOperation(protocolOf(documents, design, options.leaseMs), operation, {
        ...(ifVersion === undefined ? {} : { ifVersion }),
        ...(options.fault === undefined ? {} : { fault: options.fault }),
    });
    if (!outcome.ok) refuse(outcome.code, outcome.message);
    const rows = { rowsWritten: outcome.rowsWritten, rowsDeleted: outcome.rowsDeleted };
    if (operation.kind === 'delete') return { version: 0, ...rows };
    const id =
        operation.kind === 'create' ? operation.object[schemaOf(design, operation.entity)!.idName] : operation.id;
    const read = await readEntity({ documents, entityTable: design.entityTable }, operation.entity, storedIdentity(id));
    return { version: read?.version ?? 0, ...rows };
}

/** Options of an update: refused (`entity.conflict`) unless the entity's version is `ifVersion`. */
export interface UpdateOptions extends DynamoWriteOptions {
    ifVersion?: number;
}

/** Options of a delete: `detach` removes the id from the `[*]` and `[0..1]` references that hold it. */
export interface DeleteOptions extends DynamoWriteOptions {
    detach?: boolean;
}

/** Creates an entity: every attribute, and its references (`[1]` required, `[0..1]` null or left out, `[*]` a list). */
export function createEntity(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    object: object,
    options: DynamoWriteOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(documents, design, { kind: 'create', entity, object: object as EntityObject }, options);
}

/** Changes the given attributes of an entity: a property left out or `undefined` keeps its value. */
export function updateEntity(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
    patch: object,
    options: UpdateOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(
        documents,
        design,
        { kind: 'update', entity, id: id as DynamoEntityId, patch: patch as Record<string, unknown> },
        options,
    );
}

/**
 * Deletes an entity with every row it contributes to. Refused (`entity.still-referenced`) while others reference
 * it, unless `detach` removes it from the `[*]` and `[0..1]` references that hold it.
 */
export function deleteEntity(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
    options: DeleteOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(
        documents,
        design,
        { kind: 'delete', entity, id: id as DynamoEntityId, ...(options.detach === true ? { detach: true } : {}) },
        {
            ...(options.fault === undefined ? {} : { fault: options.fault }),
            ...(options.leaseMs === undefined ? {} : { leaseMs: options.leaseMs }),
        },
    );
}

/** Sets a `[1]` or `[0..1]` reference to a target's identifier; null unsets a `[0..1]` one. */
export function setReference(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
    reference: string,
    target: unknown,
    options: DynamoWriteOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(
        documents,
        design,
        target === null || target === undefined
            ? { kind: 'unset', entity, id: id as DynamoEntityId, reference }
            : { kind: 'set', entity, id: id as DynamoEntityId, reference, target: target as DynamoEntityId },
        options,
    );
}

/** Adds targets to a `[*]` reference (each at most once), after those it lists. */
export function addReferences(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
    reference: string,
    targets: readonly unknown[],
    options: DynamoWriteOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(
        documents,
        design,
        { kind: 'add', entity, id: id as DynamoEntityId, reference, targets: [...targets] as DynamoEntityId[] },
        options,
    );
}

/** Removes targets from a `[*]` reference. */
export function removeReferences(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
    reference: string,
    targets: readonly unknown[],
    options: DynamoWriteOptions = {},
): Promise<EntityWrite> {
    return runEntityOperation(
        documents,
        design,
        { kind: 'remove', entity, id: id as DynamoEntityId, reference, targets: [...targets] as DynamoEntityId[] },
        options,
    );
}

/** Reads one entity by its identifier (its attributes and references, and its version), or null. */
export async function getEntity(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
    entity: string,
    id: unknown,
): Promise<{ object: Record<string, unknown>; version: number } | null> {
    if (schemaOf(design, entity) === undefined)
        refuse('entity.bad-value', `${quoteText(entity)} is no entity of the model`);
    return readEntity({ documents, entityTable: design.entityTable }, entity, storedIdentity(id));
}

/**
 * Carries out the change a writer left pending (a writer that stopped between its start and its last step), if any:
 * run it after a crash, when that writer is known to be gone (an operation does it too, once the change's lease has
 * passed). True when there was one.
 */
export async function completePendingChanges(
    documents: DynamoDBDocumentClient,
    design: DynamoEntityDesign,
): Promise<boolean> {
    return (await completePendingChange({ documents, entityTable: design.entityTable }, { takeOver: true })) === 'done';
}
