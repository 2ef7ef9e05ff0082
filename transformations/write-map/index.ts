/**
 * The write map of a design: for each entity attribute and reference of the PIDM, the collection fields (and
 * includes) of the KVLM that copy it, and how many rows of each collection an update of one instance rewrites.
 * Pure (no file system, no console): a linked PIDM and the KVLM designed from it in, a per-entity map out. The
 * report shows it; the entity operations need exactly this to find every row an instance contributes to.
 *
 * A collection's rows are the bindings of its include tree (inner joins, as the oracle reads them). The rows that
 * hold one instance x bound at node N are therefore:
 * - one per chain of referrers from the FROM entity down to x: for each step of the path root → N, reversed, the
 *   instances of the parent entity whose reference reaches the child. The PIDM states how many targets a
 *   reference has, never how many referrers: a reversed step is unbounded (`[*]`);
 * - times, for every include off that path (a sibling, or below N), the instances it binds: `[*]` multiplies,
 *   `[0..1]` keeps the row only when present, `[1]` leaves the count alone.
 */
import type { Collection, Entity, KvlmModel, PathNode, PidmModel, RootNode } from '../../src/language/generated/ast.js';
import { isAttribute, isIdAttribute, isNaturalKey, isReference } from '../../src/language/generated/ast.js';
import { referencedName } from '../../src/language/kvlm/kvlm-semantics.js';
import { identifierOf, SURROGATE_ID } from '../../src/language/pidm/pidm-semantics.js';

/** One factor of a row count. */
export type RowFactor =
    /** A reversed step of the path to the copy: the `entity` instances whose `reference` reaches one `of`. */
    | { kind: 'referrers'; entity: string; reference: string; of: string }
    /** An include off the path: the `entity` instances `of.reference` binds per row (`many` or `optional`). */
    | { kind: 'include'; entity: string; reference: string; of: string; cardinality: 'many' | 'optional' };

/** How many rows of a collection an update of one instance rewrites: the product of the factors (none: 1 row). */
export interface RowCount {
    factors: RowFactor[];
    /** In words: `1 row per Appointment of the Patient (Appointment.patient reversed: [*])`. */
    text: string;
    /** As a count: `1`, `Appointments per Patient`, `Tags per Book × (0 or 1 Room per Appointment)`. */
    count: string;
}

/** A collection field that copies an attribute. */
export interface AttributeCopy {
    collection: string;
    field: string;
    /** The node the value is read at (the FROM alias or an include's name). */
    node: string;
    /** The field's roles (`projected`, `filtered`, `ranged`, `sorted`); `key` for the key field of a key part no field holds. */
    roles: string[];
    indexed: boolean;
    /** The field is a part of the collection's natural key: a change moves the row to another key. */
    keyPart: boolean;
    rows: RowCount;
}

/** An include that walks a reference: setting, unsetting, adding or removing it adds or removes rows. */
export interface ReferenceCopy {
    collection: string;
    /** The include's name. */
    node: string;
    /** The rows one (instance, target) pair of the reference binds. */
    rows: RowCount;
}

/** An entity's write map. */
export interface EntityWriteMap {
    entity: string;
    /** Every attribute, in declaration order (the surrogate `_id` first when the entity has no identifier). */
    attributes: { name: string; identifier: boolean; copies: AttributeCopy[] }[];
    /** Every reference, in declaration order. */
    references: { name: string; target: string; copies: ReferenceCopy[] }[];
}

type Node = RootNode | PathNode;

/** Every copy a design makes: attribute copies by `Entity.attribute`, reference copies by `Entity.reference`. */
export interface DesignCopies {
    attributes: Map<string, AttributeCopy[]>;
    references: Map<string, ReferenceCopy[]>;
}

/**
 * The copies of a KVLM design alone, keyed by the entity and member they copy: what the write map lists, and what
 * needs no PIDM (the entity operations read an attribute's roles from it). Pure.
 */
export function designCopies(kvlm: KvlmModel): DesignCopies {
    const attributeCopies = new Map<string, AttributeCopy[]>();
    const referenceCopies = new Map<string, ReferenceCopy[]>();
    const add = <T>(map: Map<string, T[]>, key: string, value: T) => {
        const list = map.get(key);
        if (list) list.push(value);
        else map.set(key, [value]);
    };
    for (const collection of kvlm.collections) {
        const tree = collectionTree(collection);
        const keyParts = isNaturalKey(collection.strategy)
            ? new Set(collection.strategy.parts.map((part) => `${referencedName(part.node)}.${part.attribute}`))
            : new Set<string>();
        const fieldSources = new Set<string>();
        for (const field of collection.fields) {
            const node = tree.byName.get(referencedName(field.node));
            if (!node) continue;
            fieldSources.add(`${node.name}.${field.attribute}`);
            add(attributeCopies, `${node.entity}.${field.attribute}`, {
                collection: collection.name,
                field: field.name,
                node: node.name,
                roles: field.roles.map((role) => role.kind),
                indexed: field.indexed,
                keyPart: keyParts.has(`${node.name}.${field.attribute}`),
                rows: rowsHolding(tree, node, node),
            });
        }
        // A key part no field holds is still copied: into the row's key (and its key field).
        if (isNaturalKey(collection.strategy))
            for (const part of collection.strategy.parts) {
                const node = tree.byName.get(referencedName(part.node));
                if (!node || fieldSources.has(`${node.name}.${part.attribute}`)) continue;
                add(attributeCopies, `${node.entity}.${part.attribute}`, {
                    collection: collection.name,
                    field: collection.keyField,
                    node: node.name,
                    roles: ['key'],
                    indexed: false,
                    keyPart: true,
                    rows: rowsHolding(tree, node, node),
                });
            }
        for (const node of collection.nodes) {
            const parent = tree.parentOf.get(node)!;
            add(referenceCopies, `${parent.entity}.${node.reference}`, {
                collection: collection.name,
                node: node.name,
                rows: rowsHolding(tree, parent, node),
            });
        }
    }
    return { attributes: attributeCopies, references: referenceCopies };
}

/** Builds the write map of every entity of the PIDM against the KVLM designed from it. Pure. */
export function buildWriteMap(pidm: readonly PidmModel[], kvlm: KvlmModel): EntityWriteMap[] {
    const entities = pidm.flatMap((model) => model.entities);
    const copies = designCopies(kvlm);
    return entities.map((entity) => ({
        entity: entity.name,
        attributes: attributesOf(entity).map((attribute) => ({
            ...attribute,
            copies: copies.attributes.get(`${entity.name}.${attribute.name}`) ?? [],
        })),
        references: entity.members.filter(isReference).map((reference) => ({
            name: reference.name,
            target: reference.target.ref?.name ?? reference.target.$refText,
            copies: copies.references.get(`${entity.name}.${reference.name}`) ?? [],
        })),
    }));
}

/** An entity's attributes as the KVLM names them: the declared ones, the surrogate first when there is no id. */
function attributesOf(entity: Entity): { name: string; identifier: boolean }[] {
    const declared = entity.members
        .filter((member) => isAttribute(member) || isIdAttribute(member))
        .map((member) => ({ name: member.name, identifier: isIdAttribute(member) }));
    return identifierOf(entity) ? declared : [{ name: SURROGATE_ID, identifier: true }, ...declared];
}

/** A collection's include tree: nodes by name, each include's parent. */
interface Tree {
    root: RootNode;
    nodes: readonly PathNode[];
    byName: Map<string, Node>;
    parentOf: Map<PathNode, Node>;
}

function collectionTree(collection: Collection): Tree {
    const byName = new Map<string, Node>([[collection.root.name, collection.root]]);
    for (const node of collection.nodes) byName.set(node.name, node);
    const parentOf = new Map<PathNode, Node>();
    for (const node of collection.nodes) parentOf.set(node, byName.get(referencedName(node.parent)) ?? collection.root);
    return { root: collection.root, nodes: collection.nodes, byName, parentOf };
}

/**
 * The rows holding one instance bound at `pinned` (and, for a reference, one target bound at `through`, a child
 * of `pinned`; for an attribute `through` is `pinned`): the referrers along root → pinned, reversed, times the
 * includes off root → through.
 */
function rowsHolding(tree: Tree, pinned: Node, through: Node): RowCount {
    const onPath = new Set<Node>();
    for (
        let node: Node | undefined = through;
        node;
        node = node.$type === 'PathNode' ? tree.parentOf.get(node) : undefined
    )
        onPath.add(node);
    const factors: RowFactor[] = [];
    for (let node: Node = pinned; node.$type === 'PathNode';) {
        const parent = tree.parentOf.get(node)!;
        factors.push({ kind: 'referrers', entity: parent.entity, reference: node.reference, of: node.entity });
        node = parent;
    }
    for (const node of tree.nodes) {
        if (onPath.has(node) || node.cardinality === 'one') continue;
        factors.push({
            kind: 'include',
            entity: node.entity,
            reference: node.reference,
            of: tree.parentOf.get(node)!.entity,
            cardinality: node.cardinality === 'optional' ? 'optional' : 'many',
        });
    }
    return { factors, text: describeRows(factors), count: countRows(factors) };
}

/** A row count in words. */
export function describeRows(factors: readonly RowFactor[]): string {
    if (factors.length === 0) return '1 row';
    const words = factors.map((factor) =>
        factor.kind === 'referrers'
            ? `${factor.entity} of the ${factor.of} (${factor.entity}.${factor.reference} reversed: [*])`
            : factor.cardinality === 'many'
              ? `${factor.entity} of the ${factor.of} (${factor.of}.${factor.reference}: [*])`
              : `${factor.entity} of the ${factor.of} if any (${factor.of}.${factor.reference}: [0..1])`,
    );
    return `1 row per ${words.join(' × ')}`;
}

/**
 * A row count as a count of instances: `1`; a reversed step is `Books per Tag` (the Books whose `tags` reach one
 * Tag), a `[*]` include `Tags per Book`, a `[0..1]` include `(0 or 1 Room per Appointment)`; factors multiply.
 */
export function countRows(factors: readonly RowFactor[]): string {
    if (factors.length === 0) return '1';
    return factors
        .map((factor) =>
            factor.kind === 'include' && factor.cardinality === 'optional'
                ? `(0 or 1 ${factor.entity} per ${factor.of})`
                : `${plural(factor.entity)} per ${factor.of}`,
        )
        .join(' × ');
}

/**
 * The rows of several copies together (an update writes each copy's rows): the counts of 1 added up, equal
 * counts grouped, in order of first appearance: `3 + 2 × Tags per Book`. No copies: `0`.
 */
export function totalRows(rows: readonly RowCount[]): string {
    let ones = 0;
    const grouped = new Map<string, number>();
    for (const { count } of rows) {
        if (count === '1') ones++;
        else grouped.set(count, (grouped.get(count) ?? 0) + 1);
    }
    const terms = [...grouped].map(([count, times]) => (times === 1 ? count : `${times} × ${count}`));
    if (ones > 0 || terms.length === 0) terms.unshift(String(ones));
    return terms.join(' + ');
}

/** An entity name in the plural, for counts (`Book` → `Books`, `Address` → `Addresses`, `Category` → `Categories`). */
function plural(name: string): string {
    if (/(s|x|z|ch|sh)$/.test(name)) return `${name}es`;
    if (/[^aeiouAEIOU]y$/.test(name)) return `${name.slice(0, -1)}ies`;
    return `${name}s`;
}
