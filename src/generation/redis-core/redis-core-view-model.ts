/**
 * The core-Redis design's view model (what the `redis-core` templates and its engine runtime see): the library's
 * entry points, and per collection its row keys, record, indexes and query plans. Types only.
 */
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import type { EntityStoreSchema } from '../shared/entity-store.js';

/** The library's entry points, by role; every name is `<database>_<role>`. */
export interface CoreFunctions {
    /** Single server: writes a row and its index entries atomically (KEYS row key, record key). */
    put: string;
    /** Single server, counter keys: INCRs the counter and writes the row like `put`; returns the row key. */
    add: string;
    /** Single server: deletes a row and its index entries atomically (KEYS row key, record key). */
    del: string;
    /** Cluster step on the row's slot: writes the row hash alone (KEYS row key). */
    rowPut: string;
    /** Cluster step on the row's slot: deletes the row hash (KEYS row key). */
    rowDel: string;
    /** Cluster step on the index slot: makes the row's index entries match the given values (KEYS record key). */
    indexPut: string;
    /** Cluster step on the index slot: removes the row's index entries (KEYS record key). */
    indexDel: string;
    /** Single server: runs a query, returns its rows (row key, then the projected values). */
    query: string;
    /** Cluster step on the index slot: runs a query, returns the answer's row keys in order. */
    queryKeys: string;
}

/** The core-Redis view model (`schemas/redis-core-view-model.schema.json`): what templates/redis-core/ see. */
export interface CoreViewModel {
    target: 'redis-core';
    /** The KVLM database name. */
    database: string;
    /** The source model named by the KVLM, or null. */
    source: string | null;
    /** The function library's name (`FUNCTION LOAD`): `kvmod_<database>`. */
    library: string;
    functions: CoreFunctions;
    collections: CoreCollection[];
    /** Queries no index narrows (they read every record of their collection): what `generate` warns about. */
    warnings: CoreWarning[];
    /** The entity store (issue 28): entity hashes, reverse hashes and the entity Function; null when the design has none. */
    entityStore: CoreEntityStore | null;
    /** Why the design has no entity store (a design warning), or null. */
    noEntityStore: string | null;
}

/** The entity store of a redis-core design: its Function lives in the design's own library (`library.lua`). */
export interface CoreEntityStore {
    /** The layout every writer and reader of the entities shares (src/generation/shared/entity-store.ts). */
    schema: EntityStoreSchema;
    /** The entity code the library appends to its own (it calls `row_put`, `index_put`, `remove_entries`). */
    code: string;
}

/** A query served by reading every record of its collection. */
export interface CoreWarning {
    query: string;
    collection: string;
    /** Why no index narrows it. */
    reason: string;
    /** What the plan does instead. */
    instead: string;
}

/** A field of a collection's rows. */
export interface CoreField {
    /** The hash field name. */
    name: string;
    /** The name the queries use (`FL.departureTime`). */
    label: string;
    type: RedisLogicalType;
    /** Where the value comes from: `node.attribute`. */
    source: string;
}

/** One index structure of a collection (all in the collection's slot). */
export interface CoreIndex {
    /** `eq`: a set of row keys per normalised text value; `score`: a sorted set scored by the value; `lex`: a sorted set of `<sort form>\0\0<row key>`. */
    kind: 'eq' | 'score' | 'lex';
    field: string;
    type: RedisLogicalType;
    /** The field's column (1-based) in the collection's records. */
    column: number;
    /** The key (`score`, `lex`), or the key prefix the normalised value follows (`eq`); of the global partition `{C}`. */
    key: string;
    /** What follows a partition's hash tag: `:score:<field>`, `:lex:<field>`, `:eq:<field>:` (then the value). */
    suffix: string;
    /** The key as documentation shows it (`{C}:eq:author:<value>`). */
    pattern: string;
    /** The queries whose plans read it. */
    queries: string[];
}

/** A collection: its rows, its records and indexes, its queries. */
export interface CoreCollection {
    name: string;
    /** The hash tag of every index key: `{<collection>}`, or for a partitioned collection its pattern (`{C:<field>}`). */
    tag: string;
    /** The fields the index is partitioned by (each partition one hash tag, one slot), or null: one global partition. */
    partition: { fields: { field: string; type: RedisLogicalType; position: number }[] } | null;
    /** The row keys' prefix: `<collection>:`. */
    rowPrefix: string;
    /** The hash field holding the row's key (after the prefix). */
    keyField: string;
    key: {
        kind: 'natural' | 'counter';
        /** The natural key's parts (`node.attribute`, type), in order; empty for a counter. */
        parts: { source: string; type: RedisLogicalType }[];
        /** The row key as documentation shows it. */
        pattern: string;
        /** The counter (`{C}:counter`), or null for a natural key. */
        counterKey: string | null;
    };
    /** The row's fields, in the order the write functions take their values. */
    fields: CoreField[];
    /**
     * The record hash of the global partition (`{C}:rec`): row key → JSON array of the record's values. A partitioned
     * collection's calls on one server may name it instead of the partition's own (the functions find the partition);
     * a cluster routes by it, so there they must name the partition's.
     */
    recordKey: string;
    /** The record hash as documentation shows it: `{C}:rec`, or `{C:<field>}:rec` when partitioned. */
    recordPattern: string;
    /** The record's columns: the fields some query filters or sorts on, in field order. */
    record: { field: string; type: RedisLogicalType; position: number }[];
    indexes: CoreIndex[];
    queries: CoreQuery[];
}

/** A value in a plan: the n-th query parameter (1-based, after the query name), or an encoded literal. */
export type CoreValue = { param: number } | { literal: string };

/** A bound of a range: a value, inclusive or not. */
export interface CoreBound {
    value: CoreValue;
    inclusive: boolean;
}

/** How a plan finds its candidate rows. */
export type CoreAccess =
    | { kind: 'eq'; index: number; value: CoreValue }
    | { kind: 'range'; index: number; min: CoreBound | null; max: CoreBound | null }
    | { kind: 'union'; of: CoreAccess[] }
    | { kind: 'order'; index: number }
    | { kind: 'all' };

/** A filter over a record, in negation normal form (`not` only inside comparisons' operators). */
export type CoreFilter =
    | {
          op: 'cmp';
          column: number;
          type: RedisLogicalType;
          operator: '=' | '!=' | '<' | '<=' | '>' | '>=';
          value: CoreValue;
      }
    | { op: 'and' | 'or'; args: CoreFilter[] };

/** A served query as the library runs it. */
export interface CoreQuery {
    name: string;
    params: { name: string; type: RedisLogicalType; position: number }[];
    /** The filter as the KVLM writes it, or null. */
    where: string | null;
    /** `field asc|desc` per sort key. */
    orderBy: string[];
    projections: { field: string; label: string; type: RedisLogicalType }[];
    plan: {
        access: CoreAccess;
        /** The filter still to check on the candidates' records, or null when the access is exact. */
        filter: CoreFilter | null;
        /** The sort keys over record columns; empty when none or when the access already yields the order. */
        sort: { column: number; type: RedisLogicalType; descending: boolean }[];
        /** Whether the candidates come in answer order from the access path (read backwards when `descending`). */
        presorted: boolean;
        descending: boolean;
        /** The hash fields the answer projects. */
        project: string[];
    };
    /** Per partition field, the parameter (1-based) that fixes it; null when the collection is not partitioned. */
    partition: number[] | null;
    /** What the query costs, for the README. */
    cost: { access: string; keys: string[]; server: string; cluster: string; slots: string };
    /** Why the plan reads every record, or null. */
    warning: string | null;
}
