/**
 * Random sequences of entity operations drawn from a model, reproducible by seed: what the workload of issue 28 runs
 * through the generated client against a real server, and what the property tests run in memory. Identifiers come
 * from small pools so that operations collide (a create of an id that exists, a delete of a target others hold);
 * patches touch every role of attribute the design gives (key part, filtered, ranged, sorted, projected only);
 * references are set, unset, added to and removed from; referenced and unreferenced entities are deleted; and a share
 * of operations is built to be refused, each with the code it must get.
 *
 * The generator follows its own sequence in memory (`applyEntityOperation`) so that most operations name entities
 * that exist at that point; the operations themselves are plain data, replayed anywhere.
 */
import type { KvlmModel } from '../../language/generated/ast.js';
import type { LogicalType } from '../../language/pidm/pidm-semantics.js';
import { SeededRandom } from '../data-generator.js';
import { identityOf, type InstanceData, type InstanceObject, type InstanceValue } from '../instance-data.js';
import type { RuntimeAttribute, RuntimeEntity, RuntimeModel } from '../runtime-model.js';
import type { TextRules } from '../servable-values.js';
import { attributeRoles, principalRole, type AttributeRole } from './attribute-roles.js';
import {
    applyEntityOperation,
    type EntityErrorCode,
    type EntityId,
    type EntityOperation,
} from './entity-operations.js';

/** Why an operation was drawn: what it exercises. */
export type OperationIntent =
    | 'create'
    | `patch:${AttributeRole}`
    | 'patch:unused'
    | 'set'
    | 'unset'
    | 'add'
    | 'remove'
    | 'delete'
    | 'delete:referenced'
    | 'delete:detach'
    | `invalid:${InvalidKind}`;

/** The operations built to be refused. */
export type InvalidKind =
    | 'bad-number'
    | 'bad-type'
    | 'unservable'
    | 'missing-target'
    | 'unknown-id'
    | 'identifier-change'
    | 'required-unset'
    | 'exists';

/** The code each invalid kind must be refused with. */
export const INVALID_CODES: Record<InvalidKind, EntityErrorCode> = {
    'bad-number': 'entity.bad-value',
    'bad-type': 'entity.bad-value',
    unservable: 'entity.unservable-value',
    'missing-target': 'entity.missing-target',
    'unknown-id': 'entity.not-found',
    'identifier-change': 'entity.identifier-change',
    'required-unset': 'entity.required-reference',
    exists: 'entity.exists',
};

export interface RandomOperation {
    operation: EntityOperation;
    intent: OperationIntent;
    /** For an invalid operation: the code it must be refused with. */
    mustRefuse?: EntityErrorCode;
}

export interface RandomOperationOptions {
    /** The design: patches then cover each role of attribute it gives. Without it every attribute is `unused`. */
    design?: KvlmModel;
    /** The data the sequence starts from (default: none). */
    initial?: InstanceData;
    /** Identifiers per entity (default 4, at most 9): small, so that operations collide. */
    idsPerEntity?: number;
    /** Share of operations built to be refused (default 0.15). */
    invalidShare?: number;
    /** The design's text rules: unservable values are drawn only where these refuse them. */
    rules?: TextRules;
}

const TEXTS = ['alpha', 'Beta', 'beta', ' gamma ', 'São Paulo', 'a:b{c}%', '', 'İstanbul'];
const INTS = [-3, 0, 1, 7, 42, 2 ** 31];
const FLOATS = [-1.5, 0, 0.25, 3.75, 19.75, 1e10];
const DATES = ['1999-12-31', '2000-02-29', '2024-01-01', '2040-06-15'];
const TIMES = ['00:00:00', '09:30:00', '23:59:59'];
const DATETIMES = ['1999-12-31T23:59:59', '2024-02-29T12:00:00', '2030-01-01T00:00:00'];

/** A value of a type from a small pool (the attribute's WHERE literals among them). */
function drawValue(random: SeededRandom, type: LogicalType, attribute?: RuntimeAttribute): InstanceValue {
    if (attribute?.literals !== undefined && random.next() < 0.4) return random.pick(attribute.literals);
    switch (type) {
        case 'int':
            return random.pick(INTS);
        case 'float':
            return random.pick(FLOATS);
        case 'boolean':
            return random.next() < 0.5;
        case 'date':
            return random.pick(DATES);
        case 'time':
            return random.pick(TIMES);
        case 'datetime':
            return random.pick(DATETIMES);
        default:
            return random.pick(TEXTS);
    }
}

/** The k-th identifier of an entity's pool (k < 9), of its identifier's type; one pool id is a text keys must escape. */
export function poolId(entity: RuntimeEntity, k: number): EntityId {
    switch (entity.idType) {
        case 'int':
            return k + 1;
        case 'float':
            return k + 0.5;
        case 'boolean':
            // Only two booleans exist; references hold them as texts ("true"), as data files do.
            return String(k % 2 === 0);
        case 'date':
            return `2020-01-0${k + 1}`;
        case 'time':
            return `10:00:0${k}`;
        case 'datetime':
            return `2020-01-01T00:00:0${k}`;
        default:
            return k === 2 ? `${entity.name.toLowerCase()}:x{${k}}%` : `${entity.name.toLowerCase()}${k}`;
    }
}

/**
 * `count` operations drawn from the model, the same for the same seed and options. Each is drawn against the data the
 * ones before it leave (refused ones leave it as it was).
 */
export function randomEntityOperations(
    model: RuntimeModel,
    seed: number,
    count: number,
    options: RandomOperationOptions = {},
): RandomOperation[] {
    const random = new SeededRandom(seed);
    const pool = Math.max(1, Math.min(9, options.idsPerEntity ?? 4));
    const invalidShare = options.invalidShare ?? 0.15;
    const roles = options.design ? attributeRoles(options.design) : new Map<string, Map<string, Set<AttributeRole>>>();
    const entities = [...model.entities.values()];
    const drawn: RandomOperation[] = [];
    let data: InstanceData = options.initial ?? {};

    const existing = (entity: RuntimeEntity): InstanceObject[] => data[entity.name] ?? [];
    // How operations and references name an object: a number for a numeric identifier, else its text.
    const idOf = (entity: RuntimeEntity, object: InstanceObject): EntityId => {
        const id = object[entity.idName];
        return typeof id === 'number' ? id : identityOf(id);
    };
    const target = (name: string): RuntimeEntity => model.entities.get(name)!;
    const draw = (): RandomOperation | undefined => {
        const roll = random.next();
        if (roll < invalidShare) return invalid();
        const scaled = (roll - invalidShare) / (1 - invalidShare);
        if (scaled < 0.3) return create();
        if (scaled < 0.6) return patch();
        if (scaled < 0.85) return referenceChange();
        return remove();
    };

    /** A new object of the entity with the pool id `k`, its references drawn from the objects there are. */
    const newObject = (entity: RuntimeEntity, k: number): InstanceObject => {
        const object: InstanceObject = {};
        const id = poolId(entity, k);
        for (const attribute of entity.attributes)
            object[attribute.name] = attribute.isId
                ? entity.idType === 'boolean'
                    ? id === 'true'
                    : id
                : drawValue(random, attribute.type, attribute);
        for (const reference of entity.references) {
            const targets = existing(target(reference.target));
            const ids = targets.map((object) => idOf(target(reference.target), object));
            if (reference.kind === 'one') object[reference.name] = ids.length > 0 ? random.pick(ids) : null;
            else if (reference.kind === 'optional')
                object[reference.name] = ids.length > 0 && random.next() < 0.6 ? random.pick(ids) : null;
            else {
                const upper = Math.min(ids.length, reference.maxItems ?? 3, 3);
                const size = Math.max(Math.min(reference.minItems, ids.length), random.int(0, upper));
                object[reference.name] = random.sample(ids, size);
            }
        }
        return object;
    };

    const create = (): RandomOperation => {
        // Entities whose required references can be met first, so that most creates succeed.
        const ready = entities.filter((entity) =>
            entity.references.every(
                (reference) =>
                    (reference.kind !== 'one' && reference.minItems === 0) ||
                    existing(target(reference.target)).length >= Math.max(1, reference.minItems),
            ),
        );
        const entity = random.pick(ready.length > 0 ? ready : entities);
        return {
            operation: { kind: 'create', entity: entity.name, object: newObject(entity, random.int(0, pool - 1)) },
            intent: 'create',
        };
    };

    /** An existing object, of an entity with one. */
    const someObject = (
        accept: (entity: RuntimeEntity) => boolean = () => true,
    ): { entity: RuntimeEntity; object: InstanceObject } | undefined => {
        const candidates = entities.filter((entity) => accept(entity) && existing(entity).length > 0);
        if (candidates.length === 0) return undefined;
        const entity = random.pick(candidates);
        return { entity, object: random.pick(existing(entity)) };
    };

    const roleOf = (entity: RuntimeEntity, attribute: RuntimeAttribute): AttributeRole | 'unused' => {
        const found = roles.get(entity.name)?.get(attribute.name);
        return found === undefined ? 'unused' : principalRole(found);
    };

    const patch = (): RandomOperation | undefined => {
        const chosen = someObject((entity) => entity.attributes.some((attribute) => !attribute.isId));
        if (chosen === undefined) return create();
        const { entity, object } = chosen;
        // A role first, then an attribute of it: every role is patched as often, however many attributes it has.
        const attributes = entity.attributes.filter((attribute) => !attribute.isId);
        const byRole = new Map<string, RuntimeAttribute[]>();
        for (const attribute of attributes) {
            const role = roleOf(entity, attribute);
            byRole.set(role, [...(byRole.get(role) ?? []), attribute]);
        }
        const role = random.pick([...byRole.keys()]);
        const first = random.pick(byRole.get(role)!);
        const values: Record<string, InstanceValue | undefined> = {
            [first.name]: drawValue(random, first.type, first),
        };
        // Sometimes a second attribute, and sometimes an `undefined` property (which means: unchanged).
        if (random.next() < 0.3) {
            const second = random.pick(attributes);
            values[second.name] = drawValue(random, second.type, second);
        }
        if (random.next() < 0.2) values[random.pick(attributes).name] ??= undefined;
        return {
            operation: { kind: 'update', entity: entity.name, id: idOf(entity, object), patch: values },
            intent: `patch:${role}` as OperationIntent,
        };
    };

    const referenceChange = (): RandomOperation | undefined => {
        const chosen = someObject((entity) => entity.references.length > 0);
        if (chosen === undefined) return create();
        const { entity, object } = chosen;
        const reference = random.pick(entity.references);
        const to = target(reference.target);
        const ids = existing(to).map((other) => idOf(to, other));
        const id = idOf(entity, object);
        const base = { entity: entity.name, id, reference: reference.name };
        if (reference.kind !== 'many') {
            if (reference.kind === 'optional' && (ids.length === 0 || random.next() < 0.3))
                return { operation: { kind: 'unset', ...base }, intent: 'unset' };
            if (ids.length === 0) return create();
            return { operation: { kind: 'set', ...base, target: random.pick(ids) }, intent: 'set' };
        }
        const listed = Array.isArray(object[reference.name]) ? (object[reference.name] as EntityId[]) : [];
        const listedIds = new Set(listed.map(identityOf));
        const free = ids.filter((other) => !listedIds.has(identityOf(other)));
        if (listed.length > 0 && (free.length === 0 || random.next() < 0.45))
            return {
                operation: {
                    kind: 'remove',
                    ...base,
                    targets: random.sample(listed, random.int(1, Math.min(2, listed.length))),
                },
                intent: 'remove',
            };
        if (free.length === 0) return create();
        return {
            operation: { kind: 'add', ...base, targets: random.sample(free, random.int(1, Math.min(2, free.length))) },
            intent: 'add',
        };
    };

    /** The (entity, id) pairs some reference holds. */
    const referenced = (): { entity: RuntimeEntity; id: EntityId }[] => {
        const found = new Map<string, { entity: RuntimeEntity; id: EntityId }>();
        for (const entity of entities)
            for (const object of existing(entity))
                for (const reference of entity.references) {
                    const value = object[reference.name];
                    const ids = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
                    for (const id of ids as EntityId[])
                        found.set(`${reference.target}\u0000${identityOf(id)}`, {
                            entity: target(reference.target),
                            id,
                        });
                }
        return [...found.values()];
    };

    const remove = (): RandomOperation | undefined => {
        const held = referenced();
        if (held.length > 0 && random.next() < 0.5) {
            const { entity, id } = random.pick(held);
            const detach = random.next() < 0.3;
            return {
                operation: { kind: 'delete', entity: entity.name, id, ...(detach ? { detach } : {}) },
                intent: detach ? 'delete:detach' : 'delete:referenced',
            };
        }
        const chosen = someObject();
        if (chosen === undefined) return create();
        return {
            operation: { kind: 'delete', entity: chosen.entity.name, id: idOf(chosen.entity, chosen.object) },
            intent: 'delete',
        };
    };

    /** An operation built to be refused; another kind when the model or the data offers none of the drawn kind. */
    const invalid = (): RandomOperation | undefined => {
        const kinds: InvalidKind[] = [
            'bad-number',
            'bad-type',
            'unservable',
            'missing-target',
            'unknown-id',
            'identifier-change',
            'required-unset',
            'exists',
        ];
        for (const kind of random.sample(kinds, kinds.length)) {
            const made = invalidOf(kind);
            if (made !== undefined)
                return { operation: made, intent: `invalid:${kind}`, mustRefuse: INVALID_CODES[kind] };
        }
        return undefined;
    };

    const invalidOf = (kind: InvalidKind): EntityOperation | undefined => {
        switch (kind) {
            case 'bad-number': {
                const numeric = (attribute: RuntimeAttribute): boolean =>
                    !attribute.isId && (attribute.type === 'int' || attribute.type === 'float');
                const chosen = someObject((entity) => entity.attributes.some(numeric));
                if (chosen === undefined) return undefined;
                const attribute = random.pick(chosen.entity.attributes.filter(numeric));
                const bad =
                    attribute.type === 'int'
                        ? random.pick([1.5, 2 ** 60, Number.NaN])
                        : random.pick([Infinity, Number.NaN]);
                return update(chosen.entity, chosen.object, { [attribute.name]: bad });
            }
            case 'bad-type': {
                const chosen = someObject((entity) => entity.attributes.some((attribute) => !attribute.isId));
                if (chosen === undefined) return undefined;
                const attribute = random.pick(chosen.entity.attributes.filter((attribute) => !attribute.isId));
                const bad = attribute.type === 'text' ? 7 : attribute.type === 'date' ? '2023-02-30' : 'not a value';
                return update(chosen.entity, chosen.object, { [attribute.name]: bad });
            }
            case 'unservable': {
                const rules = options.rules;
                if (rules === undefined) return undefined;
                for (const [entityName, searched] of model.searched ?? []) {
                    const entity = model.entities.get(entityName);
                    const objects = entity ? existing(entity) : [];
                    if (entity === undefined || objects.length === 0) continue;
                    for (const [name, use] of searched) {
                        const attribute = entity.attributes.find((candidate) => candidate.name === name);
                        if (attribute === undefined || attribute.isId) continue;
                        let bad: InstanceValue | undefined;
                        if (attribute.type === 'float' && use.compared.length > 0) {
                            if (rules.unservableNumber?.(0.1) != null) bad = 0.1;
                        } else if (attribute.type === 'text') {
                            const text = 'a\u0000b';
                            const refused =
                                (use.compared.length > 0 && rules.unservable(text) !== null) ||
                                (use.sorted.length > 0 && rules.unsortable(text) !== null);
                            if (refused) bad = text;
                        }
                        if (bad !== undefined) return update(entity, random.pick(objects), { [name]: bad });
                    }
                }
                return undefined;
            }
            case 'missing-target': {
                const chosen = someObject((entity) => entity.references.length > 0);
                if (chosen === undefined) return undefined;
                const reference = random.pick(chosen.entity.references);
                const missing = missingId(target(reference.target));
                if (missing === undefined) return undefined;
                const base = {
                    entity: chosen.entity.name,
                    id: idOf(chosen.entity, chosen.object),
                    reference: reference.name,
                };
                return reference.kind === 'many'
                    ? { kind: 'add', ...base, targets: [missing] }
                    : { kind: 'set', ...base, target: missing };
            }
            case 'unknown-id': {
                const entity = random.pick(entities);
                const missing = missingId(entity);
                if (missing === undefined) return undefined;
                const attribute = entity.attributes.find((candidate) => !candidate.isId);
                return attribute === undefined || random.next() < 0.5
                    ? { kind: 'delete', entity: entity.name, id: missing }
                    : {
                          kind: 'update',
                          entity: entity.name,
                          id: missing,
                          patch: { [attribute.name]: drawValue(random, attribute.type) },
                      };
            }
            case 'identifier-change': {
                const chosen = someObject((entity) => entity.idType !== 'boolean');
                if (chosen === undefined) return undefined;
                const other = poolId(chosen.entity, 9);
                return update(chosen.entity, chosen.object, { [chosen.entity.idName]: other });
            }
            case 'required-unset': {
                const chosen = someObject((entity) => entity.references.some((reference) => reference.kind === 'one'));
                if (chosen === undefined) return undefined;
                const reference = random.pick(chosen.entity.references.filter((candidate) => candidate.kind === 'one'));
                return {
                    kind: 'unset',
                    entity: chosen.entity.name,
                    id: idOf(chosen.entity, chosen.object),
                    reference: reference.name,
                };
            }
            case 'exists': {
                const chosen = someObject();
                if (chosen === undefined) return undefined;
                const object = newObject(chosen.entity, 0);
                object[chosen.entity.idName] = chosen.object[chosen.entity.idName];
                return { kind: 'create', entity: chosen.entity.name, object };
            }
        }
    };

    const update = (
        entity: RuntimeEntity,
        object: InstanceObject,
        patch: Record<string, InstanceValue>,
    ): EntityOperation => ({ kind: 'update', entity: entity.name, id: idOf(entity, object), patch });

    /** An identifier of the entity no object has (outside the pool when the pool is full). */
    const missingId = (entity: RuntimeEntity): EntityId | undefined => {
        const taken = new Set(existing(entity).map((object) => identityOf(object[entity.idName])));
        for (let k = 0; k < 9; k++) {
            const id = poolId(entity, k);
            if (!taken.has(identityOf(id))) return id;
        }
        return undefined;
    };

    while (drawn.length < count) {
        const next = draw();
        if (next === undefined) continue;
        drawn.push(next);
        data = applyEntityOperation(model, data, next.operation, { rules: options.rules }).data;
    }
    return drawn;
}
