/**
 * The working model of Algorithms 1–3: plain objects, field identities interned as integers. The KVLM
 * AST is built from it once, at the end, so that merging never has to patch cross-references.
 */
import type { AstNode } from 'langium';
import {
    isAttribute,
    isFromClause,
    isIdAttribute,
    isInclude,
    type Attribute,
    type Entity,
    type IdAttribute,
    type Include,
    type Path,
    type Reference,
} from '../../src/language/generated/ast.js';
import {
    attributeType,
    resolvePath,
    type CardinalityKind,
    type ComparisonOperatorKind,
    type LogicalType,
    type SortDirectionKind,
} from '../../src/language/pidm/pidm-semantics.js';
import { toKvlmName } from '../../src/language/kvlm/kvlm-names.js';

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

/** The `queries` of Algorithm 1's fields: the collection's one served query. */
export const FIRST_QUERY: readonly number[] = Object.freeze([0]);

/**
 * A non-key field of a collection. Immutable once made, so that it can be shared: Algorithm 1's
 * collections share one object per distinct field (same identity, name, label and roles), and a merge
 * that leaves a field unchanged shares it with its source collection (a model of a million fields must
 * not be copied on every merge).
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
    /**
     * The served queries that use the field, in serving order, as positions in the collection's
     * `queries` (positions, not names, so that Algorithm 1's collections can share field objects).
     */
    readonly queries: readonly number[];
    /** For each of `queries`, the roles that query gives the field (bits of `ROLE_BITS`). */
    readonly roleMasks: readonly number[];
}

/**
 * The one constructor of fields. An object literal, not a class: V8 tracks a literal's allocation site
 * and, once it sees that its objects survive (most fields do), allocates them in the old generation
 * directly, where a class instance is copied by every young-generation collection it survives.
 */
export function fieldRecord(
    id: number,
    name: string,
    label: string,
    type: LogicalType,
    nodeKey: string,
    attribute: string,
    indexed: boolean,
    queries: readonly number[],
    roleMasks: readonly number[],
): FieldModel {
    return { id, name, label, type, nodeKey, attribute, indexed, queries, roleMasks };
}

/** The names of the served queries that give a field a role, in serving order. */
export function queriesWithRole(field: FieldModel, kind: RoleKind, served: readonly ServedQueryModel[]): string[] {
    const bit = ROLE_BITS[kind];
    const result: string[] = [];
    for (let index = 0; index < field.queries.length; index++) {
        if (field.roleMasks[index] & bit) result.push(served[field.queries[index]].name);
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
    projectionFields: Int32Array;
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

/** The reference steps of an attribute of the FROM entity itself. */
const NO_STEPS: readonly Reference[] = Object.freeze([]);

/** A node of the interning trie: the fields and child nodes reached from one reference path. */
interface InternNode {
    children: Map<Reference, InternNode>;
    attributes: Map<Attribute | IdAttribute, number>;
}

/**
 * A node of the path cache: paths spelled with the same sequence of AST elements resolve alike. A
 * class, so that every node has one shape (the lookup runs once per path of the input).
 *
 * Children are kept by their element's position in its container (`$containerIndex`) in three
 * parallel arrays: the element holding the slot, the child node (made only when a longer path goes
 * through it) and the result of a path that ends there. A path's last step — for most paths the only
 * one, `a17` — thus reads two short arrays of this node and no child node: the lookup runs a million
 * times over scattered memory, and every object it does not touch is a cache miss saved.
 */
class PathCacheNode {
    /** Slot → the element holding it (undefined: free). */
    readonly slotElements: (AstNode | undefined)[] = [];
    /** Slot → the child node reached by the slot's element, made on first need. */
    readonly slotNodes: (PathCacheNode | undefined)[] = [];
    /** Slot → what the path ending with the slot's element resolves to (see `result`). */
    readonly slotResults: (ResolvedField | null | undefined)[] = [];
    /** Children whose element has no position, or whose slot another element took. */
    byElement: Map<AstNode, PathCacheNode> | undefined = undefined;
    /**
     * The field this node's element sequence resolves to, for sequences not ending in a slot; null when
     * it is not an attribute path; undefined until resolved.
     */
    result: ResolvedField | null | undefined = undefined;

    /** The slot `element` holds, taken on first sight; -1 when it has no position or another element holds it. */
    slot(element: AstNode): number {
        const index = element.$containerIndex;
        if (index === undefined) return -1;
        const elements = this.slotElements;
        if (index < elements.length) {
            const holder = elements[index];
            if (holder === element) return index;
            // A slot once taken is never freed, so an element that finds it taken lives in `byElement`.
            if (holder !== undefined) return -1;
        } else {
            // Grown one by one: a write far past the end would turn the arrays into dictionaries.
            while (elements.length <= index) {
                elements.push(undefined);
                this.slotNodes.push(undefined);
                this.slotResults.push(undefined);
            }
        }
        elements[index] = element;
        return index;
    }

    /** The child reached by `element`, made on first sight. */
    child(element: AstNode): PathCacheNode {
        const index = this.slot(element);
        if (index >= 0) {
            let child = this.slotNodes[index];
            if (child === undefined) {
                child = new PathCacheNode();
                this.slotNodes[index] = child;
            }
            return child;
        }
        this.byElement ??= new Map();
        let child = this.byElement.get(element);
        if (child === undefined) {
            child = new PathCacheNode();
            this.byElement.set(element, child);
        }
        return child;
    }
}

/**
 * A field identity — a resolved attribute path — with its interned id: one object per identity, so that
 * Algorithm 1's per-identity bookkeeping (which collection claimed it, its last name and field) sits
 * in the object the path lookup returns, not in seven arrays read at random. Made by `resolvedField`.
 */
export interface ResolvedField {
    readonly id: number;
    /** The reference steps from the FROM entity. */
    readonly steps: readonly Reference[];
    /** The identity of the node holding the attribute, `Passenger.flights.origin` (see `NodeModel.key`). */
    readonly nodeKey: string;
    /** The declared attribute name. */
    readonly attribute: string;
    /** The attribute's logical type (computed once per identity, not per use). */
    readonly type: LogicalType;
    /** Whether the attribute is the FROM entity's own (no reference steps). */
    readonly onRoot: boolean;
    /** Scratch of `FieldInterner.claim`: the owner that last claimed the identity, and its value. */
    claimOwner: number;
    claimValue: number;
    /** Memo of `FieldInterner.fieldName`: the last label named, its KVLM name and that name's claim. */
    namedLabel: string | undefined;
    namedBase: string;
    namedClaim: NameClaim | undefined;
    /**
     * Memo of `FieldInterner.sharedField`: the field made last for this identity, with its name, label
     * and role mask (kept here, so that telling whether it fits reads this object only).
     */
    lastField: FieldModel | undefined;
    lastName: string | undefined;
    lastLabel: string | undefined;
    lastMask: number;
}

/**
 * A new identity. An object literal, not a class: V8 then sees the identities survive and allocates
 * them in the old generation directly (see `fieldRecord`).
 */
function resolvedField(
    id: number,
    steps: readonly Reference[],
    nodeKey: string,
    attribute: string,
    type: LogicalType,
): ResolvedField {
    // What Algorithm 1 reads and writes for every use of the identity comes first (the object spans
    // three cache lines; a use then mostly touches the first two), what only a new field reads last.
    return {
        claimOwner: -1,
        claimValue: -1,
        id,
        onRoot: steps.length === 0,
        namedLabel: undefined,
        namedBase: '',
        namedClaim: undefined,
        lastField: undefined,
        lastMask: -1,
        lastName: undefined,
        lastLabel: undefined,
        nodeKey,
        steps,
        attribute,
        type,
    };
}

/**
 * Interns field identities — resolved attribute paths, `Passenger.flights.origin.city` — as small
 * integers, without building or hashing an identity string per use: a path is looked up in a cache
 * keyed by the AST elements its segments name (under the query's FROM entity), and only a new
 * sequence of elements is resolved with `resolvePath` and interned through a trie keyed by the
 * references and the attribute; no identity string is made (nothing in the transformation reads one).
 */
export class FieldInterner {
    private readonly roots = new Map<Entity, InternNode>();
    private readonly paths = new Map<Entity, PathCacheNode>();
    /** The last FROM entity asked for and its cache node: a query's paths all start there. */
    private lastRoot: Entity | undefined = undefined;
    private lastRootNode = new PathCacheNode();
    /** Where the paths that start with an include go on from (see `startNode`); null: nowhere. */
    private readonly includeStarts = new Map<Include, PathCacheNode | null>();
    private readonly identities: ResolvedField[] = [];
    /** How many identities were interned: the next id. */
    private count = 0;
    private owners = 0;
    /** The field names taken in the collection being built (Algorithm 1 builds one at a time). */
    private readonly fieldNames = new NameScope();

    /** A fresh owner number for `claim`; it also starts a new scope of field names (see `fieldName`). */
    newOwner(): number {
        this.fieldNames.begin();
        return this.owners++;
    }

    /**
     * A field name unique in the newest owner's collection: the KVLM form of `label` (`Origin.city` →
     * `Origin_city`), else with a suffix. The memo in `field` lets the same label of the same field in
     * the next collection find its name without converting and hashing it again.
     */
    fieldName(field: ResolvedField, label: string): string {
        if (field.namedLabel !== label) {
            field.namedLabel = label;
            field.namedBase = toKvlmName(label);
            field.namedClaim = this.fieldNames.claimOf(field.namedBase);
        }
        return this.fieldNames.take(field.namedBase, field.namedClaim);
    }

    /** Reserves a name in the newest owner's collection (its key field). */
    reserveFieldName(name: string): void {
        this.fieldNames.take(name);
    }

    /** Resolves and interns an attribute path of a query whose FROM entity is `root`; undefined when it is not one. */
    resolveField(root: Entity, path: Path): ResolvedField | undefined {
        let node = root === this.lastRoot ? this.lastRootNode : this.rootNode(root);
        const segments = path.segments ?? [];
        const last = segments.length - 1;
        for (let index = 0; index <= last; index++) {
            const element = segments[index].element?.ref;
            if (!element) return undefined;
            if (index === 0) {
                // A path that starts with the query's FROM alias or one of its includes (`E3.a17`) goes on
                // from the reference steps it stands for: every query has its own include elements, and keyed
                // by them no two queries would share a path (each would be resolved anew). The `$type` test
                // (both types are leaves of the grammar's hierarchy) spares the other paths, most of them,
                // two calls of the reflection's `isInstance`.
                const type = element.$type;
                if (type === 'FromClause' || type === 'Include') {
                    const start = this.startNode(node, element);
                    if (start) {
                        node = start;
                        continue;
                    }
                }
            }
            if (index === last) {
                // The last step: its result sits in this node's slot arrays, without a child node.
                const slot = node.slot(element);
                if (slot >= 0) {
                    let result = node.slotResults[slot];
                    if (result === undefined) {
                        result = this.resolveNew(root, path);
                        node.slotResults[slot] = result;
                    }
                    return result ?? undefined;
                }
            }
            node = node.child(element);
        }
        if (node.result === undefined) node.result = this.resolveNew(root, path);
        return node.result ?? undefined;
    }

    /**
     * The cache node a path's first element leads to when it is the FROM clause (the root itself) or an include
     * (the node of the include's reference steps, as `resolvePath` expands them); undefined for any other element,
     * or an include that does not resolve to references (such paths are keyed by their elements).
     */
    private startNode(root: PathCacheNode, element: AstNode): PathCacheNode | undefined {
        if (isFromClause(element)) return root;
        if (!isInclude(element)) return undefined;
        let start = this.includeStarts.get(element);
        if (start === undefined) {
            const resolved = element.path ? resolvePath(element.path) : undefined;
            start = null;
            if (resolved && !resolved.attribute) {
                start = root;
                for (const step of resolved.steps) start = start.child(step);
            }
            this.includeStarts.set(element, start);
        }
        return start ?? undefined;
    }

    private rootNode(root: Entity): PathCacheNode {
        let node = this.paths.get(root);
        if (!node) {
            node = new PathCacheNode();
            this.paths.set(root, node);
        }
        this.lastRoot = root;
        this.lastRootNode = node;
        return node;
    }

    /** The first path with a given sequence of elements: resolved, and interned unless its identity is known. */
    private resolveNew(root: Entity, path: Path): ResolvedField | null {
        // Most paths name one attribute of the FROM entity (`a17`): `resolvePath`'s answer for them is
        // known without its objects and strings — no reference steps, the entity's name as node key.
        const segments = path.segments;
        if (segments?.length === 1) {
            const element = segments[0].element?.ref;
            if (isAttribute(element) || isIdAttribute(element))
                return this.identity(root, NO_STEPS, element, root.name ?? '');
        }
        const resolved = resolvePath(path);
        if (!resolved?.attribute) return null;
        return this.identity(root, resolved.steps, resolved.attribute, resolved.nodeKey);
    }

    /** The identity object of an attribute reached by `steps` from `root`, made on its first sight. */
    private identity(
        root: Entity,
        steps: readonly Reference[],
        attribute: Attribute | IdAttribute,
        nodeKey: string,
    ): ResolvedField {
        const id = this.intern(root, steps, attribute);
        let field = this.identities[id];
        if (field === undefined) {
            field = resolvedField(id, steps, nodeKey, attribute.name, attributeType(attribute));
            this.identities[id] = field;
        }
        return field;
    }

    /**
     * An Algorithm 1 field (served by its collection's one query): the object made last for the same
     * identity when name, label and roles agree — queries that share a path mostly do — else a new one.
     */
    sharedField(identity: ResolvedField, name: string, label: string, mask: number): FieldModel {
        const last = identity.lastField;
        if (
            last !== undefined &&
            identity.lastMask === mask &&
            identity.lastName === name &&
            identity.lastLabel === label
        )
            return last;
        const field = fieldRecord(
            identity.id,
            name,
            label,
            identity.type,
            identity.nodeKey,
            identity.attribute,
            (mask & ROLE_BITS.sorted) !== 0,
            FIRST_QUERY,
            SINGLE_MASKS[mask],
        );
        identity.lastField = field;
        identity.lastName = name;
        identity.lastLabel = label;
        identity.lastMask = mask;
        return field;
    }

    /**
     * The id of a resolved attribute path (resolved from a query whose FROM entity is `root`): its
     * reference `steps` and its `attribute`.
     */
    private intern(root: Entity, steps: readonly Reference[], attribute: Attribute | IdAttribute): number {
        let node: InternNode | undefined = this.roots.get(root);
        if (!node) {
            node = { children: new Map(), attributes: new Map() };
            this.roots.set(root, node);
        }
        for (const step of steps) {
            let child: InternNode | undefined = node.children.get(step);
            if (!child) {
                child = { children: new Map(), attributes: new Map() };
                node.children.set(step, child);
            }
            node = child;
        }
        let id = node.attributes.get(attribute);
        if (id === undefined) {
            id = this.count++;
            node.attributes.set(attribute, id);
        }
        return id;
    }

    /**
     * A per-identity scratch slot, cheaper than a Map per query: `claimed(field, owner)` is the value
     * `owner` attached to the field's identity with `claim`, or -1. Owners come from `newOwner`.
     */
    claimed(field: ResolvedField, owner: number): number {
        return field.claimOwner === owner ? field.claimValue : -1;
    }

    /** Attaches a value to an identity for one owner (see `claimed`). */
    claim(field: ResolvedField, owner: number, value: number): void {
        field.claimOwner = owner;
        field.claimValue = value;
    }
}

/**
 * An array to fill by index from 0: exactly `length` slots when that is cheap, so that a long list is
 * neither copied while it grows nor left with the spare capacity `push` reserves. (`new Array(n)`
 * past some tens of thousands makes a slow dictionary-mode array; then the filling grows it.)
 */
export function presized<T>(length: number): T[] {
    return length <= 16_384 ? new Array<T>(length) : [];
}

/** A name's record in a `NameScope`: the scope that last took it. */
export interface NameClaim {
    scope: number;
}

/**
 * `uniqueName` for a succession of scopes (one collection after the other), in one map from a name to
 * the scope that last took it: the same answers as a fresh `Set` per scope, without building a set of
 * a thousand names for each of a thousand collections. Beginning a scope ends the previous one.
 */
export class NameScope {
    private readonly claims = new Map<string, NameClaim>();
    private scope = 0;

    /** Starts a new scope in which no name is taken. */
    begin(): void {
        this.scope++;
    }

    /** The record of a name; a caller that takes the same name again and again may keep it. */
    claimOf(name: string): NameClaim {
        let claim = this.claims.get(name);
        if (!claim) {
            claim = { scope: 0 };
            this.claims.set(name, claim);
        }
        return claim;
    }

    /** Like `uniqueName(base, names taken in the current scope)`; `claim` is `claimOf(base)`. */
    take(base: string, claim = this.claimOf(base)): string {
        if (claim.scope !== this.scope) {
            claim.scope = this.scope;
            return base;
        }
        for (let suffix = 2; ; suffix++) {
            const name = `${base}_${suffix}`;
            const other = this.claimOf(name);
            if (other.scope !== this.scope) {
                other.scope = this.scope;
                return name;
            }
        }
    }
}

/** Whether a pair passes Algorithm 3's threshold: common/n1 >= t and common/n2 >= t (non-key fields), common > 0. */
export function passesThreshold(common: number, leftSize: number, rightSize: number, threshold: number): boolean {
    return common > 0 && common / leftSize >= threshold && common / rightSize >= threshold;
}
