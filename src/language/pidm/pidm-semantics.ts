/**
 * What a PIDM model means, computed from the linked AST: normalised types and cardinalities, the entity
 * a path element stands for, and resolved attribute paths. Shared by scoping, validation, the M2M
 * transformation and the oracle, so that every layer agrees on one reading.
 */
import type { AstNode } from 'langium';
import {
    FromClause,
    Include,
    Reference,
    isAttribute,
    isFromClause,
    isIdAttribute,
    isInclude,
    isQuery,
    isReference,
    isStringValue,
    type Attribute,
    type Cardinality,
    type Entity,
    type IdAttribute,
    type Path,
    type PathElement,
    type Query,
    type OrderItem,
    type Value,
} from '../generated/ast.js';

/** The logical types every layer below PIDM uses. */
export type LogicalType = 'text' | 'int' | 'float' | 'boolean' | 'date' | 'time' | 'datetime';

/** Normalised cardinality: `one` = [1], `optional` = [0..1], `many` = anything else. */
export type CardinalityKind = 'one' | 'optional' | 'many';

/** The name of the surrogate identifier an entity without `id` gets. */
export const SURROGATE_ID = '_id';

const TYPE_SYNONYMS: Record<string, LogicalType> = {
    text: 'text',
    string: 'text',
    int: 'int',
    integer: 'int',
    long: 'int',
    float: 'float',
    double: 'float',
    decimal: 'float',
    real: 'float',
    number: 'float',
    boolean: 'boolean',
    bool: 'boolean',
    date: 'date',
    time: 'time',
    datetime: 'datetime',
    timestamp: 'datetime',
};

/** Maps a PIDM type spelling (any case, any synonym) to its logical type; undefined spells text. */
export function logicalType(spelling: string | undefined): LogicalType {
    if (spelling === undefined) return 'text';
    return TYPE_SYNONYMS[spelling.toLowerCase()] ?? 'text';
}

/** The logical type of an attribute (an untyped id is text). */
export function attributeType(attribute: Attribute | IdAttribute): LogicalType {
    return logicalType(attribute.type);
}

/** Reads a cardinality: `[1]`/`(1)` one, `[0..1]` optional, everything else many. */
export function cardinalityKind(cardinality: Cardinality | undefined): CardinalityKind {
    if (!cardinality || cardinality.many) return 'many';
    const lower = cardinality.lower;
    if (cardinality.upperMany) return 'many';
    const upper = cardinality.upper ?? lower;
    if (upper === 1 && lower === 1) return 'one';
    if (upper === 1 && lower === 0) return 'optional';
    if (upper === 0) return 'optional';
    return 'many';
}

/** Whether a reference is multi-valued. */
export function isMultiValued(reference: Reference): boolean {
    return cardinalityKind(reference.cardinality) === 'many';
}

/** The identifier attribute of an entity, if it declares one. */
export function identifierOf(entity: Entity): IdAttribute | undefined {
    return entity.members.find(isIdAttribute);
}

/** The name of an entity's identifier: its `id` attribute, or the surrogate `_id`. */
export function identifierName(entity: Entity): string {
    return identifierOf(entity)?.name ?? SURROGATE_ID;
}

/** The query a node belongs to, if any. */
export function containingQuery(node: AstNode | undefined): Query | undefined {
    let current = node;
    while (current && !isQuery(current)) current = current.$container;
    return current;
}

/** The alias an include is known by: its `AS` name, or the last step's spelling. */
export function includeAlias(include: Include): string | undefined {
    if (include.alias) return include.alias;
    const last = include.path?.segments.at(-1);
    return last?.element?.$refText || undefined;
}

/**
 * The entity a path element stands for when a path continues after it: the FROM entity, the end of an
 * include, or a reference's target. Attributes stand for no entity.
 */
export function entityOfElement(element: PathElement | undefined, guard?: Set<AstNode>): Entity | undefined {
    if (!element) return undefined;
    // By `$type` (these types have no subtypes): `isFromClause` & co. ask the reflection, and millions of path
    // steps call this.
    const type = element.$type;
    if (type === FromClause.$type) return (element as FromClause).entity?.ref;
    if (type === Reference.$type) return (element as Reference).target?.ref;
    if (type === Include.$type) {
        // The cycle guard is made only when includes chain (millions of path steps call this).
        const seen = guard ?? new Set<AstNode>();
        if (seen.has(element)) return undefined;
        seen.add(element);
        const last = (element as Include).path?.segments.at(-1)?.element?.ref;
        return entityOfElement(last, seen);
    }
    return undefined;
}

/** A path resolved to reference steps from the query's FROM entity, and its final attribute. */
export interface ResolvedPath {
    /** The references walked from the FROM entity, in order. */
    steps: Reference[];
    /** The attribute at the end, when the path ends in one. */
    attribute?: Attribute | IdAttribute;
    /** The canonical identity: `FromEntity.ref1.ref2.attr` (declared spellings, not aliases). */
    key: string;
    /** The canonical identity of the reference steps only: `FromEntity.ref1.ref2`. */
    nodeKey: string;
}

/**
 * Resolves a path in a query to its steps from the FROM entity, expanding aliases. Undefined when some
 * segment does not resolve (linking reports that) or the path goes through an attribute.
 */
export function resolvePath(path: Path, guard?: Set<AstNode>): ResolvedPath | undefined {
    // Called once per distinct path by the M2M transformation (a hundred thousand times on large
    // models): no iterator, no spread, and the include guard only made when an include is met.
    const query = containingQuery(path);
    const rootEntity = query?.from?.entity?.ref;
    const segments = path.segments;
    if (!query || !rootEntity || !segments || segments.length === 0) return undefined;
    const steps: Reference[] = [];
    let attribute: Attribute | IdAttribute | undefined;
    for (let index = 0; index < segments.length; index++) {
        const element = segments[index].element?.ref;
        if (!element || attribute) return undefined;
        if (isFromClause(element)) {
            if (index !== 0) return undefined;
        } else if (isInclude(element)) {
            guard ??= new Set<AstNode>();
            if (index !== 0 || guard.has(element)) return undefined;
            guard.add(element);
            const inner = element.path ? resolvePath(element.path, guard) : undefined;
            if (!inner || inner.attribute) return undefined;
            for (const step of inner.steps) steps.push(step);
        } else if (isReference(element)) {
            steps.push(element);
        } else if (isAttribute(element) || isIdAttribute(element)) {
            attribute = element;
        }
    }
    // Built like `[root, ...steps].join('.')`, which spells a missing name as ''.
    let nodeKey = rootEntity.name ?? '';
    for (const step of steps) nodeKey += `.${step.name ?? ''}`;
    return { steps, attribute, nodeKey, key: attribute ? `${nodeKey}.${attribute.name}` : nodeKey };
}

/** A sort direction, normalised (`ASC` is the default). */
export type SortDirectionKind = 'asc' | 'desc';

/** The direction of a sort key, lower case; a missing direction is ascending. */
export function sortDirection(item: OrderItem): SortDirectionKind {
    return item.direction?.toLowerCase() === 'desc' ? 'desc' : 'asc';
}

/** A comparison operator, normalised: `<>` reads as `!=`. */
export type ComparisonOperatorKind = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Normalises a comparison operator spelling (`<>` becomes `!=`). */
export function comparisonOperator(spelling: string): ComparisonOperatorKind {
    return (spelling === '<>' ? '!=' : spelling) as ComparisonOperatorKind;
}

/**
 * The parameter a value stands for: `"?"` is an anonymous parameter (name `''`), `"?country"` a named
 * one (`'country'`). Undefined for literals.
 */
export function parameterName(value: Value | undefined): string | undefined {
    if (!isStringValue(value) || typeof value.value !== 'string' || !value.value.startsWith('?')) return undefined;
    return value.value.slice(1).trim();
}

/** Whether a value is a parameter (`"?"`, `"?name"`) rather than a literal. */
export function isParameter(value: Value | undefined): boolean {
    return parameterName(value) !== undefined;
}
