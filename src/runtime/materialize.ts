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
import { bindNodes } from './oracle.js';

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

/** The rows of one collection. */
export function materializeCollection(
    collection: Collection,
    data: InstanceData,
    index: InstanceIndex,
): MaterializedCollection {
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
    const rows: MaterializedRow[] = bindNodes(nodes, data, index).map((binding, ordinal) => {
        const values: Record<string, TypedValue> = {};
        for (const field of fields) values[field.name] = binding[field.position][field.attribute] as TypedValue;
        const keyParts = natural
            ? parts.map((part) => identityOf(binding[part.position][part.attribute]))
            : [String(ordinal + 1)];
        return { keyParts, values };
    });
    if (natural) {
        // Two bindings with one natural key would overwrite each other in Redis: the key misses a multi-valued step.
        const seen = new Set<string>();
        for (const row of rows) {
            const identity = JSON.stringify(row.keyParts);
            if (seen.has(identity))
                throw new Error(
                    `collection ${collection.name}: two rows share the natural key ${identity}; the key must name every multi-valued node`,
                );
            seen.add(identity);
        }
    }
    return {
        name: collection.name,
        keyField: collection.keyField,
        strategy: natural ? 'natural' : 'counter',
        fields: fields.map(({ name, type }) => ({ name, type })),
        rows,
    };
}

/** The rows of every collection of a KVLM model, in declaration order. */
export function materializeModel(model: KvlmModel, data: InstanceData, index: InstanceIndex): MaterializedCollection[] {
    return model.collections.map((collection) => materializeCollection(collection, data, index));
}
