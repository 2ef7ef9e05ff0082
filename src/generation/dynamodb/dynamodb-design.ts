/**
 * The DynamoDB design of a KVLM model: a table per collection, whose base key serves the collection's first query
 * and one global secondary index each of the others. A query's key is read from its filter: the partition key holds
 * the values its `=` comparisons bind (DynamoDB's `Query` needs equality on it), the sort key the range field (at
 * most one: a `Query` takes one condition on the sort key), then the ORDER BY keys, order-preserving
 * (dynamodb-keys.ts), then the row key. What no key can serve (`!=`, `or`, a second range, an order no key carries,
 * mixed directions, no equality at all) is a warning saying what the design does instead and what it costs. Pure.
 */
import {
    isNaturalKey,
    isParameterRef,
    type Collection,
    type Field,
    type KValue,
    type KvlmModel,
    type ServedQuery,
} from '../../language/generated/ast.js';
import { filterNnf, literalOf, type FilterNnf, type FilterOperator } from '../../language/kvlm/kvlm-filter.js';
import { printKvlmExpression } from '../../language/kvlm/kvlm-printer.js';
import type { LogicalType } from '../../language/pidm/pidm-semantics.js';
import { GenerationError } from '../generation-errors.js';
import type {
    DynamoAccessPattern,
    DynamoBound,
    DynamoField,
    DynamoFilter,
    DynamoKey,
    DynamoKeyPart,
    DynamoQuery,
    DynamoTable,
    DynamoValue,
    DynamoViewModel,
    DynamoWarning,
} from './dynamodb-view-model.js';

export type * from './dynamodb-view-model.js';

/** DynamoDB's limits the design is checked against (the AWS developer guide's "Service quotas"). */
export const DYNAMODB_LIMITS = {
    /** Global secondary indexes per table. */
    globalSecondaryIndexes: 20,
    /** Attributes projected into all the indexes of a table (INCLUDE), in all. */
    projectedAttributes: 100,
    /** Bytes of a partition key value. */
    partitionKeyBytes: 2048,
    /** Bytes of a sort key value. */
    sortKeyBytes: 1024,
    /** Bytes of an item, names and values. */
    itemBytes: 400 * 1024,
    /** Bytes of an attribute name that is a key or a projected attribute. */
    keyAttributeNameBytes: 255,
} as const;

/** The options the design takes. */
export interface DynamoDesignOptions {
    pageSize: number;
    /** One table for every collection, the global secondary indexes shared (`gsi1`, `gsi2`…). */
    singleTable?: boolean;
}

/** Table and index names: 3 to 255 of `a-z A-Z 0-9 _ . -`. */
const NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** A filter in negation normal form over the collection's fields. */
type Nnf = FilterNnf<DynamoValue>;

function refName(reference: { ref?: { name: string }; $refText?: string }): string {
    return reference.ref?.name ?? reference.$refText ?? '';
}

/** The DynamoDB type that holds a logical type. */
export function attributeTypeOf(type: LogicalType): DynamoField['attributeType'] {
    return type === 'int' || type === 'float' ? 'N' : type === 'boolean' ? 'BOOL' : 'S';
}

/** Builds the DynamoDB design of a KVLM model. Pure; a `GenerationError` (`dynamodb.limit`) past DynamoDB's limits. */
export function buildDynamoViewModel(kvlm: KvlmModel, options: DynamoDesignOptions): DynamoViewModel {
    const single = options.singleTable ?? false;
    const tables = kvlm.collections.map((collection) => buildTable(kvlm.name, collection, single));
    if (single && !NAME.test(kvlm.name))
        throw limitError(
            `database ${kvlm.name}: the table name '${kvlm.name}' is not one DynamoDB accepts (3 to 255 characters among a-z, A-Z, 0-9, '_', '.', '-')`,
        );
    const entityTable = `${kvlm.name}_kvmod_entities`;
    if (!NAME.test(entityTable) || tables.some((table) => table.name === entityTable))
        throw limitError(
            `database ${kvlm.name}: the entity table name '${entityTable}' is not one DynamoDB accepts, or a collection's table has it`,
        );
    const warnings: DynamoWarning[] = [];
    const accessPatterns: DynamoAccessPattern[] = [];
    for (const table of tables) {
        for (const query of table.queries) {
            accessPatterns.push({
                query: query.name,
                table: table.name,
                index: query.index ?? '(table)',
                keyCondition: describeKeyCondition(table, query),
                filter: query.filter ? describeFilter(query, query.filter) : '—',
                itemsRead: query.itemsRead,
            });
        }
        warnings.push(...tableWarnings(table));
    }
    return {
        target: 'dynamodb',
        database: kvlm.name,
        source: kvlm.source ?? null,
        pageSize: options.pageSize,
        singleTable: single,
        tables,
        createTables: [
            ...(single ? [singleTableInput(kvlm.name, tables)] : tables.map((table) => table.createTable)),
            entityTableInput(entityTable),
        ],
        entityTable,
        accessPatterns,
        warnings,
        workbench: workbenchModel(kvlm.name, tables),
    };
}

/**
 * The design as an AWS NoSQL Workbench data model (`ModelName`, `ModelMetadata`, `DataModel[]`): per table its key
 * and non-key attributes, one facet per query (its key's shape as the key aliases, the attributes it reads), and
 * the global secondary indexes. No sample data (`TableData` is empty): `kvmod data generate` and `load` make it.
 */
/** The tables on the server, in order: each with the collections it holds and the one with the most keys. */
function groupByName(tables: readonly DynamoTable[]): { name: string; tables: DynamoTable[]; widest: DynamoTable }[] {
    const groups: { name: string; tables: DynamoTable[]; widest: DynamoTable }[] = [];
    for (const table of tables) {
        const group = groups.find((g) => g.name === table.name);
        if (!group) groups.push({ name: table.name, tables: [table], widest: table });
        else {
            group.tables.push(table);
            if (table.keys.length > group.widest.keys.length) group.widest = table;
        }
    }
    return groups;
}

/** Attributes by name, the first of each name kept (one name has one type in a table's definition). */
function uniqueAttributes(attributes: { AttributeName: string; AttributeType: string }[]) {
    const seen = new Set<string>();
    return attributes.filter((a) => !seen.has(a.AttributeName) && seen.add(a.AttributeName));
}

function workbenchModel(database: string, tables: readonly DynamoTable[]): Record<string, unknown> {
    const attribute = (name: string, type: string) => ({ AttributeName: name, AttributeType: type });
    const keyAttributes = (key: DynamoKey) => ({
        PartitionKey: attribute(key.partitionAttribute, 'S'),
        SortKey: attribute(key.sortAttribute, 'S'),
    });
    return {
        ModelName: database,
        ModelMetadata: {
            Author: 'kvmod',
            Description: `The DynamoDB design of ${database}, generated by kvmod: a table per collection, one facet per query`,
            Version: '1.0',
        },
        DataModel: groupByName(tables).map((group) => ({
            TableName: group.name,
            KeyAttributes: keyAttributes(group.widest.keys[0]),
            NonKeyAttributes: uniqueAttributes([
                ...group.widest.keys
                    .slice(1)
                    .flatMap((key) => [attribute(key.partitionAttribute, 'S'), attribute(key.sortAttribute, 'S')]),
                ...group.tables.flatMap((table) =>
                    table.fields.map((field) => attribute(field.name, field.attributeType)),
                ),
            ]),
            TableFacets: group.tables.flatMap((table) =>
                table.queries.map((query) => {
                    const key = table.keys[query.key];
                    return {
                        FacetName: query.name,
                        KeyAttributeAlias: { PartitionKeyAlias: key.shape.partition, SortKeyAlias: key.shape.sort },
                        TableData: [],
                        NonKeyAttributes: [
                            ...(key.index === null ? [] : [key.partitionAttribute, key.sortAttribute]),
                            ...new Set([
                                ...query.projections.map((p) => p.field),
                                ...query.clientSort.map((s) => s.field),
                            ]),
                        ],
                        DataAccess: { MySql: {} },
                    };
                }),
            ),
            ...(group.widest.keys.length > 1
                ? {
                      GlobalSecondaryIndexes: group.widest.keys.slice(1).map((key) => ({
                          IndexName: key.index,
                          KeyAttributes: keyAttributes(key),
                          Projection:
                              key.projection.type === 'ALL' || key.projection.attributes.length === 0
                                  ? { ProjectionType: key.projection.type === 'ALL' ? 'ALL' : 'KEYS_ONLY' }
                                  : { ProjectionType: 'INCLUDE', NonKeyAttributes: key.projection.attributes },
                      })),
                  }
                : {}),
            DataAccess: { MySql: {} },
        })),
    };
}

function limitError(message: string): GenerationError {
    return new GenerationError(message, { code: 'dynamodb.limit' });
}

function buildTable(database: string, collection: Collection, single: boolean): DynamoTable {
    const name = single ? database : `${database}_${collection.name}`;
    if (!NAME.test(name))
        throw limitError(
            `collection ${collection.name}: the table name '${name}' is not one DynamoDB accepts (3 to 255 characters among a-z, A-Z, 0-9, '_', '.', '-')`,
        );
    for (const field of collection.fields) {
        if (Buffer.byteLength(field.name, 'utf8') > DYNAMODB_LIMITS.keyAttributeNameBytes)
            throw limitError(
                `collection ${collection.name}: the field name '${field.name.slice(0, 40)}…' is longer than the ${DYNAMODB_LIMITS.keyAttributeNameBytes} bytes DynamoDB allows a projected attribute's name`,
            );
        if (field.name.startsWith('_'))
            throw limitError(
                `collection ${collection.name}: the field name '${field.name}' starts with '_', which the DynamoDB design keeps for its key attributes`,
            );
    }
    const gsis = collection.queries.length - 1;
    if (gsis > DYNAMODB_LIMITS.globalSecondaryIndexes)
        throw limitError(
            `collection ${collection.name}: its ${collection.queries.length} queries need ${gsis} global secondary indexes, more than the ${DYNAMODB_LIMITS.globalSecondaryIndexes} DynamoDB allows a table: split the collection (merge none) or serve fewer queries from it`,
        );
    const fields: DynamoField[] = collection.fields.map((field) => ({
        name: field.name,
        label: field.label ?? field.name,
        type: field.type as LogicalType,
        attributeType: attributeTypeOf(field.type as LogicalType),
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
    const keys: DynamoKey[] = [];
    const queries = collection.queries.map((query, position) => {
        const planned = planQuery(query, fieldOf);
        const index = position === 0 ? null : single ? `gsi${position}` : query.name;
        if (index !== null && !NAME.test(index))
            throw limitError(
                `collection ${collection.name}: the index name '${index}' (of query ${query.name}) is not one DynamoDB accepts (3 to 255 characters among a-z, A-Z, 0-9, '_', '.', '-')`,
            );
        const suffix = position === 0 ? '' : String(position);
        const key: DynamoKey = {
            index,
            query: query.name,
            partitionAttribute: `_pk${suffix}`,
            partitionPrefix: query.name,
            partitionParts: planned.partition.map(({ field }) => ({
                field: field.name,
                type: field.type as LogicalType,
            })),
            sortAttribute: `_sk${suffix}`,
            sortParts: planned.sortParts,
            projection: { type: 'INCLUDE', attributes: planned.reads },
            shape: { partition: '', sort: '' },
        };
        key.shape = {
            partition: [`"${query.name}"`, ...key.partitionParts.map((p) => p.field)].join(' · '),
            sort: [...key.sortParts.map((p) => p.field), '#<row key>'].join(' · '),
        };
        keys.push(key);
        return { ...planned.query, key: position, index };
    });
    if (keys.length === 0) {
        keys.push({
            index: null,
            query: '',
            partitionAttribute: '_pk',
            partitionPrefix: collection.name,
            partitionParts: [],
            sortAttribute: '_sk',
            sortParts: [],
            projection: { type: 'ALL', attributes: [] },
            shape: { partition: `"${collection.name}"`, sort: '#<row key>' },
        });
    }
    // DynamoDB counts INCLUDE attributes over all the indexes of a table: past its limit, every index projects ALL.
    const projected = keys.slice(1).reduce((sum, key) => sum + key.projection.attributes.length, 0);
    // In one table the collections share the indexes, whose items differ: each projects ALL.
    if (single || projected > DYNAMODB_LIMITS.projectedAttributes)
        for (const key of keys.slice(1)) key.projection = { type: 'ALL', attributes: [] };
    keys[0].projection = { type: 'ALL', attributes: [] };
    const table: DynamoTable = {
        name,
        collection: collection.name,
        keyField: collection.keyField,
        keyStrategy: isNaturalKey(collection.strategy) ? 'natural' : 'counter',
        fields,
        keys,
        queries,
        createTable: {},
    };
    table.createTable = createTableInput(table);
    return table;
}

/** The `CreateTable` input of the one table: the base key and as many shared GSIs as the most any collection needs. */
function singleTableInput(database: string, tables: readonly DynamoTable[]): Record<string, unknown> {
    const widest = tables.reduce((a, b) => (b.keys.length > a.keys.length ? b : a), tables[0]);
    const input = createTableInput({ ...widest, name: database });
    return input;
}

/**
 * The entity table (runtime/dynamodb/dynamo-entities.ts): the entity items, their reverse references, the head item
 * that orders the operations and the change items, under one string key pair.
 */
function entityTableInput(name: string): Record<string, unknown> {
    return {
        TableName: name,
        AttributeDefinitions: [
            { AttributeName: '_pk', AttributeType: 'S' },
            { AttributeName: '_sk', AttributeType: 'S' },
        ],
        KeySchema: [
            { AttributeName: '_pk', KeyType: 'HASH' },
            { AttributeName: '_sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
    };
}

/** The `CreateTable` input of a table: on-demand billing, string keys, one GSI per further query. */
function createTableInput(table: DynamoTable): Record<string, unknown> {
    const schema = (key: DynamoKey) => [
        { AttributeName: key.partitionAttribute, KeyType: 'HASH' },
        { AttributeName: key.sortAttribute, KeyType: 'RANGE' },
    ];
    const input: Record<string, unknown> = {
        TableName: table.name,
        AttributeDefinitions: table.keys.flatMap((key) => [
            { AttributeName: key.partitionAttribute, AttributeType: 'S' },
            { AttributeName: key.sortAttribute, AttributeType: 'S' },
        ]),
        KeySchema: schema(table.keys[0]),
        BillingMode: 'PAY_PER_REQUEST',
    };
    const indexes = table.keys.slice(1);
    if (indexes.length > 0)
        input.GlobalSecondaryIndexes = indexes.map((key) => ({
            IndexName: key.index,
            KeySchema: schema(key),
            Projection:
                key.projection.type === 'ALL' || key.projection.attributes.length === 0
                    ? { ProjectionType: key.projection.type === 'ALL' ? 'ALL' : 'KEYS_ONLY' }
                    : { ProjectionType: 'INCLUDE', NonKeyAttributes: key.projection.attributes },
        }));
    return input;
}

interface PlannedQuery {
    partition: { field: Field; value: DynamoValue }[];
    sortParts: DynamoKeyPart[];
    /** Attributes the query reads besides the keys (what an index must project). */
    reads: string[];
    query: Omit<DynamoQuery, 'key' | 'index'>;
}

function planQuery(
    query: ServedQuery,
    fieldOf: (reference: { ref?: { name: string }; $refText?: string }) => Field,
): PlannedQuery {
    const params = query.params.map((param, position) => ({
        name: param.name,
        type: param.type as LogicalType,
        position: position + 1,
    }));
    const paramPosition = new Map(params.map((p) => [p.name, p.position]));
    const valueOf = (value: KValue): DynamoValue => {
        if (isParameterRef(value)) {
            const position = paramPosition.get(refName(value.parameter));
            if (position === undefined)
                throw new GenerationError(`query ${query.name}: unknown parameter ${refName(value.parameter)}`, {
                    code: 'generation.unsupported',
                });
            return { param: position };
        }
        const literal = literalOf(value);
        if (literal === undefined)
            throw new GenerationError(`query ${query.name}: unsupported value`, { code: 'generation.unsupported' });
        return { literal };
    };
    const where = query.where
        ? filterNnf(query.where, {
              field: (comparison) => fieldOf(comparison.field),
              value: valueOf,
              unsupported: () =>
                  new GenerationError(`query ${query.name}: unsupported expression`, {
                      code: 'generation.unsupported',
                  }),
          })
        : undefined;
    const conjuncts: Nnf[] = where === undefined ? [] : where.op === 'and' ? where.args : [where];
    const sortKeys = query.sortKeys.map((key) => ({ field: fieldOf(key.field), descending: key.direction === 'desc' }));

    const partition: { field: Field; value: DynamoValue }[] = [];
    const residual: Nnf[] = [];
    const ranges = new Map<Field, { min: DynamoBound | null; max: DynamoBound | null; extra: Nnf[] }>();
    const reasons: string[] = [];
    for (const conjunct of conjuncts) {
        if (conjunct.op !== 'cmp') {
            residual.push(conjunct);
            reasons.push(`\`or\` (${describeNnf(conjunct, params)}) is not a key condition`);
            continue;
        }
        const { field, operator, value } = conjunct;
        if (operator === '=' && !partition.some((p) => p.field === field)) {
            partition.push({ field, value });
            continue;
        }
        if (operator === '=' || operator === '!=') {
            residual.push(conjunct);
            reasons.push(
                operator === '!='
                    ? `\`${field.name} != …\` is not a key condition (a key reads what is equal or in a range, never what differs)`
                    : `a second \`=\` on ${field.name} is not part of the key`,
            );
            continue;
        }
        const range = ranges.get(field) ?? { min: null, max: null, extra: [] };
        const lower = operator === '>' || operator === '>=';
        const bound = { value, inclusive: operator === '>=' || operator === '<=' };
        if (lower && range.min === null) range.min = bound;
        else if (!lower && range.max === null) range.max = bound;
        else range.extra.push(conjunct);
        ranges.set(field, range);
    }
    // An ORDER BY key bound by `=` is one value in the whole answer (equality is exact here): it orders nothing.
    const ordering = sortKeys.filter((key) => !partition.some((p) => p.field === key.field));
    // The range field: the first ORDER BY key when it is ranged (the key then serves both), else the first ranged.
    const rangedFields = [...ranges.keys()];
    const rangeField =
        rangedFields.find((field) => ordering.length > 0 && ordering[0].field === field) ?? rangedFields[0];
    for (const [field, range] of ranges) {
        residual.push(...range.extra);
        if (range.extra.length > 0) reasons.push(`a third bound on ${field.name} is not part of the key`);
        if (field === rangeField) continue;
        for (const bound of [range.min, range.max]) {
            if (bound === null) continue;
            const operator: FilterOperator =
                bound === range.min ? (bound.inclusive ? '>=' : '>') : bound.inclusive ? '<=' : '<';
            residual.push({ op: 'cmp', field, operator, value: bound.value });
        }
        reasons.push(
            `a second range (on ${field.name}; the sort key carries ${rangeField!.name}) is not a key condition: a \`Query\` takes one condition on the sort key`,
        );
    }

    const sortParts: DynamoKeyPart[] = [];
    const clientSort: DynamoQuery['clientSort'] = [];
    let scanIndexForward = true;
    let sortWarning: string | null = null;
    if (rangeField) sortParts.push({ field: rangeField.name, type: rangeField.type as LogicalType });
    if (ordering.length > 0) {
        const mixed = ordering.some((key) => key.descending !== ordering[0].descending);
        if (rangeField && ordering[0].field !== rangeField) {
            sortWarning = `its ORDER BY ${ordering[0].field.name} is carried by no key: the sort key leads with the range field ${rangeField.name}`;
        } else if (mixed) {
            sortWarning = `its ORDER BY mixes ascending and descending keys: a sort key is read in one direction`;
        }
        if (sortWarning !== null) {
            clientSort.push(
                ...ordering.map((key) => ({
                    field: key.field.name,
                    type: key.field.type as LogicalType,
                    descending: key.descending,
                })),
            );
        } else {
            for (const key of ordering)
                if (!sortParts.some((part) => part.field === key.field.name))
                    sortParts.push({ field: key.field.name, type: key.field.type as LogicalType });
            scanIndexForward = !ordering[0].descending;
        }
    }

    const filter =
        residual.length === 0 ? null : toFilter(residual.length === 1 ? residual[0] : { op: 'and', args: residual });
    const projections = query.projections.map((projection) => {
        const field = fieldOf(projection.field);
        return {
            field: field.name,
            label: projection.label ?? field.label ?? field.name,
            type: field.type as LogicalType,
        };
    });
    const reads = [
        ...new Set([
            ...projections.map((p) => p.field),
            ...(filter ? filterFields(filter) : []),
            ...clientSort.map((key) => key.field),
        ]),
    ];
    const range =
        rangeField === undefined
            ? null
            : {
                  field: rangeField.name,
                  type: rangeField.type as LogicalType,
                  min: ranges.get(rangeField)!.min,
                  max: ranges.get(rangeField)!.max,
              };
    const keyConditionExpression =
        '#pk = :pk' +
        (range === null
            ? ''
            : range.min && range.max
              ? ' AND #sk BETWEEN :lo AND :hi'
              : range.min
                ? ' AND #sk >= :lo'
                : ' AND #sk <= :hi');
    const names = new Map<string, string>();
    const filterExpression = filter === null ? null : expressionOf(filter, names, { count: 0 });
    const itemsRead =
        filter === null
            ? 'the answer (every item the key condition reads is returned)'
            : partition.length === 0 && range === null
              ? 'every item of the collection; returned: those passing the filter'
              : 'every item the key condition reads; returned: those passing the filter';
    const warnings: { code: string; message: string }[] = [];
    if (partition.length === 0)
        warnings.push({
            code: 'dynamodb.single-partition',
            message: `query ${query.name} has no equality condition for a partition key: every item of its key lives in one partition (partition key "${query.name}"), which one partition's throughput bounds (3,000 reads and 1,000 writes a second); shard the key by a value the application knows when that is too little`,
        });
    if (filter !== null)
        warnings.push({
            code: 'dynamodb.filter',
            message: `query ${query.name} cannot be served by key alone: ${reasons.join('; ')}; instead, a FilterExpression (${describeFilterText(filter, params)}) drops items after they are read, so it reads ${itemsRead.replace('; returned: ', ' and returns ')}, and a page (\`Limit\`) counts the items read, not those returned: the design reads pages until the answer is complete`,
        });
    if (sortWarning !== null)
        warnings.push({
            code: 'dynamodb.client-sort',
            message: `query ${query.name} cannot be ordered by key: ${sortWarning}; instead, the client reads every page of the answer and sorts it by ${clientSort.map((key) => `${key.field} ${key.descending ? 'desc' : 'asc'}`).join(', ')}, so the first row costs as much as the whole answer`,
        });
    const planned: PlannedQuery = {
        partition,
        sortParts,
        reads,
        query: {
            name: query.name,
            params,
            where: query.where ? printKvlmExpression(query.where) : null,
            orderBy: query.sortKeys.map((key) => `${refName(key.field)} ${key.direction}`),
            partitionValues: partition.map((p) => p.value),
            range,
            filter,
            keyConditionExpression,
            filterExpression,
            scanIndexForward,
            clientSort,
            projections,
            itemsRead,
            warnings,
        },
    };
    return planned;
}

/** The warnings a table's queries carry (kept on the side while planning). */
function tableWarnings(table: DynamoTable): DynamoWarning[] {
    return table.queries.flatMap((query) =>
        query.warnings.map((warning) => ({
            ...warning,
            query: query.name,
            collection: table.collection,
        })),
    );
}

function toFilter(nnf: Nnf): DynamoFilter {
    return nnf.op === 'cmp'
        ? {
              op: 'cmp',
              field: nnf.field.name,
              type: nnf.field.type as LogicalType,
              // DynamoDB's condition expressions write "differs" as `<>`.
              operator: nnf.operator === '!=' ? '<>' : nnf.operator,
              value: nnf.value,
          }
        : { op: nnf.op, args: nnf.args.map(toFilter) };
}

function filterFields(filter: DynamoFilter): string[] {
    return filter.op === 'cmp' ? [filter.field] : filter.args.flatMap(filterFields);
}

/**
 * A filter as a FilterExpression: attribute names `#f0`… in order of first use, values `:f0`… in order of
 * appearance (the runtime binds them in the same walk: `filterBindings`).
 */
export function expressionOf(filter: DynamoFilter, names: Map<string, string>, values: { count: number }): string {
    if (filter.op === 'cmp') {
        if (!names.has(filter.field)) names.set(filter.field, `#f${names.size}`);
        return `${names.get(filter.field)} ${filter.operator} :f${values.count++}`;
    }
    return filter.args
        .map((arg) => {
            const text = expressionOf(arg, names, values);
            return arg.op === 'cmp' ? text : `(${text})`;
        })
        .join(filter.op === 'and' ? ' AND ' : ' OR ');
}

function showValue(value: DynamoValue, params: readonly { name: string }[]): string {
    return 'param' in value ? `?${params[value.param - 1].name}` : JSON.stringify(value.literal);
}

function describeNnf(nnf: Nnf, params: readonly { name: string }[]): string {
    return describeFilterText(toFilter(nnf), params);
}

function describeFilterText(filter: DynamoFilter, params: readonly { name: string }[]): string {
    if (filter.op === 'cmp') return `${filter.field} ${filter.operator} ${showValue(filter.value, params)}`;
    return filter.args
        .map((arg) => (arg.op === 'cmp' ? describeFilterText(arg, params) : `(${describeFilterText(arg, params)})`))
        .join(` ${filter.op.toUpperCase()} `);
}

function describeFilter(query: DynamoQuery, filter: DynamoFilter): string {
    return describeFilterText(filter, query.params);
}

/** The key condition as people read it: `_pk = "Q2"·?country AND _sk BETWEEN …`. */
function describeKeyCondition(table: DynamoTable, query: DynamoQuery): string {
    const key = table.keys[query.key];
    const pk = `${key.partitionAttribute} = ${[`"${key.partitionPrefix}"`, ...query.partitionValues.map((v) => showValue(v, query.params))].join(' · ')}`;
    if (query.range === null) return pk;
    const { min, max, field } = query.range;
    const bound = (b: DynamoBound, lower: boolean) =>
        `${field} ${lower ? (b.inclusive ? '>=' : '>') : b.inclusive ? '<=' : '<'} ${showValue(b.value, query.params)}`;
    const parts = [min && bound(min, true), max && bound(max, false)].filter(Boolean).join(' and ');
    return `${pk} AND ${key.sortAttribute} over ${parts}`;
}
