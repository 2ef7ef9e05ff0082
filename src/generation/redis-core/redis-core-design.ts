/**
 * The core-Redis design of a KVLM model: no module, only hashes, sets and sorted sets, and one Redis Functions
 * library (`FUNCTION LOAD`, Redis 7) holding every write and read entry point. Pure: built from the KVLM alone.
 *
 * - Rows: one hash per row at `<collection>:<key>` (natural key parts escaped, or a counter value); the key has no
 *   hash tag, so a cluster spreads rows over its shards.
 * - Partitions: a collection whose every query has equality parameters on the same fields (`field = ?p` in the
 *   filter's top-level conjunction; text, int, date, time, datetime or boolean fields) is partitioned by those fields:
 *   its index keys carry the hash tag `{<collection>:<value>…}` (values in equality form, escaped), so each query
 *   reads one partition (one slot) and the collection's index spreads over a cluster's masters. Every other
 *   collection has one global partition, the hash tag `{<collection>}`. One family of index keys per collection
 *   (not one per query): every write updates one partition, and queries whose equality parameters differ share the
 *   fields they have in common (none in common: global). A row of a partitioned collection holds the tag of the
 *   partition its index entries are in (`@partition`), so an update that moves it, or a delete, finds the old ones.
 * - Indexes: every index key of a partition carries the partition's hash tag, so one slot holds them all: the
 *   record hash `{C}:rec` (row key → the row's filtered and sorted values, JSON: the index's own copy, read to remove
 *   old entries on update and delete), a set per value for text equality (`{C}:eq:<field>:<normalised value>`), a
 *   sorted set per numeric field (`{C}:score:<field>`, the value as score) and per ranged text field
 *   (`{C}:lex:<field>`, lexicographic members `<sort form>\0\0<row key>`).
 * - Reads: each served query is a plan (an access path, a residual filter over the records, a sort) that the
 *   library's read functions run inside the index slot; a query whose filter no index can narrow is a warning.
 */
import {
    isKBinaryExpression,
    isKComparison,
    isKGroupExpression,
    isKNotExpression,
    isNaturalKey,
    isParameterRef,
    type Collection,
    type Field,
    type KExpression,
    type KvlmModel,
    type PidmModel,
} from '../../language/generated/ast.js';
import { coreEntityStore } from '../entities/entity-store-design.js';
import { GenerationError } from '../generation-errors.js';
import { escapeCoreKeyPart, partitionTag } from '../shared/core-partition.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import { buildQuery, describeCost, refName } from './redis-core-query-plan.js';
import type {
    CoreCollection,
    CoreField,
    CoreFunctions,
    CoreIndex,
    CoreQuery,
    CoreViewModel,
} from './redis-core-view-model.js';

export type {
    CoreFunctions,
    CoreViewModel,
    CoreWarning,
    CoreField,
    CoreIndex,
    CoreCollection,
    CoreValue,
    CoreBound,
    CoreAccess,
    CoreFilter,
    CoreQuery,
    CoreEntityStore,
} from './redis-core-view-model.js';

/** The most characters Redis accepts in a function name. */
const MAX_FUNCTION_NAME = 64;

/** The row field of a partitioned collection that names the partition holding the row's index entries. */
export const CORE_PARTITION_FIELD = '@partition';

/**
 * The hash tag of the partition that encoded partition values (one per partition field, in order) name: the values
 * in equality form (text) or as integers (the other types), escaped like key parts. The library's `tag_of`.
 */
export function corePartitionTag(collection: CoreCollection, values: readonly string[]): string {
    const partition = collection.partition;
    if (!partition) return collection.tag;
    return partitionTag(
        collection.name,
        partition.fields.map((field) => field.type === 'text'),
        values,
    );
}

/** The record key of the partition a row's values (one per field, in field order) fall in. */
export function coreRowRecordKey(collection: CoreCollection, values: readonly string[]): string {
    const partition = collection.partition;
    if (!partition) return collection.recordKey;
    return `${corePartitionTag(
        collection,
        partition.fields.map((field) => values[field.position - 1]),
    )}:rec`;
}

/** The record key of the partition a query reads, from its encoded parameter values (in parameter order). */
export function coreQueryRecordKey(collection: CoreCollection, query: CoreQuery, params: readonly string[]): string {
    if (!collection.partition || !query.partition) return collection.recordKey;
    return `${corePartitionTag(
        collection,
        query.partition.map((position) => params[position - 1]),
    )}:rec`;
}

export { escapeCoreKeyPart };

/** The function names of a database's library; a GenerationError when Redis would refuse them. */
export function coreFunctions(database: string): CoreFunctions {
    const name = (role: string) => `${database}_${role}`;
    const functions: CoreFunctions = {
        put: name('put'),
        add: name('add'),
        del: name('del'),
        rowPut: name('row_put'),
        rowDel: name('row_del'),
        indexPut: name('index_put'),
        indexDel: name('index_del'),
        query: name('query'),
        queryKeys: name('query_keys'),
    };
    const longest = Object.values(functions).reduce((a, b) => (a.length >= b.length ? a : b));
    if (longest.length > MAX_FUNCTION_NAME || !/^[A-Za-z0-9_]+$/.test(longest)) {
        throw new GenerationError(
            `the database name '${database}' makes the Redis function name '${longest}', which Redis refuses (letters, digits and _ only, at most ${MAX_FUNCTION_NAME} characters): shorten the database name`,
            { code: 'generation.unsupported' },
        );
    }
    return functions;
}

/** Builds the core-Redis design of a KVLM model (with the source PIDM, its entity store too). Pure. */
export function buildCoreViewModel(kvlm: KvlmModel, pidm?: readonly PidmModel[]): CoreViewModel {
    const collections = kvlm.collections.map(buildCollection);
    const entities = coreEntityStore(kvlm, pidm, collections);
    return {
        target: 'redis-core',
        database: kvlm.name,
        source: kvlm.source ?? null,
        library: `kvmod_${kvlm.name}`,
        functions: coreFunctions(kvlm.name),
        collections,
        warnings: collections.flatMap((collection) =>
            collection.queries
                .filter((query) => query.warning !== null)
                .map((query) => ({
                    query: query.name,
                    collection: collection.name,
                    reason: query.warning!,
                    instead: `the plan reads every record of ${collection.name} (HKEYS ${collection.recordPattern}, then HMGET) and filters them in the function: its cost grows with the collection, not with the answer`,
                })),
        ),
        entityStore: entities.store,
        noEntityStore: entities.missing,
    };
}

/** The fields a query's filter fixes to a parameter in its top-level conjunction (`field = ?p and …`). */
function equalityParameters(expression: KExpression | undefined, fields: Map<string, string>): Map<string, string> {
    const found = new Map<string, string>();
    const visit = (e: KExpression): void => {
        if (isKGroupExpression(e)) visit(e.inner);
        else if (isKBinaryExpression(e)) {
            if (e.operator !== 'and') return;
            visit(e.left);
            visit(e.right);
        } else if (isKComparison(e) && e.operator === '=' && isParameterRef(e.value)) {
            const field = refName(e.field);
            if (fields.has(field) && !found.has(field)) found.set(field, refName(e.value.parameter));
        }
    };
    if (expression) visit(expression);
    return found;
}

/**
 * The fields a collection is partitioned by: those every query fixes to a parameter (float excluded: its equality
 * is not a form the key can carry), in field order; empty (a global partition) when a query fixes none.
 */
function partitionFields(collection: Collection): string[] {
    const types = new Map(collection.fields.filter((f) => f.type !== 'float').map((f) => [f.name, f.type]));
    if (collection.queries.length === 0) return [];
    const per = collection.queries.map((query) => equalityParameters(query.where, types));
    return collection.fields
        .map((field) => field.name)
        .filter((name) => types.has(name) && per.every((fixed) => fixed.has(name)));
}

function buildCollection(collection: Collection): CoreCollection {
    const global = `{${collection.name}}`;
    const partitionedBy = partitionFields(collection);
    const tag =
        partitionedBy.length === 0 ? global : `{${collection.name}:${partitionedBy.map((f) => `<${f}>`).join(':')}}`;
    const fields: CoreField[] = collection.fields.map((field) => ({
        name: field.name,
        label: field.label ?? field.name,
        type: field.type as RedisLogicalType,
        source: `${refName(field.node)}.${field.attribute}`,
    }));
    const byName = new Map(collection.fields.map((field) => [field.name, field]));
    const fieldOf = (reference: { ref?: { name: string }; $refText?: string }): Field => {
        const field = byName.get(refName(reference));
        if (!field)
            throw new GenerationError(`collection ${collection.name}: unknown field ${refName(reference)}`, {
                code: 'generation.unsupported',
            });
        return field;
    };
    // The record: every field a query filters or sorts on.
    const recorded = new Set<string>();
    const visit = (expression: KExpression): void => {
        if (isKBinaryExpression(expression)) {
            visit(expression.left);
            visit(expression.right);
        } else if (isKNotExpression(expression)) visit(expression.operand);
        else if (isKGroupExpression(expression)) visit(expression.inner);
        else if (isKComparison(expression)) recorded.add(fieldOf(expression.field).name);
    };
    for (const query of collection.queries) {
        if (query.where) visit(query.where);
        for (const key of query.sortKeys) recorded.add(fieldOf(key.field).name);
    }
    const record = fields
        .map((field, position) => ({ field: field.name, type: field.type, position: position + 1 }))
        .filter((column) => recorded.has(column.field));
    const columnOf = (name: string): number => record.findIndex((column) => column.field === name) + 1;

    const indexes: CoreIndex[] = [];
    const indexFor = (kind: CoreIndex['kind'], field: string, query: string): number => {
        let position = indexes.findIndex((index) => index.kind === kind && index.field === field);
        if (position < 0) {
            const type = byName.get(field)!.type as RedisLogicalType;
            const suffix = kind === 'eq' ? `:eq:${field}:` : `:${kind}:${field}`;
            const key = `${tag}${suffix}`;
            indexes.push({
                kind,
                field,
                type,
                column: columnOf(field),
                key: partitionedBy.length === 0 ? key : `${global}${suffix}`,
                suffix,
                pattern: kind === 'eq' ? `${key}<value>` : key,
                queries: [],
            });
            position = indexes.length - 1;
        }
        if (!indexes[position].queries.includes(query)) indexes[position].queries.push(query);
        return position + 1;
    };

    const strategy = collection.strategy;
    const natural = isNaturalKey(strategy);
    const parts = natural
        ? strategy.parts.map((part) => {
              const source = `${refName(part.node)}.${part.attribute}`;
              const field = fields.find((f) => f.source === source);
              return { source, type: field?.type ?? ('text' as RedisLogicalType) };
          })
        : [];
    const partitionSet = new Set(partitionedBy);
    const queries = collection.queries.map((query) =>
        buildQuery(collection, query, fieldOf, columnOf, indexFor, partitionSet),
    );
    const partition =
        partitionedBy.length === 0
            ? null
            : {
                  fields: partitionedBy.map((name) => ({
                      field: name,
                      type: byName.get(name)!.type as RedisLogicalType,
                      position: fields.findIndex((f) => f.name === name) + 1,
                  })),
              };
    for (const [q, query] of queries.entries()) {
        if (partition) {
            const fixed = equalityParameters(collection.queries[q].where, new Map(partitionedBy.map((f) => [f, f])));
            query.partition = partition.fields.map(
                (field) => query.params.find((p) => p.name === fixed.get(field.field))!.position,
            );
        }
        query.cost = describeCost(query, indexes, `${tag}:rec`, `${collection.name}:`, partition !== null);
    }
    return {
        name: collection.name,
        tag,
        partition,
        rowPrefix: `${collection.name}:`,
        keyField: collection.keyField,
        key: {
            kind: natural ? 'natural' : 'counter',
            parts,
            pattern: natural
                ? `${collection.name}:${parts.map((p) => `<${p.source}>`).join(':')}`
                : `${collection.name}:<counter>`,
            counterKey: natural ? null : `${global}:counter`,
        },
        fields,
        recordKey: `${global}:rec`,
        recordPattern: `${tag}:rec`,
        record,
        indexes,
        queries,
    };
}
