// Copied by kvmod from its src/generation/shared/entity-store.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The entity store of a Redis design (issue 28; docs/design/entity-store.md): how each entity instance is kept on
 * the server beside the collection rows, and how one entity operation is sent to the design's entity Function.
 * One module for everything that must agree byte for byte between the writers — the server's Function (which
 * copies the stored forms into rows and never encodes), the typed client (embedded verbatim), `kvmod load` (bulk)
 * and the live check (which reads the entities back): no imports but the shared encoding rules and the error codes.
 *
 * Keys (database `shop`; the hash tag is the entity, so on a cluster an entity and its reverse references share a slot):
 *
 *     kvmod:shop:{Book:978-1}                    HASH  stored forms, `>ref` fields, `_v`
 *     kvmod:shop:{Tag:sf}:<Book.tags             HASH  one field per referrer id (value ""): who references Tag sf
 *
 * An entity hash holds, per attribute, its stored form (`encodeRedisValue`) under the attribute's name and the
 * companions the design's collections copy (`title#sort`: `encodeSortKey`; `title#eq`: the dialect's equality form);
 * per reference `>name`: the target's stored identifier (`[1]`, `[0..1]`; absent when empty) or a JSON array of them
 * (`[*]`, in the order written; `[]` when empty); and `_v`, the version (1 at create, +1 per operation). `#`, `>`
 * and `_v` cannot clash with PIDM attribute names.
 *
 * A counter-key collection (`--key counter`) numbers its rows with an INCR, so a row's key cannot be derived from the
 * entities: its row map, a hash beside its counter, names each row by its binding (the stored identifiers of the
 * objects bound at its nodes, root first) and holds the row's number:
 *
 *     idx:Q3_v1:rows                             HASH  `978-1:sf` → `17` (the row `idx:Q3_v1:17`)
 */
import { ENTITY_ERROR_CODES, type EntityErrorCode } from './entity-error-codes.js';
import { decodeRedisValue, encodeRedisValue, encodeSortKey, type RedisLogicalType } from './redis-encoding.js';
import type { RedisDialect } from './redis-dialects.js';
import { unservableNumber } from './redis-number-rules.js';
import { equalityForm, REDIS_TEXT_RULES } from './redis-text-rules.js';

export type { EntityErrorCode } from './entity-error-codes.js';

/** A companion form an attribute's collections copy besides its stored form. */
export type EntityForm = 'sort' | 'eq';

export interface EntityAttributeSchema {
    name: string;
    type: RedisLogicalType;
    /** The companions stored beside the stored form (those some collection of the design copies). */
    forms: EntityForm[];
    /** Some query of the design compares it by equality / sorts on it: its values must be servable (`unservable`). */
    compared?: boolean;
    sorted?: boolean;
}

export interface EntityReferenceSchema {
    name: string;
    target: string;
    kind: 'one' | 'optional' | 'many';
    /** Fewest targets of a `[*]` reference (`[1..*]` → 1). */
    minItems: number;
    /** Most targets of a bounded `[*]` reference. */
    maxItems?: number;
}

export interface EntitySchema {
    name: string;
    /** The identifier attribute (`_id` for an entity without one). */
    idName: string;
    idType: RedisLogicalType;
    /** Every attribute, the identifier first. */
    attributes: EntityAttributeSchema[];
    references: EntityReferenceSchema[];
    /** The references of other entities (or of this one) that point at this entity: its reverse hashes. */
    referrers: { entity: string; reference: string }[];
}

/** What every writer and reader of a design's entities needs: part of the generated client's design. */
export interface EntityStoreSchema {
    /** The KVLM database name: the middle of every entity key. */
    database: string;
    /** The Function that runs one entity operation (`FCALL <functionName> 0 <op> …`). */
    functionName: string;
    /** The RediSearch dialect whose text and number rules values must pass; null when every value is servable (redis-core). */
    dialect: RedisDialect | null;
    entities: Record<string, EntitySchema>;
}

/** The first part of every entity key. */
export const ENTITY_KEY_ROOT = 'kvmod';
/** The version field of an entity hash. */
export const VERSION_FIELD = '_v';

/** The Function of a design's entity operations. */
export function entityFunctionName(database: string): string {
    return `kvmod_${database}_entity`;
}

/** An identifier inside a key: `%` `:` `{` `}` escaped, so the hash tag and the separators stay unambiguous. */
export function escapeEntityId(id: string): string {
    return /[%:{}]/.test(id)
        ? id.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\{/g, '%7B').replace(/\}/g, '%7D')
        : id;
}

/** The key of one entity instance; `id` is the identifier's stored form. */
export function entityKey(database: string, entity: string, id: string): string {
    return `${ENTITY_KEY_ROOT}:${database}:{${entity}:${escapeEntityId(id)}}`;
}

/** The SCAN pattern of a design's entity hashes (reverse hashes end after the `}`, so they do not match). */
export function entityKeyPattern(database: string, entity?: string): string {
    return `${ENTITY_KEY_ROOT}:${database}:{${entity === undefined ? '' : `${entity}:`}*}`;
}

/** The key of the hash listing who references `target` `targetId` through `source.reference`. */
export function reverseKey(
    database: string,
    target: string,
    targetId: string,
    source: string,
    reference: string,
): string {
    return `${entityKey(database, target, targetId)}:<${source}.${reference}`;
}

/** The hash field of an attribute's stored form or of one of its companions. */
export function formField(attribute: string, form?: EntityForm): string {
    return form === undefined ? attribute : `${attribute}#${form}`;
}

/** The row map of a counter-key collection: beside its counter (`…counter` → `…rows`). */
export function rowMapKey(counterKey: string): string {
    if (!counterKey.endsWith('counter')) throw new RangeError(`${JSON.stringify(counterKey)} is no counter key`);
    return `${counterKey.slice(0, -'counter'.length)}rows`;
}

/** A row's field in its collection's row map: the stored identifiers of its binding, root first, escaped, `:`-joined. */
export function rowBindingField(storedIds: readonly string[]): string {
    return storedIds.map(escapeEntityId).join(':');
}

/** The hash field of a reference. */
export function referenceField(reference: string): string {
    return `>${reference}`;
}

/** The companion of a stored text. */
export function companionForm(form: EntityForm, text: string): string {
    return form === 'sort' ? encodeSortKey(text) : equalityForm(text);
}

/** The stored form of an identifier of `entity` (what keys, `>ref` fields and reverse hashes hold). */
export function storedId(schema: EntityStoreSchema, entity: string, id: unknown): string {
    return encodeRedisValue(entitySchema(schema, entity).idType, id);
}

export function entitySchema(schema: EntityStoreSchema, entity: string): EntitySchema {
    const found = Object.prototype.hasOwnProperty.call(schema.entities, entity) ? schema.entities[entity] : undefined;
    if (found === undefined) throw new RangeError(`${JSON.stringify(entity)} is no entity of the design`);
    return found;
}

/** The hash fields (name, value, name, value…) of one attribute value: its stored form and companions. */
export function attributeFields(attribute: EntityAttributeSchema, value: unknown): string[] {
    const stored = encodeRedisValue(attribute.type, value);
    const fields = [attribute.name, stored];
    for (const form of attribute.forms) fields.push(formField(attribute.name, form), companionForm(form, stored));
    return fields;
}

/** The stored value of a reference (undefined: the field is absent), from the object's targets. */
export function referenceValue(
    schema: EntityStoreSchema,
    reference: EntityReferenceSchema,
    value: unknown,
): string | undefined {
    if (reference.kind === 'many') {
        const list = value === undefined || value === null ? [] : (value as unknown[]);
        return JSON.stringify(list.map((target) => storedId(schema, reference.target, target)));
    }
    return value === undefined || value === null ? undefined : storedId(schema, reference.target, value);
}

/** Every field of a new entity's hash but the version: attributes with their companions, then references. */
export function entityHashFields(schema: EntityStoreSchema, entity: string, object: object): string[] {
    const e = entitySchema(schema, entity);
    const source = object as Readonly<Record<string, unknown>>;
    const fields: string[] = [];
    for (const attribute of e.attributes) fields.push(...attributeFields(attribute, source[attribute.name]));
    for (const reference of e.references) {
        const stored = referenceValue(schema, reference, source[reference.name]);
        if (stored !== undefined) fields.push(referenceField(reference.name), stored);
    }
    return fields;
}

/**
 * Why the design cannot serve an attribute value (a compared or sorted text the engine would miss or misorder, a
 * compared float it would round), or null: checked by the writers before anything is sent (`entity.unservable-value`).
 */
export function unservableReason(
    schema: EntityStoreSchema,
    attribute: EntityAttributeSchema,
    value: unknown,
): string | null {
    if (schema.dialect === null) return null;
    if (typeof value === 'number') return attribute.compared === true ? unservableNumber(schema.dialect, value) : null;
    if (typeof value !== 'string' || attribute.type !== 'text') return null;
    const rules = REDIS_TEXT_RULES[schema.dialect];
    return (
        (attribute.compared === true ? rules.unservable(value) : null) ??
        (attribute.sorted === true ? rules.unsortable(value) : null)
    );
}

/** The targets a stored reference names, as stored identifiers. */
export function storedTargets(reference: EntityReferenceSchema, stored: string | undefined): string[] {
    if (stored === undefined || stored === '') return [];
    return reference.kind === 'many' ? (JSON.parse(stored) as string[]) : [stored];
}

/** An entity read back: the object as the application wrote it (logical values) and its version. */
export interface StoredEntity {
    object: Record<string, unknown>;
    version: number;
}

/** Decodes an entity hash (HGETALL) into the object and its version; companions are not read. */
export function decodeEntityHash(
    schema: EntityStoreSchema,
    entity: string,
    hash: Readonly<Record<string, string>>,
): StoredEntity {
    const e = entitySchema(schema, entity);
    const object: Record<string, unknown> = {};
    for (const attribute of e.attributes) {
        const stored = hash[attribute.name];
        if (stored !== undefined) object[attribute.name] = decodeRedisValue(attribute.type, stored);
    }
    for (const reference of e.references) {
        const idType = entitySchema(schema, reference.target).idType;
        const targets = storedTargets(reference, hash[referenceField(reference.name)]).map((id) =>
            decodeRedisValue(idType, id),
        );
        object[reference.name] = reference.kind === 'many' ? targets : (targets[0] ?? null);
    }
    return { object, version: Number(hash[VERSION_FIELD] ?? 0) };
}

/**
 * One entity operation as the Function takes it: `FCALL <function> 0 <op> <Entity> <stored id> …`, with
 * - `create`: the new hash's fields (`entityHashFields`);
 * - `update <ifVersion|''>`: the changed attributes' fields (`attributeFields`), never a reference;
 * - `delete <0|1>`: 1 detaches the id from `[*]` and `[0..1]` referrers;
 * - `set <ref> <target>` / `unset <ref>` / `add <ref> <target…>` / `remove <ref> <target…>`: stored identifiers.
 * The reply is `[version, rowsWritten, rowsDeleted]`; a refusal is an error `KVMOD_<CODE> <sentence>`.
 */
export type EntityCall =
    | { op: 'create'; entity: string; id: string; fields: string[] }
    | { op: 'update'; entity: string; id: string; ifVersion?: number; fields: string[] }
    | { op: 'delete'; entity: string; id: string; detach: boolean }
    | { op: 'set'; entity: string; id: string; reference: string; target: string }
    | { op: 'unset'; entity: string; id: string; reference: string }
    | { op: 'add' | 'remove'; entity: string; id: string; reference: string; targets: string[] };

/** The FCALL arguments of one call. */
export function entityCallArgv(schema: EntityStoreSchema, call: EntityCall): string[] {
    const head = ['FCALL', schema.functionName, '0', call.op, call.entity, call.id];
    switch (call.op) {
        case 'create':
            return [...head, ...call.fields];
        case 'update':
            return [...head, call.ifVersion === undefined ? '' : String(call.ifVersion), ...call.fields];
        case 'delete':
            return [...head, call.detach ? '1' : '0'];
        case 'set':
            return [...head, call.reference, call.target];
        case 'unset':
            return [...head, call.reference];
        case 'add':
        case 'remove':
            return [...head, call.reference, ...call.targets];
    }
}

/** What the Function reports of a done operation. */
export interface EntityWrite {
    /** The entity's version after the operation (0 after a delete). */
    version: number;
    rowsWritten: number;
    rowsDeleted: number;
}

export function parseEntityReply(reply: unknown): EntityWrite {
    const [version, rowsWritten, rowsDeleted] = Array.isArray(reply) ? (reply as unknown[]).map(Number) : [];
    return { version: version ?? 0, rowsWritten: rowsWritten ?? 0, rowsDeleted: rowsDeleted ?? 0 };
}

/** The server's error prefix of a code: `entity.still-referenced` → `KVMOD_STILL_REFERENCED`. */
export function serverErrorPrefix(code: EntityErrorCode): string {
    return `KVMOD_${code.slice('entity.'.length).replace(/-/g, '_').toUpperCase()}`;
}

/** Who still references a deleted id, per referring reference (at most 5 ids named). */
export interface EntityReferrer {
    entity: string;
    reference: string;
    count: number;
    sample: string[];
}

/** Marks the JSON list of referrers at the end of a `KVMOD_STILL_REFERENCED` error. */
export const REFERRERS_MARK = ' | referrers=';

/**
 * A refusal read from a server error, or null for any other error — a `KVMOD_` prefix of no known code included
 * (a newer server's code is not passed off as one this client knows).
 */
export function parseEntityError(
    message: string,
): { code: EntityErrorCode; message: string; referrers?: EntityReferrer[] } | null {
    const match = /^(?:ERR )?KVMOD_([A-Z_]+) ([\s\S]*)$/.exec(message);
    if (match === null) return null;
    const code = ENTITY_ERROR_CODES.find(
        (known) => known === `entity.${(match[1] ?? '').toLowerCase().replace(/_/g, '-')}`,
    );
    if (code === undefined) return null;
    let text = match[2] ?? '';
    const at = text.indexOf(REFERRERS_MARK);
    if (at < 0) return { code, message: text };
    const referrers = JSON.parse(text.slice(at + REFERRERS_MARK.length)) as EntityReferrer[];
    text = text.slice(0, at);
    return { code, message: text, referrers };
}
