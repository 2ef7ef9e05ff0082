/**
 * The data the redis-core function library holds, as plain values the `lua` helper writes as Lua tables: per
 * collection its keys, fields, record columns and indexes; per query its plan. Light (types only from the design),
 * so the target module stays cheap to load.
 */
import { createHash } from 'node:crypto';
import type { CoreCollection, CoreQuery } from './redis-core-design.js';

/** The Lua data the library reads for one collection: exactly what its functions need. */
export interface CoreLuaCollection {
    name: string;
    /** The global partition's hash tag `{C}` (the only one when `partition` is empty). */
    tag: string;
    /** The partition fields: position among `fields`, and whether it is text (else an integer form). */
    partition: { position: number; text: boolean }[];
    rowPrefix: string;
    keyField: string;
    recordKey: string;
    counterKey: string;
    fields: string[];
    /** 1-based positions of the record's columns among `fields`. */
    record: number[];
    /** Each index key is a partition's tag, then `suffix`. */
    indexes: { kind: string; column: number; suffix: string; int: boolean }[];
}

/** The Lua table the library holds for a collection. */
export function luaCollection(collection: CoreCollection): CoreLuaCollection {
    return {
        name: collection.name,
        tag: `{${collection.name}}`,
        partition: (collection.partition?.fields ?? []).map((f) => ({ position: f.position, text: f.type === 'text' })),
        rowPrefix: collection.rowPrefix,
        keyField: collection.keyField,
        recordKey: collection.recordKey,
        counterKey: collection.key.counterKey ?? '',
        fields: collection.fields.map((f) => f.name),
        record: collection.record.map((c) => c.position),
        indexes: collection.indexes.map((index) => ({
            kind: index.kind,
            column: index.column,
            suffix: index.suffix,
            int: index.type === 'int',
        })),
    };
}

/**
 * What a query reads, hashed (6 hex digits): its plan and its collection's Lua data. A generated client names the
 * signature with the query (`<query>@<signature>`), so a library of another design whose query reads other rows or
 * answers other columns refuses the call instead of answering in a shape the client would misread.
 */
export function querySignature(query: CoreQuery, collection: CoreCollection): string {
    const text = JSON.stringify({ query: queryPlanData(query, collection), collection: luaCollection(collection) });
    return createHash('sha256').update(text).digest('hex').slice(0, 6);
}

/** The Lua table the library holds for a query: its collection, plan and signature. */
export function luaQuery(query: CoreQuery, collection: CoreCollection): Record<string, unknown> {
    return { ...queryPlanData(query, collection), signature: querySignature(query, collection) };
}

function queryPlanData(query: CoreQuery, collection: CoreCollection): Record<string, unknown> {
    return {
        collection: collection.name,
        params: query.params.map((p) => p.type),
        partition: query.partition ?? [],
        access: query.plan.access,
        filter: query.plan.filter ?? false,
        sort: query.plan.sort,
        presorted: query.plan.presorted,
        descending: query.plan.descending,
        project: query.plan.project,
    };
}
