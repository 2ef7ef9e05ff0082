/**
 * Algorithm 1 of the paper (section 4.5.1): one collection per access query. Fields come in the order
 * SELECT, WHERE, ORDER BY without duplicates, a field being identified by its resolved attribute path
 * (not by how the query spells it), and the collection also records what the paper leaves implicit:
 * the row grain (FROM entity and include tree) and the plan of the query it serves.
 */
import {
    isBinaryExpression,
    isBooleanValue,
    isComparison,
    isGroupExpression,
    isNotExpression,
    isNumberValue,
    isStringValue,
    type Entity,
    type Expression,
    type Path,
    type Projection,
    type Query,
    type Reference,
    type Value,
} from '../../src/language/generated/ast.js';
import {
    cardinalityKind,
    comparisonOperator,
    identifierName,
    includeAlias,
    parameterName,
    resolvePath,
    sortDirection,
    type ResolvedPath,
} from '../../src/language/pidm/pidm-semantics.js';
import {
    presized,
    ROLE_BITS,
    type CollectionModel,
    type FieldInterner,
    type FieldModel,
    type FilterModel,
    type NodeModel,
    type ResolvedField,
    type ServedQueryModel,
    type ValueModel,
} from './collection-model.js';
import { toKvlmName, uniqueName } from '../../src/language/kvlm/kvlm-names.js';
import { QueryParameterNamer } from '../../src/language/pidm/pidm-parameters.js';

/** `CollectionBuilder.resolveAll`'s result, reused from query to query. */
const resolvedScratch: (ResolvedField | undefined)[] = [];

/**
 * The draft fields of the collection being built (Algorithm 1 builds one at a time), by position, first
 * use first: identity, name, label and role mask, in arrays reused from query to query (a thousand
 * queries of a thousand fields would otherwise leave four thousand-slot arrays behind each). `finish`
 * turns them into field objects and empties the object slots, so that no model stays reachable.
 */
const draftFields: (ResolvedField | undefined)[] = [];
const draftNames: string[] = [];
const draftLabels: string[] = [];
let draftMasks = new Uint8Array(1024);
let draftIds = new Int32Array(1024);

/** A served query's projection before its fields are known. */
const NO_IDS = new Int32Array(0);

/** Operators that make a field `filtered` (equality); the others make it `ranged`. */
const EQUALITY_OPERATORS = new Set(['=', '!=']);

/**
 * Builds the collection that serves one query, or undefined (with a warning) when the query does not
 * resolve — the validator reports such a query as an error, so only unvalidated input reaches this.
 */
export function queryToCollection(
    query: Query,
    interner: FieldInterner,
    warnings: string[],
): CollectionModel | undefined {
    const rootEntity = query.from?.entity?.ref;
    if (!rootEntity) {
        warnings.push(`query ${query.name}: its FROM entity does not resolve; no collection made for it`);
        return undefined;
    }
    const builder = new CollectionBuilder(query, rootEntity, interner, warnings);
    builder.addIncludes();
    const projections = query.projections ?? [];
    const served = builder.served;
    // Ids in a typed array: its contents live outside the JavaScript heap, so the young generation's
    // collections (which copy every surviving object, twice) do not copy a thousand ids per query.
    const projectionFields = new Int32Array(projections.length);
    served.projectionLabels = presized(projections.length);
    // The projections' paths are resolved first, in a loop of their own: each lookup waits on memory
    // (the AST elements and identities are scattered through the heap) and, with nothing else in the
    // loop, the processor overlaps several of them. Same calls in the same order as one loop.
    const found = builder.resolveAll(projections);
    let projected = 0;
    for (let index = 0; index < projections.length; index++) {
        const projection = projections[index];
        const spelling = spellingOf(projection.path);
        const field = builder.register(found[index], projection.path, ROLE_BITS.projected, spelling);
        if (!field) continue;
        projectionFields[projected] = field.id;
        served.projectionLabels[projected] = projection.alias ?? spelling;
        projected++;
    }
    // The scratch must not keep this model's identities (and through them its AST) alive.
    found.fill(undefined, 0, projections.length);
    served.projectionFields =
        projected === projectionFields.length ? projectionFields : projectionFields.slice(0, projected);
    served.projectionLabels.length = projected;
    if (query.where) served.where = builder.filter(query.where);
    for (const item of query.orderBy ?? []) {
        const field = builder.fieldFor(item.path, ROLE_BITS.sorted);
        if (field) served.sortKeys.push({ field: field.id, direction: sortDirection(item) });
    }
    if (projected === 0) {
        warnings.push(`query ${query.name}: nothing it selects resolves; no collection made for it`);
        builder.discard();
        return undefined;
    }
    return builder.finish();
}

/**
 * How many attribute paths a query names — the projections, the comparisons `filter` visits, the
 * ORDER BY items: every call of `fieldFor`, so a bound on its number of fields.
 */
function pathCount(query: Query): number {
    const comparisons = (expression: Expression | undefined): number => {
        if (isBinaryExpression(expression)) return comparisons(expression.left) + comparisons(expression.right);
        if (isNotExpression(expression)) return comparisons(expression.operand);
        if (isGroupExpression(expression)) return comparisons(expression.inner);
        return isComparison(expression) ? 1 : 0;
    };
    return (query.projections?.length ?? 0) + (query.orderBy?.length ?? 0) + comparisons(query.where);
}

/** How a query spells a path: its segments as written, joined by `.`. */
export function spellingOf(path: Path): string {
    const segments = path.segments ?? [];
    let spelling = segments.length > 0 ? (segments[0].element?.$refText ?? '') : '';
    for (let index = 1; index < segments.length; index++) spelling += `.${segments[index].element?.$refText ?? ''}`;
    return spelling;
}

/** The state of Algorithm 1 for one query. */
class CollectionBuilder {
    readonly nodes: NodeModel[] = [];
    readonly served: ServedQueryModel;
    /** How many fields met so far: positions 0 … drafts-1 of the module's draft arrays (see `draftFields`). */
    private drafts = 0;
    private readonly rootEntityName: string;
    private readonly nodesByKey = new Map<string, NodeModel>();
    /** This builder's owner number for the interner's per-identity scratch (identity → position in the drafts). */
    private readonly owner: number;
    private readonly nodeNames = new Set<string>();
    private readonly params = new QueryParameterNamer();
    /** Include aliases by node key: an include names its node even when a later path reached it first. */
    private readonly aliasByKey = new Map<string, string>();

    constructor(
        private readonly query: Query,
        private readonly rootEntity: Entity,
        private readonly interner: FieldInterner,
        private readonly warnings: string[],
    ) {
        this.served = { name: query.name, params: [], sortKeys: [], projectionFields: NO_IDS, projectionLabels: [] };
        // The draft arrays hold every path of the query (a bound on its fields); masks start at 0.
        const paths = pathCount(query);
        if (draftMasks.length < paths) {
            draftMasks = new Uint8Array(paths);
            draftIds = new Int32Array(paths);
        } else draftMasks.fill(0, 0, paths);
        this.rootEntityName = rootEntity.name;
        this.owner = interner.newOwner();
        const root: NodeModel = {
            key: rootEntity.name,
            name: uniqueName(toKvlmName(query.from.alias ?? rootEntity.name), this.nodeNames),
            entity: rootEntity.name,
            identifier: identifierName(rootEntity),
            cardinality: 'one',
        };
        this.nodes.push(root);
        this.nodesByKey.set(root.key, root);
        interner.reserveFieldName(`${query.name}_id`);
    }

    /** Every INCLUDE becomes a node (it shapes the grain even when no field comes from it). */
    addIncludes(): void {
        const resolved: ResolvedPath[] = [];
        for (const include of this.query.includes ?? []) {
            const path = include.path ? resolvePath(include.path) : undefined;
            if (!path || path.attribute || path.steps.length === 0) {
                this.warnings.push(
                    `query ${this.query.name}: the include ${include.path ? spellingOf(include.path) : '?'} does not resolve to references; ignored`,
                );
                continue;
            }
            const alias = includeAlias(include);
            if (alias && !this.aliasByKey.has(path.nodeKey)) this.aliasByKey.set(path.nodeKey, alias);
            resolved.push(path);
        }
        for (const path of resolved) this.nodeFor(path.steps);
    }

    /** The node at the end of a reference path, creating it and its missing ancestors (implicit includes). */
    nodeFor(steps: readonly Reference[]): NodeModel | undefined {
        let parent = this.nodes[0];
        let key = this.rootEntityName;
        let implicitName = '';
        for (const step of steps) {
            key = `${key}.${step.name}`;
            implicitName = implicitName ? `${implicitName}_${step.name}` : step.name;
            let node = this.nodesByKey.get(key);
            if (!node) {
                const target = step.target?.ref;
                if (!target) return undefined;
                node = {
                    key,
                    name: uniqueName(toKvlmName(this.aliasByKey.get(key) ?? implicitName), this.nodeNames),
                    parentKey: parent.key,
                    reference: step.name,
                    entity: target.name,
                    identifier: identifierName(target),
                    cardinality: cardinalityKind(step.cardinality),
                };
                this.nodes.push(node);
                this.nodesByKey.set(key, node);
            }
            parent = node;
        }
        return parent;
    }

    /**
     * Registers a use of an attribute path with its role (a `ROLE_BITS` bit), adding the field on first
     * sight; the resolved field, or undefined (with a warning) when the path is not an attribute path.
     */
    fieldFor(path: Path, roleBit: number, spelling?: string): ResolvedField | undefined {
        return this.register(this.interner.resolveField(this.rootEntity, path), path, roleBit, spelling);
    }

    /** `fieldFor` of a path already resolved (`found`: what `resolveField` gave for it). */
    register(
        found: ResolvedField | undefined,
        path: Path,
        roleBit: number,
        spelling?: string,
    ): ResolvedField | undefined {
        if (!found) {
            this.warnings.push(
                `query ${this.query.name}: ${spelling ?? spellingOf(path)} does not resolve to an attribute; ignored`,
            );
            return undefined;
        }
        let position = this.interner.claimed(found, this.owner);
        if (position < 0) {
            const node = found.onRoot
                ? this.nodes[0]
                : (this.nodesByKey.get(found.nodeKey) ?? this.nodeFor(found.steps));
            if (!node) {
                this.warnings.push(
                    `query ${this.query.name}: ${spelling ?? spellingOf(path)} does not resolve to an attribute; ignored`,
                );
                return undefined;
            }
            const label = spelling ?? spellingOf(path);
            position = this.drafts++;
            this.interner.claim(found, this.owner, position);
            setDraft(draftFields, position, found);
            setDraft(draftNames, position, this.interner.fieldName(found, label));
            setDraft(draftLabels, position, label);
            draftIds[position] = found.id;
        }
        draftMasks[position] |= roleBit;
        return found;
    }

    /** `resolveField` of each projection's path, in order (a shared scratch array: the caller empties it). */
    resolveAll(projections: readonly Projection[]): (ResolvedField | undefined)[] {
        const found = resolvedScratch;
        if (found.length < projections.length) found.length = projections.length;
        const { interner, rootEntity } = this;
        for (let index = 0; index < projections.length; index++) {
            found[index] = interner.resolveField(rootEntity, projections[index].path);
        }
        return found;
    }

    /** Translates a WHERE expression, adding its attributes as fields in textual order. */
    filter(expression: Expression): FilterModel | undefined {
        if (isBinaryExpression(expression)) {
            const left = this.filter(expression.left);
            const right = this.filter(expression.right);
            if (!left || !right) return left ?? right;
            return { kind: 'binary', operator: expression.operator === 'or' ? 'or' : 'and', left, right };
        }
        if (isNotExpression(expression)) {
            const operand = this.filter(expression.operand);
            return operand && { kind: 'not', operand };
        }
        if (isGroupExpression(expression)) {
            const inner = this.filter(expression.inner);
            return inner && { kind: 'group', inner };
        }
        if (isComparison(expression)) {
            const operator = comparisonOperator(expression.operator);
            const field = this.fieldFor(
                expression.path,
                EQUALITY_OPERATORS.has(operator) ? ROLE_BITS.filtered : ROLE_BITS.ranged,
            );
            if (!field) return undefined;
            return { kind: 'compare', field: field.id, operator, value: this.value(expression.value, field) };
        }
        return undefined;
    }

    /** A comparison's value: a parameter (named after the attribute when anonymous) or a literal. */
    private value(value: Value, field: ResolvedField): ValueModel {
        const explicit = parameterName(value);
        if (explicit !== undefined) {
            const { name, isNew } = this.params.name(explicit, field.attribute, field.type);
            if (isNew) this.served.params.push({ name, type: field.type });
            return { kind: 'param', name };
        }
        if (isNumberValue(value)) return { kind: 'number', value: value.value, negative: Boolean(value.negative) };
        if (isBooleanValue(value))
            return { kind: 'boolean', value: String(value.value).toLowerCase() === 'true' ? 'true' : 'false' };
        if (isStringValue(value)) return { kind: 'string', value: value.value };
        return { kind: 'string', value: '' };
    }

    /** Empties the draft arrays' object slots: a builder whose query makes no collection. */
    discard(): void {
        draftFields.fill(undefined, 0, this.drafts);
    }

    finish(): CollectionModel {
        const count = this.drafts;
        const fields = presized<FieldModel>(count);
        for (let position = 0; position < count; position++) {
            fields[position] = this.interner.sharedField(
                draftFields[position] as ResolvedField,
                draftNames[position],
                draftLabels[position],
                draftMasks[position],
            );
        }
        // The scratch must not keep this model's identities (and through them its AST) alive.
        draftFields.fill(undefined, 0, count);
        return {
            name: this.query.name,
            rootEntity: this.rootEntityName,
            nodes: this.nodes,
            fields,
            // The ids were noted with the identities: no second visit of the scattered field objects.
            fieldIds: sortedIds(draftIds, count),
            queries: [this.served],
        };
    }
}

/** The counts of `sortedIds`' two passes (2^11 digits each) and its intermediate order, reused from query to query. */
const RADIX_BITS = 11;
const RADIX = 1 << RADIX_BITS;
const lowCounts = new Int32Array(RADIX + 1);
const highCounts = new Int32Array(RADIX + 1);
let radixScratch = new Int32Array(1024);

/**
 * The first `count` ids of `ids` (non-negative), ascending, in a new array: a two-pass radix sort when
 * every id is below 2^22 (an id is a position in the interner, so always on the benchmark's models),
 * which is about three times faster than `TypedArray.prototype.sort` on a thousand ids; else that sort.
 */
export function sortedIds(ids: Int32Array, count: number): Int32Array {
    const out = new Int32Array(count);
    let max = 0;
    for (let index = 0; index < count; index++) if (ids[index] > max) max = ids[index];
    if (count < 64 || max >= 1 << (2 * RADIX_BITS)) {
        out.set(ids.subarray(0, count));
        return out.sort();
    }
    if (radixScratch.length < count) radixScratch = new Int32Array(count);
    const scratch = radixScratch;
    lowCounts.fill(0);
    highCounts.fill(0);
    const mask = RADIX - 1;
    for (let index = 0; index < count; index++) {
        const id = ids[index];
        lowCounts[(id & mask) + 1]++;
        highCounts[(id >>> RADIX_BITS) + 1]++;
    }
    for (let digit = 0; digit < RADIX; digit++) {
        lowCounts[digit + 1] += lowCounts[digit];
        highCounts[digit + 1] += highCounts[digit];
    }
    for (let index = 0; index < count; index++) {
        const id = ids[index];
        scratch[lowCounts[id & mask]++] = id;
    }
    for (let index = 0; index < count; index++) {
        const id = scratch[index];
        out[highCounts[id >>> RADIX_BITS]++] = id;
    }
    return out;
}

/** Sets a slot of a draft array, growing it one slot at a time (a write past the end would make it a dictionary). */
function setDraft<T>(array: T[], position: number, value: T): void {
    if (position < array.length) array[position] = value;
    else array.push(value);
}
