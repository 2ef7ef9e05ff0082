/**
 * What an entity operation does to the rows of every collection: the rows materialization makes from the data before
 * and after it (materialize.ts, the rows `kvmod load` writes), compared row by row. A row is the same row before and
 * after when it has the same identity: its natural key, or for a counter key (whose numbers are given in binding
 * order, so they shift) the identifiers of the objects bound at its nodes — what the server's row map keeps.
 * The server's entity Function, `bench:writes` (keys written per operation) and the workload all read these.
 */
import { isNaturalKey, type Collection, type KvlmModel } from '../../language/generated/ast.js';
import type { TypedValue } from '../collation.js';
import { identityOf, indexInstanceData, type InstanceData, type InstanceIndex } from '../instance-data.js';
import { collectionNodes, materializeCollection, type MaterializedRow } from '../materialize.js';
import { bindNodes } from '../oracle.js';
import type { RuntimeModel } from '../runtime-model.js';

/** A row in both states whose values differ: which fields. */
export interface ChangedRow {
    before: MaterializedRow;
    after: MaterializedRow;
    /** The fields whose values differ, in the collection's field order. */
    fields: string[];
}

/** One collection's row changes. */
export interface CollectionRowEffects {
    collection: string;
    strategy: 'natural' | 'counter';
    /** Rows only before: to delete. */
    deleted: MaterializedRow[];
    /** Rows only after: to write whole. */
    written: MaterializedRow[];
    /** Rows in both with different values. Rows in both with equal values are left out (nothing to write). */
    changed: ChangedRow[];
}

/** The row changes from `before` to `after`, one entry per collection of the design, in declaration order. */
export function rowEffects(
    model: RuntimeModel,
    design: KvlmModel,
    before: InstanceData,
    after: InstanceData,
): CollectionRowEffects[] {
    const beforeIndex = indexInstanceData(model, before);
    const afterIndex = indexInstanceData(model, after);
    return design.collections.map((collection) =>
        collectionEffects(model, collection, before, beforeIndex, after, afterIndex),
    );
}

/** Rows deleted, written and changed over all collections (a changed row is one key written). */
export function countRowEffects(effects: readonly CollectionRowEffects[]): {
    deleted: number;
    written: number;
    changed: number;
} {
    let deleted = 0;
    let written = 0;
    let changed = 0;
    for (const effect of effects) {
        deleted += effect.deleted.length;
        written += effect.written.length;
        changed += effect.changed.length;
    }
    return { deleted, written, changed };
}

function collectionEffects(
    model: RuntimeModel,
    collection: Collection,
    before: InstanceData,
    beforeIndex: InstanceIndex,
    after: InstanceData,
    afterIndex: InstanceIndex,
): CollectionRowEffects {
    const old = identifiedRows(model, collection, before, beforeIndex);
    const now = identifiedRows(model, collection, after, afterIndex);
    const fields = collection.fields.map((field) => field.name);
    const effects: CollectionRowEffects = {
        collection: collection.name,
        strategy: isNaturalKey(collection.strategy) ? 'natural' : 'counter',
        deleted: [],
        written: [],
        changed: [],
    };
    for (const [identity, row] of old) if (!now.has(identity)) effects.deleted.push(row);
    for (const [identity, row] of now) {
        const was = old.get(identity);
        if (was === undefined) {
            effects.written.push(row);
            continue;
        }
        const differ = fields.filter((field) => !sameValue(was.values[field], row.values[field]));
        if (differ.length > 0) effects.changed.push({ before: was, after: row, fields: differ });
    }
    return effects;
}

/** A collection's rows by identity (see the module comment). */
function identifiedRows(
    model: RuntimeModel,
    collection: Collection,
    data: InstanceData,
    index: InstanceIndex,
): Map<string, MaterializedRow> {
    const { rows } = materializeCollection(collection, data, index);
    const byIdentity = new Map<string, MaterializedRow>();
    if (isNaturalKey(collection.strategy)) {
        for (const row of rows) byIdentity.set(JSON.stringify(row.keyParts), row);
        return byIdentity;
    }
    // Materialization makes one row per binding, in the order `bindNodes` gives them.
    const nodes = collectionNodes(collection);
    const idNames = nodes.map((node) => model.entities.get(node.entity)?.idName ?? '');
    const bindings = bindNodes(nodes, data, index);
    for (let i = 0; i < rows.length; i++) {
        const binding = bindings[i];
        byIdentity.set(
            JSON.stringify(binding.map((object, position) => identityOf(object[idNames[position]]))),
            rows[i],
        );
    }
    return byIdentity;
}

function sameValue(a: TypedValue | undefined, b: TypedValue | undefined): boolean {
    return a === b || (a !== a && b !== b);
}
