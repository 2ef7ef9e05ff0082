/**
 * Materialization: the rows of every KVLM collection, computed from instance data by following the
 * collection's node tree (the root ranges over its entity; each include follows its reference, inner
 * join as the oracle does), with every field read from `node.attribute` and the row key made by the
 * collection's key strategy. What `kvmod load` writes, before encoding.
 */
import { isNaturalKey, type Collection, type KvlmModel } from '../language/generated/ast.js';
import type { LogicalType } from '../language/pidm/pidm-semantics.js';
import type { TypedValue } from './collation.js';
import { identityOf, type InstanceData, type InstanceIndex } from './instance-data.js';
import { bindNodes, nodeBinder, type Binding } from './oracle.js';

/** One row of a collection: its key and the typed value of every field. */
export interface MaterializedRow {
    /** The key's identity: the natural key's parts (identifiers along the path) or the counter value. */
    keyParts: string[];
    /** Field values by field name. */
    values: Record<string, TypedValue>;
}

/** A collection's rows and what is needed to write them. */
export interface MaterializedCollection {
    name: string;
    keyField: string;
    strategy: 'natural' | 'counter';
    fields: { name: string; type: LogicalType }[];
    rows: MaterializedRow[];
}

/** A node as materialization reads it from a collection. */
interface CollectionNode {
    key: string;
    entity: string;
    parent?: string;
    reference?: string;
    kind: 'root' | 'one' | 'optional' | 'many';
}

/** The name a cross-reference points to, for parsed and in-memory ASTs alike. */
function refName(reference: { ref?: { name: string }; $refText?: string }): string {
    return reference.ref?.name ?? reference.$refText ?? '';
}

/** The node tree of a collection, parents first. */
export function collectionNodes(collection: Collection): CollectionNode[] {
    const nodes: CollectionNode[] = [{ key: collection.root.name, entity: collection.root.entity, kind: 'root' }];
    for (const node of collection.nodes) {
        nodes.push({
            key: node.name,
            entity: node.entity,
            parent: refName(node.parent),
            reference: node.reference,
            kind: node.cardinality as CollectionNode['kind'],
        });
    }
    return nodes;
}

/**
 * Rows a writer reads in order, a batch at a time: an array, or rows made on demand (`streamModel`). Writers use
 * only `length` and `slice`, so that a load can write the first batch before the last row is made; a slice past the
 * last row is empty, so a writer can read batches until one is empty without asking for `length` (which makes rows
 * made on demand find every binding of their collection first).
 */
export interface RowBatches {
    readonly length: number;
    slice(start: number, end: number): MaterializedRow[];
}

/** A collection's rows (an array, or made batch by batch) and what is needed to write them. */
export interface CollectionRows extends Omit<MaterializedCollection, 'rows'> {
    rows: RowBatches;
}

/** How one collection's rows are made from the bindings of its node tree. */
interface RowMaker {
    collection: Omit<MaterializedCollection, 'rows'>;
    /** One binding of the collection's nodes per row (found on first use). */
    readonly bindings: Binding[];
    /**
     * The bindings found so far, after finding those of the first `count` rows at least (every one when there are
     * fewer): a writer asks only for the rows of its next batch, so the first batch of a collection is written before
     * the bindings of its last row are found.
     */
    bindingsUpTo(count: number): Binding[];
    /** The row of the binding at `ordinal` (0-based). */
    row(binding: Binding, ordinal: number): MaterializedRow;
    /** Throws when a row's natural key was seen before (natural keys only; rows checked in order). */
    checkKey?(row: MaterializedRow): void;
}

/** The identifier attribute of an entity (the runtime model's `idName`). */
export type IdNames = (entity: string) => string | undefined;

function rowMaker(collection: Collection, data: InstanceData, index: InstanceIndex, idNames?: IdNames): RowMaker {
    const nodes = collectionNodes(collection);
    const positions = new Map(nodes.map((node, position) => [node.key, position]));
    const at = (nodeName: string): number => {
        const position = positions.get(nodeName);
        if (position === undefined) throw new Error(`collection ${collection.name}: unknown node ${nodeName}`);
        return position;
    };
    const fields = collection.fields.map((field) => ({
        name: field.name,
        type: field.type as LogicalType,
        position: at(refName(field.node)),
        attribute: field.attribute,
    }));
    const natural = isNaturalKey(collection.strategy);
    const parts = isNaturalKey(collection.strategy)
        ? collection.strategy.parts.map((part) => ({ position: at(refName(part.node)), attribute: part.attribute }))
        : [];
    const valuesOf = valuesMaker(fields);
    const row = (binding: Binding, ordinal: number): MaterializedRow => {
        let keyParts: string[];
        if (!natural) keyParts = [String(ordinal + 1)];
        else {
            keyParts = new Array<string>(parts.length);
            for (let i = 0; i < parts.length; i++)
                keyParts[i] = identityOf(binding[parts[i].position][parts[i].attribute]);
        }
        return { keyParts, values: valuesOf(binding) };
    };
    // Two bindings with one natural key would overwrite each other in Redis: the key misses a multi-valued step.
    // (One lookup per row: a key seen before leaves the set's size as it was.)
    const seen = new Set<string>();
    const checkKey = (made: MaterializedRow): void => {
        const before = seen.size;
        seen.add(made.keyParts.length === 1 ? made.keyParts[0] : JSON.stringify(made.keyParts));
        if (seen.size === before)
            throw new Error(
                `collection ${collection.name}: two rows share the natural key ${JSON.stringify(made.keyParts)}; the key must name every multi-valued node`,
            );
    };
    // The bindings are found a chunk of root objects at a time (each chunk bound through every node, in order: what
    // binding all roots at once gives, since bindings are ordered by their root first).
    const rootEntity = nodes[0].entity;
    const roots = data[rootEntity] ?? [];
    let found: Binding[] = [];
    let bound = 0;
    const bind = nodeBinder(nodes, index);
    const bindingsUpTo = (count: number): Binding[] => {
        while (found.length < count && bound < roots.length) {
            const to = Math.min(roots.length, bound + ROOTS_PER_CHUNK);
            bind(roots, bound, to, found);
            bound = to;
        }
        return found;
    };
    return {
        collection: {
            name: collection.name,
            keyField: collection.keyField,
            strategy: natural ? 'natural' : 'counter',
            fields: fields.map(({ name, type }) => ({ name, type })),
        },
        get bindings() {
            if (bound > 0) return bindingsUpTo(Infinity);
            // Every root at once (what the chunks add up to).
            bound = roots.length;
            return (found = bindNodes(nodes, data, index));
        },
        bindingsUpTo,
        row,
        checkKey: natural && !(idNames && keyNamesEveryStep(nodes, parts, idNames)) ? checkKey : undefined,
    };
}

/** Root objects bound at once by `RowMaker.bindingsUpTo` (a batch of rows, or a few). */
const ROOTS_PER_CHUNK = 1024;

/** Where a field's value is read: the attribute of the object bound at a node's position. */
type FieldSource = { name: string; position: number; attribute: string };

/**
 * The function making a row's values from a binding: an object literal of the fields, compiled once per collection
 * (every row's values then share one V8 map with the fields in the object, and each read is of a constant attribute
 * name), equal to filling `{}` field by field in order. A field named `__proto__` (which a literal would not make an
 * own property) takes that plain loop.
 */
export function valuesMaker(fields: readonly FieldSource[]): (binding: Binding) => Record<string, TypedValue> {
    if (fields.some((field) => field.name === '__proto__' || !Number.isSafeInteger(field.position)))
        return (binding) => plainValues(fields, binding);
    const entries = fields.map(
        (field) => `${JSON.stringify(field.name)}: b[${field.position}][${JSON.stringify(field.attribute)}]`,
    );
    return new Function(`return (b) => ({ ${entries.join(', ')} });`)() as (
        binding: Binding,
    ) => Record<string, TypedValue>;
}

/** A row's values made field by field (what `valuesMaker` compiles). */
export function plainValues(fields: readonly FieldSource[], binding: Binding): Record<string, TypedValue> {
    const values: Record<string, TypedValue> = {};
    for (const field of fields) values[field.name] = binding[field.position][field.attribute] as TypedValue;
    return values;
}

/**
 * True when a natural key names, by its identifier, the object of the root and of every node reached through a list
 * (`many`): then no two rows can share the key in checked data (identifiers are unique, a list never repeats one, and
 * a `one` or `optional` step is fixed by its parent), and the rows need no check of their keys.
 */
function keyNamesEveryStep(
    nodes: readonly CollectionNode[],
    parts: readonly { position: number; attribute: string }[],
    idNames: IdNames,
): boolean {
    return nodes.every(
        (node, position) =>
            node.kind === 'one' ||
            node.kind === 'optional' ||
            parts.some((part) => part.position === position && part.attribute === idNames(node.entity)),
    );
}

/** The rows of one collection. */
export function materializeCollection(
    collection: Collection,
    data: InstanceData,
    index: InstanceIndex,
): MaterializedCollection {
    const maker = rowMaker(collection, data, index);
    const rows = maker.bindings.map((binding, ordinal) => maker.row(binding, ordinal));
    if (maker.checkKey) for (const row of rows) maker.checkKey(row);
    return { ...maker.collection, rows };
}

/**
 * Rows made on demand, batch by batch: a slice makes the rows it covers (and nothing is kept), so a writer can send
 * the first batch while the rest are not made yet, and a written row is garbage at once. The bindings (which objects
 * make each row) are found as the rows are asked for, a chunk of root objects at a time (all of them when their
 * number is asked for: slicing until a slice is empty does not). The natural keys are
 * checked as the rows are made, in order (a slice past rows not yet checked checks their keys first): a collision
 * stops the write at the first repeated key.
 */
class LazyRows implements RowBatches {
    private checked = 0;

    constructor(private readonly maker: RowMaker) {}

    get length(): number {
        return this.maker.bindings.length;
    }

    slice(start: number, end: number): MaterializedRow[] {
        const { row, checkKey } = this.maker;
        const bindings = this.maker.bindingsUpTo(end);
        const to = Math.min(end, bindings.length);
        const before = Math.min(start, bindings.length);
        if (checkKey) while (this.checked < before) checkKey(row(bindings[this.checked], this.checked++));
        const rows: MaterializedRow[] = new Array<MaterializedRow>(Math.max(0, to - start));
        for (let ordinal = start; ordinal < to; ordinal++) {
            const made = row(bindings[ordinal], ordinal);
            if (checkKey && ordinal === this.checked) {
                checkKey(made);
                this.checked++;
            }
            rows[ordinal - start] = made;
        }
        return rows;
    }
}

/**
 * The rows of every collection of a KVLM model, in declaration order, made as a writer asks for them (see
 * `LazyRows`): what `kvmod load` writes. A collection's bindings, values and keys are found batch by batch as a
 * writer reaches them (every binding when it asks how many rows there are). With `idNames`, for data that passed
 * `validateInstanceData`, a natural key that names every step by its identifier is not checked row by row (see
 * `keyNamesEveryStep`); any other still is.
 */
export function streamModel(
    model: KvlmModel,
    data: InstanceData,
    index: InstanceIndex,
    idNames?: IdNames,
): CollectionRows[] {
    return model.collections.map((collection) => {
        const maker = rowMaker(collection, data, index, idNames);
        return { ...maker.collection, rows: new LazyRows(maker) };
    });
}

/** The rows of every collection of a KVLM model, in declaration order. */
export function materializeModel(model: KvlmModel, data: InstanceData, index: InstanceIndex): MaterializedCollection[] {
    return model.collections.map((collection) => materializeCollection(collection, data, index));
}
