/**
 * Entity operations (issue 28) and what each one does to instance data, in memory: the semantics every writer of
 * entities shares — the server's entity Function, the typed client, the workload's expectation and the cluster and
 * DynamoDB step engines. An operation either gives new data that passes the checks `kvmod load` applies to a data
 * file (`validateInstanceData`, and `unservableValues` under the design's text rules), or is refused with a stable
 * code and a plain sentence, the data left as it was (the same object).
 *
 * Deleting an entity that others still reference is refused, naming the referrers: there is no cascade, because
 * PIDM has no syntax that says a reference owns its target, and a delete that silently removed other entities (or
 * rows of other queries) could not be undone. `detach: true` asks instead that the deleted id be taken out of every
 * `[*]` list and `[0..1]` reference that holds it, in the same operation; a `[1]` referrer still refuses the delete
 * (its reference cannot be left empty), and so does a list with a lower bound (`[1..*]`). An object that references
 * itself is no referrer of its own delete: nothing would be left pointing at the missing id.
 */
import type { EntityErrorCode } from '../../generation/entity-error-codes.js';
import { startsWithCalendarDate } from '../../language/common/calendar-date.js';
import type { LogicalType } from '../../language/pidm/pidm-semantics.js';
import { quoteText } from '../../pipeline/json-text.js';
import {
    identityOf,
    objectLocation,
    fitsAttributeType,
    type InstanceData,
    type InstanceObject,
    type InstanceValue,
} from '../instance-data.js';
import type { RuntimeAttribute, RuntimeEntity, RuntimeModel, RuntimeReference } from '../runtime-model.js';
import { unservableValues, type TextRules } from '../servable-values.js';

/** An identifier as instance data holds it (a numeric target's may be a number; `7` and `"7"` are one id). */
export type EntityId = string | number;

/** A new entity: every attribute, and its references by identifier (`[0..1]` and `[*]` may be left out). */
export interface CreateOperation {
    kind: 'create';
    entity: string;
    object: InstanceObject;
}

/**
 * A patch of attributes: only the given ones change; a property whose value is `undefined` is not given (it never
 * means "drop this field"). The identifier may be given only with its current value. References change through
 * their own operations.
 */
export interface UpdateOperation {
    kind: 'update';
    entity: string;
    id: EntityId;
    patch: Record<string, InstanceValue | undefined>;
}

export interface DeleteOperation {
    kind: 'delete';
    entity: string;
    id: EntityId;
    /** Take the id out of `[*]` and `[0..1]` referrers instead of refusing (see the module comment). */
    detach?: boolean;
}

/** Points a `[1]` or `[0..1]` reference at an existing target. */
export interface SetReferenceOperation {
    kind: 'set';
    entity: string;
    id: EntityId;
    reference: string;
    target: EntityId;
}

/** Empties a `[0..1]` reference (a `[1]` one is never empty). */
export interface UnsetReferenceOperation {
    kind: 'unset';
    entity: string;
    id: EntityId;
    reference: string;
}

/** Appends targets to a `[*]` reference (none already listed, each listed once). */
export interface AddReferenceOperation {
    kind: 'add';
    entity: string;
    id: EntityId;
    reference: string;
    targets: EntityId[];
}

/** Takes targets out of a `[*]` reference (each one listed), keeping the order of the others. */
export interface RemoveReferenceOperation {
    kind: 'remove';
    entity: string;
    id: EntityId;
    reference: string;
    targets: EntityId[];
}

export type EntityOperation =
    | CreateOperation
    | UpdateOperation
    | DeleteOperation
    | SetReferenceOperation
    | UnsetReferenceOperation
    | AddReferenceOperation
    | RemoveReferenceOperation;

/** The stable codes of a refused operation (the server's `KVMOD_<CODE>` errors and the client's map to them). */
export { ENTITY_ERROR_CODES, type EntityErrorCode } from '../../generation/entity-error-codes.js';

/** The objects of one reference that hold a deleted id: at most `MAX_REFERRER_SAMPLE` of their ids. */
export interface Referrer {
    entity: string;
    reference: string;
    count: number;
    sample: string[];
}

/** How many referrer ids a refused delete names per reference. */
export const MAX_REFERRER_SAMPLE = 5;

export interface EntityRefusal {
    code: EntityErrorCode;
    message: string;
    /** For `entity.still-referenced`: who holds the id, per referring reference. */
    referrers?: Referrer[];
}

export type EntityOutcome =
    { ok: true; data: InstanceData } | { ok: false; data: InstanceData; refusal: EntityRefusal };

export interface EntityOperationOptions {
    /** The design's text rules: without them no value is refused as unservable. */
    rules?: TextRules;
}

/** Thrown inside `applyEntityOperation` and turned into its refusal. */
class Refused extends Error {
    constructor(readonly refusal: EntityRefusal) {
        super(refusal.message);
    }
}

function refuse(code: EntityErrorCode, message: string, referrers?: Referrer[]): never {
    throw new Refused(referrers === undefined ? { code, message } : { code, message, referrers });
}

/**
 * Applies one operation to instance data: new data (the input is never modified; unchanged entities share their
 * arrays) or a refusal with the input data as it is. Every check is made before anything is built, as the server
 * checks before its first write.
 */
export function applyEntityOperation(
    model: RuntimeModel,
    data: InstanceData,
    operation: EntityOperation,
    options: EntityOperationOptions = {},
): EntityOutcome {
    try {
        return { ok: true, data: apply(model, data, operation, options) };
    } catch (error) {
        if (error instanceof Refused) return { ok: false, data, refusal: error.refusal };
        throw error;
    }
}

/** The plain name of an object in messages: `Book "978-1"`. */
export function entityName(entity: string, id: unknown): string {
    return `${entity} ${quoteText(identityOf(id))}`;
}

function apply(
    model: RuntimeModel,
    data: InstanceData,
    operation: EntityOperation,
    options: EntityOperationOptions,
): InstanceData {
    const entity = model.entities.get(operation.entity);
    if (entity === undefined) refuse('entity.bad-value', `${quoteText(operation.entity)} is no entity of the model`);
    const objects = data[entity.name] ?? [];
    if (operation.kind === 'create') {
        const object = checkedNew(model, data, entity, operation.object, objects);
        checkServable(model, entity, object, options);
        return { ...data, [entity.name]: [...objects, object] };
    }
    const id = identityOf(operation.id);
    const at = findObject(objects, entity, id);
    if (at < 0) refuse('entity.not-found', `${entityName(entity.name, id)} does not exist`);
    const old = objects[at];
    if (operation.kind === 'delete') return deleted(model, data, entity, at, operation.detach === true);
    let object: InstanceObject;
    switch (operation.kind) {
        case 'update':
            object = patched(entity, old, operation.patch);
            checkServable(model, entity, object, options);
            break;
        case 'set': {
            const reference = referenceNamed(entity, operation.reference, ['one', 'optional'], 'set');
            checkTargets(model, data, entity, reference, [operation.target]);
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
            const seen = new Set(listed.map(identityOf));
            for (const target of operation.targets) {
                checkIdShape(model, reference, target);
                if (seen.has(identityOf(target)))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} lists ${entityName(reference.target, target)} already (a reference lists a target once)`,
                    );
                seen.add(identityOf(target));
            }
            checkTargets(model, data, entity, reference, operation.targets);
            const list = [...listed, ...operation.targets];
            checkBounds(entity, id, reference, list.length);
            object = { ...old, [reference.name]: list };
            break;
        }
        case 'remove': {
            const reference = referenceNamed(entity, operation.reference, ['many'], 'remove');
            const listed = listOf(old, reference);
            const gone = new Set<string>();
            for (const target of operation.targets) {
                checkIdShape(model, reference, target);
                const identity = identityOf(target);
                if (gone.has(identity) || !listed.some((element) => identityOf(element) === identity))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} does not list ${entityName(reference.target, target)}`,
                    );
                gone.add(identity);
            }
            const list = listed.filter((element) => !gone.has(identityOf(element)));
            checkBounds(entity, id, reference, list.length);
            object = { ...old, [reference.name]: list };
            break;
        }
    }
    const changed = objects.slice();
    changed[at] = object;
    return { ...data, [entity.name]: changed };
}

/** The position of the object with identity `id`, or -1. */
export function findObject(objects: readonly InstanceObject[], entity: RuntimeEntity, id: string): number {
    for (let i = 0; i < objects.length; i++) if (identityOf(objects[i][entity.idName]) === id) return i;
    return -1;
}

/** A created object, checked and copied field by field in declaration order (left-out lists become `[]`). */
function checkedNew(
    model: RuntimeModel,
    data: InstanceData,
    entity: RuntimeEntity,
    given: InstanceObject,
    objects: readonly InstanceObject[],
): InstanceObject {
    if (typeof given !== 'object' || given === null || Array.isArray(given))
        refuse('entity.bad-value', `a new ${entity.name} must be an object of its attributes and references`);
    // The identifier first: a create of an id that exists is refused as such, whatever else it holds.
    const idValue = given[entity.idName];
    if (idValue === undefined || idValue === null)
        refuse('entity.bad-value', `a new ${entity.name} needs its identifier ${entity.idName}`);
    checkValue(entity, undefined, entity.attributes[0], idValue);
    const id = identityOf(idValue);
    if (id === '')
        refuse('entity.bad-value', `${entity.name}.${entity.idName}: the identifier is empty; every object needs one`);
    if (findObject(objects, entity, id) >= 0) refuse('entity.exists', `${entityName(entity.name, id)} exists already`);
    checkKnownFields(
        entity,
        Object.keys(given).filter((name) => given[name] !== undefined),
        true,
    );
    const object: InstanceObject = {};
    for (const attribute of entity.attributes) {
        const value = given[attribute.name];
        if (value === undefined)
            refuse('entity.bad-value', `a new ${entity.name} needs its attribute ${attribute.name}`);
        checkValue(entity, idValue, attribute, value);
        object[attribute.name] = value;
    }
    for (const reference of entity.references) {
        const value = given[reference.name];
        if (reference.kind === 'one') {
            if (value === undefined || value === null)
                refuse(
                    'entity.required-reference',
                    `${entityName(entity.name, id)}.${reference.name} is required ([1]): name a ${reference.target}`,
                );
            if (Array.isArray(value))
                refuse('entity.bad-value', `${entity.name}.${reference.name} holds one identifier`);
            checkIdShape(model, reference, value);
            checkTargets(model, data, entity, reference, [value]);
            object[reference.name] = value;
        } else if (reference.kind === 'optional') {
            if (value === undefined || value === null) {
                // Left out and null are one state: null is what data files and `unset` hold.
                object[reference.name] = null;
                continue;
            }
            if (Array.isArray(value))
                refuse('entity.bad-value', `${entity.name}.${reference.name} holds one identifier`);
            checkIdShape(model, reference, value);
            checkTargets(model, data, entity, reference, [value]);
            object[reference.name] = value;
        } else {
            const list = value === undefined ? [] : value;
            if (!Array.isArray(list))
                refuse('entity.bad-value', `${entity.name}.${reference.name} holds a list of identifiers`);
            const seen = new Set<string>();
            for (const target of list) {
                checkIdShape(model, reference, target);
                if (seen.has(identityOf(target)))
                    refuse(
                        'entity.bad-value',
                        `${entityName(entity.name, id)}.${reference.name} lists ${entityName(reference.target, target)} twice`,
                    );
                seen.add(identityOf(target));
            }
            checkBounds(entity, id, reference, list.length);
            checkTargets(model, data, entity, reference, list);
            object[reference.name] = [...list];
        }
    }
    return object;
}

/** The object after a patch of attributes: `undefined` properties are not given, references are refused. */
function patched(
    entity: RuntimeEntity,
    old: InstanceObject,
    patch: Record<string, InstanceValue | undefined>,
): InstanceObject {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
        refuse('entity.bad-value', `a patch of ${entity.name} must be an object of attributes`);
    const given = Object.keys(patch).filter((name) => patch[name] !== undefined);
    checkKnownFields(entity, given, false);
    const id = old[entity.idName];
    const object = { ...old };
    for (const name of given) {
        const attribute = entity.attributes.find((candidate) => candidate.name === name)!;
        const value = patch[name]!;
        if (attribute.isId) {
            if (identityOf(value) !== identityOf(id))
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

/** Refuses a field name the entity does not have; a patch may not name a reference. */
function checkKnownFields(entity: RuntimeEntity, names: readonly string[], referencesToo: boolean): void {
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

/** Why a value is no value of the type (the instance-data schema's rule, and calendar dates), or null. */
export function valueProblem(type: LogicalType, value: unknown): string | null {
    if (fitsAttributeType(type, value))
        return (type === 'date' || type === 'datetime') && !startsWithCalendarDate(value as string)
            ? 'is not a calendar date'
            : null;
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

function checkValue(entity: RuntimeEntity, id: unknown, attribute: RuntimeAttribute, value: unknown): void {
    const problem = valueProblem(attribute.type, value);
    if (problem === null) return;
    const shown = typeof value === 'string' ? quoteText(value) : String(value);
    const owner = id === undefined || id === null ? `a new ${entity.name}` : entityName(entity.name, id);
    refuse('entity.bad-value', `${owner}.${attribute.name} ${problem} (${attribute.type}); got ${shown}`);
}

/** Refuses an identifier of the wrong shape: a text, or a number where the target's identifier is numeric. */
function checkIdShape(model: RuntimeModel, reference: RuntimeReference, target: unknown): asserts target is EntityId {
    const idType = model.entities.get(reference.target)?.idType;
    const numeric = idType === 'int' || idType === 'float';
    if (typeof target === 'string' || (numeric && typeof target === 'number' && Number.isFinite(target))) return;
    refuse(
        'entity.bad-value',
        `${reference.name} holds identifiers of ${reference.target} (${numeric ? 'texts or numbers' : 'texts'}); got ${String(target)}`,
    );
}

function checkTargets(
    model: RuntimeModel,
    data: InstanceData,
    entity: RuntimeEntity,
    reference: RuntimeReference,
    targets: readonly EntityId[],
): void {
    const target = model.entities.get(reference.target);
    if (target === undefined) refuse('entity.missing-target', `${reference.target} is no entity of the model`);
    const objects = data[target.name] ?? [];
    for (const id of targets) {
        checkIdShape(model, reference, id);
        if (findObject(objects, target, identityOf(id)) < 0)
            refuse(
                'entity.missing-target',
                `${entity.name}.${reference.name}: ${entityName(target.name, id)} does not exist`,
            );
    }
}

function checkBounds(entity: RuntimeEntity, id: string, reference: RuntimeReference, length: number): void {
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

function referenceNamed(
    entity: RuntimeEntity,
    name: string,
    kinds: RuntimeReference['kind'][],
    operation: string,
): RuntimeReference {
    const reference = entity.references.find((candidate) => candidate.name === name);
    if (reference === undefined) refuse('entity.bad-value', `${entity.name} has no reference ${quoteText(name)}`);
    if (!kinds.includes(reference.kind))
        refuse(
            'entity.bad-value',
            `${entity.name}.${reference.name} is a ${reference.kind === 'many' ? '[*]' : '[1] or [0..1]'} reference: ${operation} does not apply (use ${reference.kind === 'many' ? 'add or remove' : 'set or unset'})`,
        );
    return reference;
}

/** The identifiers a `[*]` reference lists (none when left out). */
function listOf(object: InstanceObject, reference: RuntimeReference): EntityId[] {
    const value = object[reference.name];
    return Array.isArray(value) ? value : [];
}

/** Refuses a value the design could not serve: the screen `kvmod load` applies, on this one object. */
function checkServable(
    model: RuntimeModel,
    entity: RuntimeEntity,
    object: InstanceObject,
    options: EntityOperationOptions,
): void {
    if (options.rules === undefined) return;
    const problems = unservableValues(model, { [entity.name]: [object] }, options.rules, '');
    if (problems.length === 0) return;
    const location = `: ${objectLocation(entity.name, 0, object[entity.idName])}.`;
    const problem = problems[0];
    refuse(
        'entity.unservable-value',
        `${entityName(entity.name, object[entity.idName])}.${problem.startsWith(location) ? problem.slice(location.length) : problem}`,
    );
}

/** Every reference of the model that points at `target`. */
function referencesTo(model: RuntimeModel, target: string): { entity: RuntimeEntity; reference: RuntimeReference }[] {
    const found: { entity: RuntimeEntity; reference: RuntimeReference }[] = [];
    for (const entity of model.entities.values())
        for (const reference of entity.references) if (reference.target === target) found.push({ entity, reference });
    return found;
}

function holds(value: InstanceValue | undefined, id: string): boolean {
    if (value === undefined || value === null) return false;
    if (Array.isArray(value)) return value.some((element) => identityOf(element) === id);
    return identityOf(value) === id;
}

/** The data without the object at `at`: refused while referenced (see the module comment for `detach`). */
function deleted(
    model: RuntimeModel,
    data: InstanceData,
    entity: RuntimeEntity,
    at: number,
    detach: boolean,
): InstanceData {
    const objects = data[entity.name] ?? [];
    const id = identityOf(objects[at][entity.idName]);
    const referrers: Referrer[] = [];
    const detached: { entity: RuntimeEntity; reference: RuntimeReference; positions: number[] }[] = [];
    for (const { entity: from, reference } of referencesTo(model, entity.name)) {
        const holders = data[from.name] ?? [];
        const positions: number[] = [];
        for (let i = 0; i < holders.length; i++) {
            if (from === entity && i === at) continue;
            if (holds(holders[i][reference.name], id)) positions.push(i);
        }
        if (positions.length === 0) continue;
        const blocks = !detach || reference.kind === 'one' || reference.minItems > 0;
        if (blocks) {
            referrers.push({
                entity: from.name,
                reference: reference.name,
                count: positions.length,
                sample: positions.slice(0, MAX_REFERRER_SAMPLE).map((i) => identityOf(holders[i][from.idName])),
            });
        } else detached.push({ entity: from, reference, positions });
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
    const next: InstanceData = { ...data };
    for (const { entity: from, reference, positions } of detached) {
        const holders = (next[from.name] ?? []).slice();
        for (const i of positions) {
            const value = holders[i][reference.name];
            holders[i] = {
                ...holders[i],
                [reference.name]: Array.isArray(value) ? value.filter((element) => identityOf(element) !== id) : null,
            };
        }
        next[from.name] = holders;
    }
    const remaining = (next[entity.name] ?? objects).slice();
    remaining.splice(at, 1);
    next[entity.name] = remaining;
    return next;
}
