/**
 * Builds the KVLM AST from the working model, in memory, the way the parser would have built it:
 * every node has its `$container`, `$containerProperty` and `$containerIndex`, and a cross-reference is
 * `{ ref, $refText }`, so the printer, the JSON mapper and the generators can read it like a parsed one.
 */
import type { AstNode, Reference } from 'langium';
import type {
    Collection,
    CounterKey,
    Field,
    FieldRole,
    KExpression,
    KProjection,
    KValue,
    KeyPart,
    KvlmModel,
    MergeDecision,
    NaturalKey,
    Node,
    Parameter,
    PathNode,
    RootNode,
    ServedQuery,
    SortKey,
} from '../../src/language/generated/ast.js';
import {
    presized,
    ROLE_KINDS,
    queriesWithRole,
    type CollectionModel,
    type FieldModel,
    type FilterModel,
} from './collection-model.js';
import type { KeyStrategyKind, MergePolicy } from './options.js';
import type { MergeDecisionInfo } from './trace.js';
import { makeAstNode, resolvedReference, type Mutable } from '../../src/language/common/ast-construction.js';

/** What the model header says besides the collections. */
export interface KvlmHeader {
    databaseName: string;
    sourceName?: string;
    merge: MergePolicy;
    threshold: number;
    keyStrategy: KeyStrategyKind;
}

/** A resolved cross-reference written with the target's name. */
function reference<T extends AstNode & { name: string }>(target: T): Reference<T> {
    return resolvedReference(target, target.name);
}

/** Builds the KVLM model: header, collections in order, then the merge decisions. */
export function buildKvlm(
    collections: readonly CollectionModel[],
    decisions: readonly MergeDecisionInfo[],
    header: KvlmHeader,
): KvlmModel {
    const model = makeAstNode<KvlmModel>(undefined, undefined, undefined, {
        $type: 'KvlmModel',
        name: header.databaseName,
        ...(header.sourceName !== undefined ? { source: header.sourceName } : {}),
        policy: header.merge,
        threshold: header.threshold,
        collections: [],
        decisions: [],
    });
    let maxId = -1;
    for (const collection of collections) {
        const ids = collection.fieldIds;
        if (ids.length > 0 && ids[ids.length - 1] > maxId) maxId = ids[ids.length - 1];
    }
    const lookup: FieldLookup = { owner: new Int32Array(maxId + 1).fill(-1), position: new Int32Array(maxId + 1) };
    collections.forEach((collection, index) =>
        model.collections.push(buildCollection(model, index, collection, header.keyStrategy, lookup)),
    );
    decisions.forEach((decision, index) => model.decisions.push(buildDecision(model, index, decision)));
    return model;
}

/** Field id → position in the collection being built (a Map per collection would cost a million entries). */
interface FieldLookup {
    owner: Int32Array;
    position: Int32Array;
}

function buildCollection(
    model: KvlmModel,
    index: number,
    source: CollectionModel,
    keyStrategy: KeyStrategyKind,
    lookup: FieldLookup,
): Collection {
    const collection = makeAstNode<Collection>(model, 'collections', index, {
        $type: 'Collection',
        name: source.name,
        keyField: `${source.name}_id`,
        strategy: undefined as unknown as Collection['strategy'],
        root: undefined as unknown as RootNode,
        nodes: [],
        // Filled by index, exactly sized (see `presized`): a million-field model has a million entries here.
        fields: presized<Field>(source.fields.length),
        queries: [],
    });
    const [rootModel, ...pathModels] = source.nodes;
    const root = makeAstNode<RootNode>(collection, 'root', undefined, {
        $type: 'RootNode',
        entity: rootModel.entity,
        name: rootModel.name,
    });
    (collection as Mutable<Collection>).root = root;
    const nodesByKey = new Map<string, Node>([[rootModel.key, root]]);
    pathModels.forEach((node, nodeIndex) => {
        const parent = nodesByKey.get(node.parentKey ?? '');
        if (!parent) throw new Error(`buildKvlm: node ${node.key} of ${source.name} comes before its parent`);
        const pathNode = makeAstNode<PathNode>(collection, 'nodes', nodeIndex, {
            $type: 'PathNode',
            name: node.name,
            parent: reference<Node>(parent),
            reference: node.reference ?? '',
            entity: node.entity,
            cardinality: node.cardinality,
        });
        collection.nodes.push(pathNode);
        nodesByKey.set(node.key, pathNode);
    });
    (collection as Mutable<Collection>).strategy = buildKeyStrategy(collection, source, nodesByKey, keyStrategy);

    // Served queries first: field roles refer to them.
    const pending: { query: ServedQuery; model: CollectionModel['queries'][number] }[] = [];
    const queriesByName = new Map<string, ServedQuery>();
    source.queries.forEach((served, queryIndex) => {
        const query = makeAstNode<ServedQuery>(collection, 'queries', queryIndex, {
            $type: 'ServedQuery',
            name: served.name,
            params: [],
            sortKeys: [],
            projections: presized<KProjection>(served.projectionFields.length),
        });
        collection.queries.push(query);
        queriesByName.set(served.name, query);
        pending.push({ query, model: served });
    });

    // One shared cross-reference per field: projections, sort keys and comparisons all point at it.
    const fieldRefs = presized<Reference<Field>>(source.fields.length);
    const shares = new CollectionShares(nodesByKey, queriesByName, source);
    // The field objects are shared between collections and scattered through the heap: a first loop
    // that only reads their ids lets the processor wait for several of them at once, and the loop that
    // builds the AST fields then finds them in the cache.
    for (let fieldIndex = 0; fieldIndex < source.fields.length; fieldIndex++) {
        const id = source.fields[fieldIndex].id;
        lookup.owner[id] = index;
        lookup.position[id] = fieldIndex;
    }
    for (let fieldIndex = 0; fieldIndex < source.fields.length; fieldIndex++) {
        const field = buildField(collection, fieldIndex, source.fields[fieldIndex], shares);
        collection.fields[fieldIndex] = field;
        fieldRefs[fieldIndex] = reference(field);
    }

    for (const { query, model: served } of pending) {
        const fieldOf = (id: number): Reference<Field> => {
            if (lookup.owner[id] !== index)
                throw new Error(`buildKvlm: query ${served.name} uses a field that ${source.name} lacks`);
            return fieldRefs[lookup.position[id]];
        };
        const params = new Map<string, Parameter>();
        served.params.forEach((param, paramIndex) => {
            const parameter = makeAstNode<Parameter>(query, 'params', paramIndex, {
                $type: 'Parameter',
                name: param.name,
                type: param.type,
            });
            query.params.push(parameter);
            params.set(param.name, parameter);
        });
        if (served.where)
            (query as Mutable<ServedQuery>).where = buildFilter(
                query,
                'where',
                undefined,
                served.where,
                fieldOf,
                params,
            );
        served.sortKeys.forEach((key, keyIndex) => {
            query.sortKeys.push(
                makeAstNode<SortKey>(query, 'sortKeys', keyIndex, {
                    $type: 'SortKey',
                    field: fieldOf(key.field),
                    direction: key.direction,
                }),
            );
        });
        for (let index = 0; index < served.projectionFields.length; index++) {
            const node: KProjection = {
                $type: 'KProjection',
                $container: query,
                $containerProperty: 'projections',
                $containerIndex: index,
                field: fieldOf(served.projectionFields[index]),
                label: served.projectionLabels[index],
            };
            query.projections[index] = node;
        }
    }
    return collection;
}

/** `natural(root.id, every multi-valued node's id…)` in node order, or `counter`. */
function buildKeyStrategy(
    collection: Collection,
    source: CollectionModel,
    nodesByKey: Map<string, Node>,
    kind: KeyStrategyKind,
): Collection['strategy'] {
    if (kind === 'counter') return makeAstNode<CounterKey>(collection, 'strategy', undefined, { $type: 'CounterKey' });
    const key = makeAstNode<NaturalKey>(collection, 'strategy', undefined, { $type: 'NaturalKey', parts: [] });
    source.nodes.forEach((node, index) => {
        if (index > 0 && node.cardinality !== 'many') return;
        const target = nodesByKey.get(node.key) as Node;
        key.parts.push(
            makeAstNode<KeyPart>(key, 'parts', key.parts.length, {
                $type: 'KeyPart',
                node: reference<Node>(target),
                attribute: node.identifier,
            }),
        );
    });
    return key;
}

/** One role of a field, before it is placed in the field: its kind and the shared list of queries. */
interface RolePlan {
    kind: FieldRole['kind'];
    queries: Reference<ServedQuery>[];
}

/**
 * Shares what can be shared inside one collection: a cross-reference object per target, the query
 * lists of field roles, and the roles a field gets from its query and role-mask lists (fields share
 * those lists: Algorithm 1 gives a collection's fields one query list and one array per mask, and
 * Algorithm 2 concatenates each distinct pair once). Nothing reads these as per-referrer objects,
 * and a model of a million fields is half the size for it.
 */
class CollectionShares {
    private readonly nodeRefs = new Map<string, Reference<Node>>();
    private readonly queryRefs = new Map<string, Reference<ServedQuery>>();
    private readonly queryLists = new Map<string, Reference<ServedQuery>[]>();
    private readonly rolePlans = new Map<readonly number[], Map<readonly number[], readonly RolePlan[]>>();
    /** The last answers of `nodeRef` and `rolePlan`: consecutive fields mostly share them. */
    private lastNodeKey: string | undefined = undefined;
    private lastNodeRef: Reference<Node> | undefined = undefined;
    private lastMasks: readonly number[] | undefined = undefined;
    private lastQueries: readonly number[] | undefined = undefined;
    private lastPlan: readonly RolePlan[] = [];

    constructor(
        private readonly nodesByKey: Map<string, Node>,
        private readonly queriesByName: Map<string, ServedQuery>,
        private readonly source: CollectionModel,
    ) {}

    /** The shared reference to the node at `key`; `fieldName` only names the culprit of an internal error. */
    nodeRef(key: string, fieldName: string): Reference<Node> {
        if (key === this.lastNodeKey) return this.lastNodeRef as Reference<Node>;
        let shared = this.nodeRefs.get(key);
        if (!shared) {
            const node = this.nodesByKey.get(key);
            if (!node) throw new Error(`buildKvlm: field ${fieldName} of ${this.source.name} has no node ${key}`);
            shared = reference<Node>(node);
            this.nodeRefs.set(key, shared);
        }
        this.lastNodeKey = key;
        this.lastNodeRef = shared;
        return shared;
    }

    /** The roles of a field, in `ROLE_KINDS` order: computed once per distinct pair of query and mask lists. */
    rolePlan(field: FieldModel): readonly RolePlan[] {
        if (field.roleMasks === this.lastMasks && field.queries === this.lastQueries) return this.lastPlan;
        let byQueries = this.rolePlans.get(field.roleMasks);
        if (!byQueries) {
            byQueries = new Map();
            this.rolePlans.set(field.roleMasks, byQueries);
        }
        let plan = byQueries.get(field.queries);
        if (!plan) {
            const roles: RolePlan[] = [];
            for (const kind of ROLE_KINDS) {
                const names = queriesWithRole(field, kind, this.source.queries);
                if (names.length > 0) roles.push({ kind, queries: this.queryList(names, field.name) });
            }
            byQueries.set(field.queries, roles);
            plan = roles;
        }
        this.lastMasks = field.roleMasks;
        this.lastQueries = field.queries;
        this.lastPlan = plan;
        return plan;
    }

    /** The shared list of references to the named served queries. */
    private queryList(names: readonly string[], fieldName: string): Reference<ServedQuery>[] {
        const key = names.join(' ');
        let list = this.queryLists.get(key);
        if (!list) {
            list = names.map((name) => this.queryRef(name, fieldName));
            this.queryLists.set(key, list);
        }
        return list;
    }

    private queryRef(name: string, fieldName: string): Reference<ServedQuery> {
        let shared = this.queryRefs.get(name);
        if (!shared) {
            const query = this.queriesByName.get(name);
            if (!query)
                throw new Error(
                    `buildKvlm: field ${fieldName} of ${this.source.name} names query ${name}, which it does not serve`,
                );
            shared = reference(query);
            this.queryRefs.set(name, shared);
        }
        return shared;
    }
}

/** A field's roles array has exactly its number of elements (a grown array reserves room for 17). */
const NO_ROLES: FieldRole[] = [];

function buildField(collection: Collection, index: number, source: FieldModel, shares: CollectionShares): Field {
    const field: Field = {
        $type: 'Field',
        $container: collection,
        $containerProperty: 'fields',
        $containerIndex: index,
        name: source.name,
        type: source.type,
        node: shares.nodeRef(source.nodeKey, source.name),
        attribute: source.attribute,
        label: source.label,
        indexed: source.indexed,
        roles: NO_ROLES,
    };
    const plan = shares.rolePlan(source);
    // Array literals of the exact length: their allocation sites let V8 allocate the arrays that
    // survive (all of them) in the old generation directly, which `map` does not.
    let roles: FieldRole[];
    switch (plan.length) {
        case 1:
            roles = [fieldRole(field, 0, plan[0])];
            break;
        case 2:
            roles = [fieldRole(field, 0, plan[0]), fieldRole(field, 1, plan[1])];
            break;
        case 3:
            roles = [fieldRole(field, 0, plan[0]), fieldRole(field, 1, plan[1]), fieldRole(field, 2, plan[2])];
            break;
        default:
            roles = plan.map((role, roleIndex) => fieldRole(field, roleIndex, role));
    }
    (field as Mutable<Field>).roles = roles;
    return field;
}

function fieldRole(field: Field, index: number, role: RolePlan): FieldRole {
    return {
        $type: 'FieldRole',
        $container: field,
        $containerProperty: 'roles',
        $containerIndex: index,
        kind: role.kind,
        queries: role.queries,
    };
}

function buildFilter(
    container: AstNode,
    property: string,
    index: number | undefined,
    filter: FilterModel,
    fieldOf: (id: number) => Reference<Field>,
    params: Map<string, Parameter>,
): KExpression {
    switch (filter.kind) {
        case 'binary': {
            const node = makeAstNode<KExpression & { $type: 'KBinaryExpression' }>(container, property, index, {
                $type: 'KBinaryExpression',
                left: undefined as unknown as KExpression,
                operator: filter.operator,
                right: undefined as unknown as KExpression,
            });
            const mutable = node as Mutable<typeof node>;
            mutable.left = buildFilter(node, 'left', undefined, filter.left, fieldOf, params);
            mutable.right = buildFilter(node, 'right', undefined, filter.right, fieldOf, params);
            return node;
        }
        case 'not': {
            const node = makeAstNode<KExpression & { $type: 'KNotExpression' }>(container, property, index, {
                $type: 'KNotExpression',
                operand: undefined as unknown as KExpression,
            });
            (node as Mutable<typeof node>).operand = buildFilter(
                node,
                'operand',
                undefined,
                filter.operand,
                fieldOf,
                params,
            );
            return node;
        }
        case 'group': {
            const node = makeAstNode<KExpression & { $type: 'KGroupExpression' }>(container, property, index, {
                $type: 'KGroupExpression',
                inner: undefined as unknown as KExpression,
            });
            (node as Mutable<typeof node>).inner = buildFilter(node, 'inner', undefined, filter.inner, fieldOf, params);
            return node;
        }
        case 'compare': {
            const node = makeAstNode<KExpression & { $type: 'KComparison' }>(container, property, index, {
                $type: 'KComparison',
                field: fieldOf(filter.field),
                operator: filter.operator,
                value: undefined as unknown as KValue,
            });
            (node as Mutable<typeof node>).value = buildValue(node, filter.value, params);
            return node;
        }
    }
}

function buildValue(
    container: AstNode,
    value: Extract<FilterModel, { kind: 'compare' }>['value'],
    params: Map<string, Parameter>,
): KValue {
    switch (value.kind) {
        case 'param': {
            const parameter = params.get(value.name);
            if (!parameter) throw new Error(`buildKvlm: parameter ${value.name} is not declared`);
            return makeAstNode<KValue & { $type: 'ParameterRef' }>(container, 'value', undefined, {
                $type: 'ParameterRef',
                parameter: reference(parameter),
            });
        }
        case 'string':
            return makeAstNode<KValue & { $type: 'KStringValue' }>(container, 'value', undefined, {
                $type: 'KStringValue',
                value: value.value,
            });
        case 'number':
            return makeAstNode<KValue & { $type: 'KNumberValue' }>(container, 'value', undefined, {
                $type: 'KNumberValue',
                negative: value.negative,
                value: value.value,
            });
        case 'boolean':
            return makeAstNode<KValue & { $type: 'KBooleanValue' }>(container, 'value', undefined, {
                $type: 'KBooleanValue',
                value: value.value,
            });
    }
}

function buildDecision(model: KvlmModel, index: number, decision: MergeDecisionInfo): MergeDecision {
    return makeAstNode<MergeDecision>(model, 'decisions', index, {
        $type: 'MergeDecision',
        left: decision.left,
        right: decision.right,
        ...(decision.result !== undefined ? { result: decision.result } : { reason: decision.refusedBecause ?? '' }),
        common: decision.common,
        leftSize: decision.leftSize,
        rightSize: decision.rightSize,
    });
}
