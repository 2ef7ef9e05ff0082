/**
 * The working model of Algorithms 1–3: plain objects, field identities interned as integers. The KVLM
 * AST is built from it once, at the end, so that merging never has to patch cross-references.
 */
import type { AstNode } from 'langium';
import type { Attribute, Entity, IdAttribute, Path, Reference } from '../../src/language/generated/ast.js';
import {
    attributeType,
    resolvePath,
    type CardinalityKind,
    type ComparisonOperatorKind,
    type LogicalType,
    type ResolvedPath,
    type SortDirectionKind,
} from '../../src/language/pidm/pidm-semantics.js';

/** A node of a collection's row grain: the FROM entity (root) or an included reference. */
export interface NodeModel {
    /** Identity: the reference path from the root entity, `Passenger.flights.origin`. */
    key: string;
    /** The node's name in this collection (unique in it). */
    name: string;
    /** The parent node's key; undefined for the root. */
    parentKey?: string;
    /** The declared reference name of the last step; undefined for the root. */
    reference?: string;
    /** The entity the node stands for. */
    entity: string;
    /** The entity's identifier attribute name (or the surrogate `_id`). */
    identifier: string;
    /** The cardinality of the step that reaches it; `one` for the root. */
    cardinality: CardinalityKind;
}

/** The role kinds in printing order. */
export const ROLE_KINDS = ['projected', 'filtered', 'ranged', 'sorted'] as const;

/** A role kind: why a query needs a field. */
export type RoleKind = (typeof ROLE_KINDS)[number];

/** The bit of each role kind in a role mask. */
export const ROLE_BITS: Readonly<Record<RoleKind, number>> = { projected: 1, filtered: 2, ranged: 4, sorted: 8 };

/** One frozen one-element array per mask value, so that Algorithm 1's fields share them instead of allocating. */
export const SINGLE_MASKS: readonly (readonly number[])[] = Array.from({ length: 16 }, (_, mask) =>
    Object.freeze([mask]),
);

/**
 * A non-key field of a collection. Immutable once made: a merge that leaves a field unchanged shares the
 * object with its source collection (a model of a million fields must not be copied on every merge).
 */
export interface FieldModel {
    /** Interned identity: the resolved attribute path (see `FieldInterner.identityOf`). */
    readonly id: number;
    /** Physical name (unique in the collection). */
    readonly name: string;
    /** The query's spelling where the field was first met, `Origin.city`. */
    readonly label: string;
    readonly type: LogicalType;
    /** The key of the node holding the attribute. */
    readonly nodeKey: string;
    /** The declared attribute name. */
    readonly attribute: string;
    /** The paper's flag: some served query sorts on it. */
    readonly indexed: boolean;
    /** The served queries that use the field, in serving order. */
    readonly queries: readonly string[];
    /** For each of `queries`, the roles that query gives the field (bits of `ROLE_BITS`). */
    readonly roleMasks: readonly number[];
}

/** The one constructor of Algorithm 1's fields: a class allocates faster than a literal of nine properties. */
export class FieldRecord implements FieldModel {
    constructor(
        public id: number,
        public name: string,
        public label: string,
        public type: LogicalType,
        public nodeKey: string,
        public attribute: string,
        public indexed: boolean,
        public queries: readonly string[],
        public roleMasks: readonly number[],
    ) {}
}

/** The queries that give a field a role, in serving order. */
export function queriesWithRole(field: FieldModel, kind: RoleKind): string[] {
    const bit = ROLE_BITS[kind];
    const result: string[] = [];
    for (let index = 0; index < field.queries.length; index++) {
        if (field.roleMasks[index] & bit) result.push(field.queries[index]);
    }
    return result;
}

/** A value in a served query's filter. */
export type ValueModel =
    | { kind: 'param'; name: string }
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: number; negative: boolean }
    | { kind: 'boolean'; value: 'true' | 'false' };

/** A served query's filter over field identities. */
export type FilterModel =
    | { kind: 'binary'; operator: 'and' | 'or'; left: FilterModel; right: FilterModel }
    | { kind: 'not'; operand: FilterModel }
    | { kind: 'group'; inner: FilterModel }
    | { kind: 'compare'; field: number; operator: ComparisonOperatorKind; value: ValueModel };

/** What a collection must do for one query: its parameters, filter, sort keys and projection. */
export interface ServedQueryModel {
    name: string;
    params: { name: string; type: LogicalType }[];
    where?: FilterModel;
    sortKeys: { field: number; direction: SortDirectionKind }[];
    /** The projected fields' ids, in SELECT order (parallel to `projectionLabels`; two arrays, not a million pairs). */
    projectionFields: number[];
    /** The column names the application sees: the `AS` alias, else the query's spelling. */
    projectionLabels: string[];
}

/** A collection of the logical model, as Algorithms 1–3 handle it. */
export interface CollectionModel {
    name: string;
    /** The FROM entity of its row grain. */
    rootEntity: string;
    /** Root first, then every node after its parent. */
    nodes: NodeModel[];
    /** Non-key fields, in the order Algorithms 1 and 2 add them. */
    fields: FieldModel[];
    /** The interned field identities, ascending (for fast overlap counting). */
    fieldIds: Int32Array;
    queries: ServedQueryModel[];
}

/** A node of the interning trie: the fields and child nodes reached from one reference path. */
interface InternNode {
    children: Map<Reference, InternNode>;
    attributes: Map<Attribute | IdAttribute, number>;
}

/** A node of the path cache: paths spelled with the same sequence of AST elements resolve alike. */
interface PathCacheNode {
    next?: Map<AstNode, PathCacheNode>;
    /** The field this element sequence resolves to; null when it is not an attribute path. */
    result?: ResolvedField | null;
}

/** An attribute path resolved and interned. */
export interface ResolvedField {
    id: number;
    /** The reference steps from the FROM entity. */
    steps: readonly Reference[];
    /** The declared attribute name. */
    attribute: string;
    /** The attribute's logical type (computed once per path shape, not per use). */
    type: LogicalType;
}

/**
 * Interns field identities — resolved attribute paths, `Passenger.flights.origin.city` — as small
 * integers, without building or hashing an identity string per use: a path is looked up in a cache
 * keyed by the AST elements its segments name (under the query's FROM entity), and only a new
 * sequence of elements is resolved with `resolvePath` and interned through a trie keyed by the
 * references and the attribute. The identity string is kept once per distinct identity.
 */
export class FieldInterner {
    private readonly roots = new Map<Entity, InternNode>();
    private readonly paths = new Map<Entity, PathCacheNode>();
    private readonly identities: string[] = [];
    /** Scratch for `claim`: which owner last claimed an id, and the value it attached. */
    private readonly claimOwner: number[] = [];
    private readonly claimValue: number[] = [];
    private owners = 0;

    /** A fresh owner number for `claim`. */
    newOwner(): number {
        return this.owners++;
    }

    /** Resolves and interns an attribute path of a query whose FROM entity is `root`; undefined when it is not one. */
    resolveField(root: Entity, path: Path): ResolvedField | undefined {
        let node = this.paths.get(root);
        if (!node) {
            node = {};
            this.paths.set(root, node);
        }
        for (const segment of path.segments ?? []) {
            const element = segment.element?.ref;
            if (!element) return undefined;
            node.next ??= new Map();
            let next: PathCacheNode | undefined = node.next.get(element);
            if (!next) {
                next = {};
                node.next.set(element, next);
            }
            node = next;
        }
        if (node.result === undefined) {
            const resolved = resolvePath(path);
            node.result = resolved?.attribute
                ? {
                      id: this.intern(root, resolved),
                      steps: resolved.steps,
                      attribute: resolved.attribute.name,
                      type: attributeType(resolved.attribute),
                  }
                : null;
        }
        return node.result ?? undefined;
    }

    /** The id of a resolved attribute path (resolved from a query whose FROM entity is `root`). */
    intern(root: Entity, resolved: ResolvedPath): number {
        let node: InternNode | undefined = this.roots.get(root);
        if (!node) {
            node = { children: new Map(), attributes: new Map() };
            this.roots.set(root, node);
        }
        for (const step of resolved.steps) {
            let child: InternNode | undefined = node.children.get(step);
            if (!child) {
                child = { children: new Map(), attributes: new Map() };
                node.children.set(step, child);
            }
            node = child;
        }
        const attribute = resolved.attribute as Attribute | IdAttribute;
        let id = node.attributes.get(attribute);
        if (id === undefined) {
            id = this.identities.length;
            node.attributes.set(attribute, id);
            this.identities.push(resolved.key);
            // Grown here, so that `claimed` never reads past the end (a slow path for V8).
            this.claimOwner.push(-1);
            this.claimValue.push(-1);
        }
        return id;
    }

    /**
     * A per-id scratch slot, cheaper than a Map per query: `claimed(id, owner)` is the value `owner`
     * attached to `id` with `claim`, or -1. Owners must be distinct numbers (e.g. a query's index).
     */
    claimed(id: number, owner: number): number {
        return this.claimOwner[id] === owner ? this.claimValue[id] : -1;
    }

    /** Attaches a value to an id for one owner (see `claimed`). */
    claim(id: number, owner: number, value: number): void {
        this.claimOwner[id] = owner;
        this.claimValue[id] = value;
    }

    /** The identity an id stands for, `Passenger.flights.origin.city`. */
    identityOf(id: number): string {
        return this.identities[id];
    }

    /** How many identities were interned (ids are 0 … size-1). */
    get size(): number {
        return this.identities.length;
    }
}

/** The field ids of a list of fields, ascending. */
export function sortedFieldIds(fields: readonly FieldModel[]): Int32Array {
    const ids = new Int32Array(fields.length);
    for (let index = 0; index < fields.length; index++) ids[index] = fields[index].id;
    return ids.sort();
}

/** A name not yet in `taken`: the base itself, else `base_2`, `base_3`, …; the result is added to `taken`. */
export function uniqueName(base: string, taken: Set<string>): string {
    let name = base;
    for (let suffix = 2; taken.has(name); suffix++) name = `${base}_${suffix}`;
    taken.add(name);
    return name;
}

const KVLM_NAME = /^[_a-zA-Z]\w*$/;

/** Makes a KVLM name from any spelling: non-word characters become `_`, a leading digit gets a `_`. */
export function toKvlmName(spelling: string): string {
    if (KVLM_NAME.test(spelling)) return spelling;
    const dotted = spelling.replaceAll('.', '_');
    if (KVLM_NAME.test(dotted)) return dotted;
    const cleaned = spelling.replace(/\W/g, '_');
    if (cleaned === '') return '_';
    return /^\d/.test(cleaned) ? `_${cleaned}` : cleaned;
}

/** Whether a pair passes Algorithm 3's threshold: common/n1 >= t and common/n2 >= t (non-key fields), common > 0. */
export function passesThreshold(common: number, leftSize: number, rightSize: number, threshold: number): boolean {
    return common > 0 && common / leftSize >= threshold && common / rightSize >= threshold;
}
