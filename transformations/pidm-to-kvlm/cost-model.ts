/**
 * The cost of a design under a workload, per collection: reads (round trips and the keys and fields of the rows
 * a query reads), writes (the keys and fields the entity operations touch, from the cardinalities along the
 * include paths, as `buildWriteMap` counts rows) and memory (the keys and fields stored). Units are field
 * accesses; a round trip counts `ROUND_TRIP` of them, a key `KEY`. Time (reads + writes) decides, memory is
 * reported beside it. Pure: the working model and the workload in, figures out.
 *
 * Readings:
 * - a run of a query whose filter pins an equality (a conjunct `a = ?` outside any `or` / `not`) reads the rows of
 *   one instance of its FROM entity (the workload gives no selectivity), each row read whole (a Redis hash of
 *   listpack encoding is scanned to find a field; `redis-core` reads rows with HGETALL), so a wider row costs every
 *   query that reads it;
 * - a run of any other query (no filter, a range, an `or`) matches every row of the collection: the index walks
 *   and sorts them all before the first page, `SCAN` of a row's key and fields each, so it grows with the rows the
 *   collection holds (count × what every include binds) and their width — a merge that widens the rows of a
 *   range-read collection makes every such read dearer;
 * - a create adds, and a delete removes, every row holding the instance; an update rewrites the fields that copy
 *   the changed attribute in every row holding the instance: an indexed field (filtered, ranged or sorted) `KEY`
 *   + 2 a row (an FT.ADD … PARTIAL that moves its index entry), an unindexed one `COPY` a row (a bare HSET); a
 *   change of a reference rewrites the rows the include binds;
 * - the rows holding one instance bound at a node: the referrers along the path from the root, reversed
 *   (count(parent) × size / count(child) each), times what every include off that path binds (its size);
 * - every entity operation pays `OPERATION` once, whatever the design (`operationsCost`): the call of the entity
 *   Function, its read of the entity, its bookkeeping. It changes no choice (every design pays it alike), only how
 *   far apart two designs' times are;
 * - a row stores `ROW` beside its fields (its key, the hash, its entries in the collection's index), a collection
 *   `INDEX` once (its index, whatever its rows).
 *
 * - a collection's narrower form (`lookupCandidate`) keeps the fields a query filters, ranges or sorts on and reads
 *   the projected-only ones from the entity store by identifier: one more round trip and a key per entity per row;
 *   no target's client joins yet, so it is priced (`lookupCost`) and never chosen.
 *
 * `OPERATION`, `COPY`, `SCAN`, `ROW` and `INDEX` are calibrated with `npm run bench:cost` (docs/benchmarks.md,
 * `bench:cost`; it prints the fit beside these values) on RediSearch 1.2; the other constants count accesses.
 */
import type { Workload } from '../../src/language/pidm/pidm-workload.js';
import {
    ROLE_BITS,
    type CollectionModel,
    type FilterModel,
    type NodeModel,
    type ServedQueryModel,
} from './collection-model.js';

/** Field accesses a round trip costs. */
export const ROUND_TRIP = 10;
/** Field accesses a key costs (a lookup or a write of a row's key, its index entry). */
export const KEY = 1;
/**
 * Field accesses one entity operation costs whatever rows it writes (the Function's call, its read of the entity):
 * on the server about 6 row writes (`bench:cost`: 95–150 µs against 14–25 µs per FT.ADD row, a row write counting
 * `KEY` + 1.5; the fit moves from run to run on a shared machine).
 */
export const OPERATION = 15;
/**
 * Field accesses a copy of an unindexed attribute costs per row: the Function's HSET, which moves no index entry,
 * a fifth of an indexed copy's FT.ADD … PARTIAL (`KEY` + 2) on the server (`bench:cost`).
 */
export const COPY = 0.6;
/**
 * The share of a matched row's key and fields a range read pays (the index walks its entries and sorts by the
 * sort key, and loads whole rows for the first page only): `bench:cost` runs reads and writes alone and prints the
 * server's CPU per modelled field access of each, which this makes about equal.
 */
export const SCAN = 0.2;
/** Fields a row stores beside its own (its key, the hash, its index entries): measured 0.6 of a field. */
export const ROW = 1;
/** Fields a collection stores once (its index: about 14.5 KB on RediSearch 1.2, 250 fields of 59 bytes). */
export const INDEX = 250;

/** The figures of a collection or a design; `time` = `reads` + `writes`. */
export interface Cost {
    reads: number;
    writes: number;
    time: number;
    /** Keys and fields stored. */
    memory: number;
}

/** A cost of nothing. */
export const ZERO_COST: Cost = { reads: 0, writes: 0, time: 0, memory: 0 };

/** The sum of costs. */
export function addCosts(...costs: Cost[]): Cost {
    return costs.reduce(
        (sum, cost) => ({
            reads: sum.reads + cost.reads,
            writes: sum.writes + cost.writes,
            time: sum.time + cost.time,
            memory: sum.memory + cost.memory,
        }),
        ZERO_COST,
    );
}

const INDEXED_ROLES = ROLE_BITS.filtered | ROLE_BITS.ranged | ROLE_BITS.sorted;

/** The cost of one collection under the workload. */
export function collectionCost(collection: CollectionModel, workload: Workload): Cost {
    const byKey = new Map<string, NodeModel>(collection.nodes.map((node) => [node.key, node]));
    const width = collection.fields.length;
    const root = collection.nodes[0];
    const binds = (node: NodeModel): number =>
        node.parentKey === undefined ? 1 : workload.size(byKey.get(node.parentKey)!.entity, node.reference!);
    /** Rows per instance of the root entity: what every include binds. */
    const fan = collection.nodes.reduce((product, node) => product * binds(node), 1);
    const ancestors = (node: NodeModel): Set<NodeModel> => {
        const path = new Set<NodeModel>();
        for (let at: NodeModel | undefined = node; at; at = at.parentKey ? byKey.get(at.parentKey) : undefined)
            path.add(at);
        return path;
    };
    /** The rows holding one instance bound at `pinned` (through `through`, a child of it, for a reference). */
    const rowsHolding = (pinned: NodeModel, through: NodeModel): number => {
        let rows = 1;
        for (let at = pinned; at.parentKey !== undefined; at = byKey.get(at.parentKey)!) {
            const parent = byKey.get(at.parentKey)!;
            rows *= workload.referrers(parent.entity, at.reference!, at.entity);
        }
        const onPath = ancestors(through);
        for (const node of collection.nodes) if (!onPath.has(node)) rows *= binds(node);
        return rows;
    };

    let reads = 0;
    const stored = workload.count(root.entity) * fan;
    for (const query of collection.queries)
        reads += workload.queryRate(query.name) * readCost(query, fan, stored, width);

    let writes = 0;
    const fieldCost = (mask: number) => ((mask & INDEXED_ROLES) !== 0 ? KEY + 2 : COPY);
    for (const node of collection.nodes) {
        const changes = workload.changesOf(node.entity);
        const rows = rowsHolding(node, node);
        const fields = collection.fields.filter((field) => field.nodeKey === node.key);
        // A create or delete at the root adds or removes whole rows; below it, it adds or removes the rows the
        // new instance binds once something refers to it (counted here, the referring change being free).
        writes += changes.create * rows * (KEY + width);
        writes += changes.delete * rows * KEY;
        for (const field of fields) {
            // An identifier is never updated (a change of it is a delete and a create).
            if (field.attribute === node.identifier) continue;
            const mask = field.roleMasks.reduce((all, one) => all | one, 0);
            writes += workload.updateRate(node.entity, field.attribute) * rows * fieldCost(mask);
        }
        if (node.parentKey !== undefined) {
            const parent = byKey.get(node.parentKey)!;
            const rate = workload.updateRate(parent.entity, node.reference!);
            if (rate > 0) writes += rate * rowsHolding(parent, node) * (KEY + width);
        }
    }
    const memory = INDEX + stored * (ROW + width);
    return { reads, writes, time: reads + writes, memory };
}

/** Whether a filter keeps an equality whatever its other parts: a conjunct `field = value` outside `or` and `not`. */
export function pinsEquality(filter: FilterModel | undefined): boolean {
    if (!filter) return false;
    if (filter.kind === 'group') return pinsEquality(filter.inner);
    if (filter.kind === 'binary')
        return filter.operator === 'and' && (pinsEquality(filter.left) || pinsEquality(filter.right));
    return filter.kind === 'compare' && filter.operator === '=';
}

/**
 * A run of a query over a collection of `rows` rows, `fan` of them per instance of its FROM entity, `width` fields
 * each: a round trip, then one instance's rows read whole when its filter pins an equality, else every row scanned.
 */
export function readCost(query: ServedQueryModel, fan: number, rows: number, width: number): number {
    return ROUND_TRIP + (pinsEquality(query.where) ? fan * (KEY + width) : rows * SCAN * (KEY + width));
}

/**
 * The narrower form of a collection: only the fields some served query filters, ranges or sorts on (the row keys
 * keep the identifiers of every node), the projected-only ones looked up by identifier in the entity store after
 * the search (an application-side join). Undefined when every field is indexed (nothing to leave out).
 */
export interface LookupCandidate {
    /** The collection without its projected-only fields. */
    narrowed: CollectionModel;
    /** The entities looked up per row, with the fields read from each (node order). */
    lookups: { entity: string; fields: string[] }[];
}

/** The narrower form of a collection (see `LookupCandidate`), or undefined. */
export function lookupCandidate(collection: CollectionModel): LookupCandidate | undefined {
    const identifiers = new Set(collection.nodes.map((node) => `${node.key}\u0000${node.identifier}`));
    // A projected identifier stays: the row names the instance it looks up by it.
    const indexed = (field: CollectionModel['fields'][number]) =>
        identifiers.has(`${field.nodeKey}\u0000${field.attribute}`) ||
        field.roleMasks.some((mask) => (mask & INDEXED_ROLES) !== 0);
    const kept = collection.fields.filter(indexed);
    if (kept.length === collection.fields.length) return undefined;
    const lookups = collection.nodes.flatMap((node) => {
        const fields = collection.fields
            .filter((field) => field.nodeKey === node.key && !indexed(field))
            .map((field) => field.attribute);
        return fields.length > 0 ? [{ entity: node.entity, fields }] : [];
    });
    return {
        narrowed: { ...collection, fields: kept, fieldIds: Int32Array.from(kept.map((field) => field.id)).sort() },
        lookups,
    };
}

/**
 * The cost of a collection's narrower form under the workload: its writes and memory are the narrowed collection's
 * (a change of a projected-only attribute writes none of its rows: the entity store, which every design writes,
 * holds it); a run of a query reads the narrowed rows, then in one more round trip the entities each row names
 * (a key and the looked-up fields per entity per row).
 */
export function lookupCost(candidate: LookupCandidate, workload: Workload): Cost {
    const { narrowed, lookups } = candidate;
    const cost = collectionCost(narrowed, workload);
    const byKey = new Map<string, NodeModel>(narrowed.nodes.map((node) => [node.key, node]));
    const fan = narrowed.nodes.reduce(
        (product, node) =>
            product *
            (node.parentKey === undefined ? 1 : workload.size(byKey.get(node.parentKey)!.entity, node.reference!)),
        1,
    );
    const looked = lookups.reduce((sum, lookup) => sum + KEY + lookup.fields.length, 0);
    let reads = cost.reads;
    for (const query of narrowed.queries) reads += workload.queryRate(query.name) * (ROUND_TRIP + fan * looked);
    return { ...cost, reads, time: reads + cost.writes };
}

/** What the workload's entity operations cost whatever the design: `OPERATION` each (writes). */
export function operationsCost(workload: Workload): Cost {
    const writes = workload.operationRate() * OPERATION;
    return { reads: 0, writes, time: writes, memory: 0 };
}
