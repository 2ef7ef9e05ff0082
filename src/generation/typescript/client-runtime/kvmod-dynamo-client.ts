/**
 * The run-time part of a generated TypeScript client of the DynamoDB design (`kvmod generate --target typescript
 * --design dynamodb`): a served query's `Query` request with its values bound, and its answer read page by page by
 * `LastEvaluatedKey`. The engine runtime of `kvmod verify --target dynamodb` builds its requests and reads its
 * answers with these functions too, so the client sends what verify proved. Shipped verbatim inside such a client
 * (`kvmod/kvmod-dynamo-client.ts`) beside the design's key encodings (`kvmod/dynamodb-keys.ts`).
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
    DynamoDBDocumentClient,
    QueryCommand,
    type QueryCommandInput,
    type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { partitionKey, sortKeyBound, type KeyType, type KeyValue } from '../../dynamodb/dynamodb-keys.js';

/**
 * A document client over its own DynamoDBClient (`destroy()` closes both); an attribute left `undefined` is not
 * written.
 */
export function connectDocuments(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
    const client = new DynamoDBClient(config);
    const documents = DynamoDBDocumentClient.from(client, {
        marshallOptions: { removeUndefinedValues: true },
    });
    // lib-dynamodb's destroy() is empty (the translating client owns no socket): the base client's closes them.
    documents.destroy = () => client.destroy();
    return documents;
}

/** A value a request binds: a parameter's (by its property name), or a literal of the model. */
export type DynamoClientValue = { param: string } | { literal: string | number | boolean };

/** A served query as the client runs it: the design's request, the values it binds, the columns it returns. */
export interface DynamoClientQuery {
    /** The KVLM query name. */
    name: string;
    table: string;
    /** The global secondary index it reads, or null for the base table (read consistently). */
    index: string | null;
    keyCondition: string;
    /** What DynamoDB applies after reading (counted by `Limit` before it), or null. */
    filter: string | null;
    /** Every `#name` the expressions use, with the projection's. */
    names: Record<string, string>;
    projection: string;
    scanIndexForward: boolean;
    /** The design's page size (`Limit`). */
    limit: number;
    /** The partition key: the query's prefix, then its equality values. */
    partition: { prefix: string; parts: { type: KeyType; value: DynamoClientValue }[] };
    /** The range on the sort key's leading component, or null. */
    range: {
        type: KeyType;
        min: { value: DynamoClientValue; inclusive: boolean } | null;
        max: { value: DynamoClientValue; inclusive: boolean } | null;
    } | null;
    /** The filter's values, `:f0`, `:f1`, … in order. */
    filterValues: { type: KeyType; value: DynamoClientValue }[];
    /** ORDER BY keys no key carries: the whole answer is read, then sorted by them. */
    clientSort: { field: string; type: KeyType; descending: boolean }[];
    /** The result columns: row property, item attribute, type, whether a value is always there. */
    columns: { prop: string; field: string; type: KeyType; required: boolean }[];
}

/** A value as an item holds it: numbers as numbers (N), booleans as BOOL, the rest as text (S). */
export function itemValue(type: KeyType, value: KeyValue): KeyValue {
    if (type === 'int' || type === 'float') return Number(value);
    if (type === 'boolean') return value === true || value === 'true';
    return String(value);
}

function bound(query: DynamoClientQuery, value: DynamoClientValue, params: Readonly<Record<string, unknown>>) {
    if ('literal' in value) return value.literal;
    const given = params[value.param];
    if (given === undefined || given === null)
        throw new TypeError(`${query.name}: no value for parameter ${value.param}`);
    if (typeof given !== 'string' && typeof given !== 'number' && typeof given !== 'boolean')
        throw new TypeError(`${query.name}: parameter ${value.param} must be a string, number or boolean`);
    return given;
}

/** The `Query` input of a served query with its values bound (without `ExclusiveStartKey`). */
export function queryCommandInput(
    query: DynamoClientQuery,
    params: Readonly<Record<string, unknown>>,
    limit: number = query.limit,
): QueryCommandInput {
    const values: Record<string, unknown> = {
        ':pk': partitionKey(
            query.partition.prefix,
            query.partition.parts.map((part) => ({ type: part.type, value: bound(query, part.value, params) })),
        ),
    };
    if (query.range !== null) {
        const { type, min, max } = query.range;
        if (min) values[':lo'] = sortKeyBound(type, bound(query, min.value, params), min.inclusive, true);
        if (max) values[':hi'] = sortKeyBound(type, bound(query, max.value, params), max.inclusive, false);
    }
    query.filterValues.forEach(
        (filter, at) => (values[`:f${at}`] = itemValue(filter.type, bound(query, filter.value, params))),
    );
    return {
        TableName: query.table,
        ...(query.index === null ? { ConsistentRead: true } : { IndexName: query.index }),
        KeyConditionExpression: query.keyCondition,
        ...(query.filter === null ? {} : { FilterExpression: query.filter }),
        ProjectionExpression: query.projection,
        ExpressionAttributeNames: { ...query.names },
        ExpressionAttributeValues: values,
        ScanIndexForward: query.scanIndexForward,
        Limit: limit,
    };
}

/** Code point order of two texts (UTF-8 byte order: DynamoDB's). */
function compareText(a: string, b: string): number {
    for (let at = 0; ;) {
        const x = a.codePointAt(at);
        const y = b.codePointAt(at);
        if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
        if (x !== y) return x < y ? -1 : 1;
        at += x > 0xffff ? 2 : 1;
    }
}

function compareValues(type: KeyType, a: unknown, b: unknown): number {
    switch (type) {
        case 'text':
            return compareText(String(a), String(b));
        case 'int':
        case 'float':
            return Math.sign(Number(a) - Number(b));
        case 'boolean':
            return Number(a === true) - Number(b === true);
        default:
            return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
    }
}

/** Sorts items by the ORDER BY keys no key carries (stable: ties keep the order DynamoDB gave). */
export function sortItems(
    items: Record<string, unknown>[],
    clientSort: DynamoClientQuery['clientSort'],
): Record<string, unknown>[] {
    if (clientSort.length > 0)
        items.sort((a, b) => {
            for (const key of clientSort) {
                const order = compareValues(key.type, a[key.field], b[key.field]);
                if (order !== 0) return key.descending ? -order : order;
            }
            return 0;
        });
    return items;
}

/** Every item of a served query's answer, in answer order: every page, then the client's sort where it applies. */
export async function readWholeAnswer(
    documents: DynamoDBDocumentClient,
    query: DynamoClientQuery,
    params: Readonly<Record<string, unknown>>,
): Promise<{ items: Record<string, unknown>[]; input: QueryCommandInput }> {
    const input = queryCommandInput(query, params);
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
        const page: QueryCommandOutput = await documents.send(new QueryCommand({ ...input, ExclusiveStartKey: start }));
        items.push(...((page.Items ?? []) as Record<string, unknown>[]));
        start = page.LastEvaluatedKey as Record<string, unknown> | undefined;
    } while (start !== undefined);
    return { items: sortItems(items, query.clientSort), input };
}

/** A page of a query's answer. */
export interface DynamoPage<Row> {
    rows: Row[];
    /** True while DynamoDB has more of the answer (a following page may still be empty: a filter drops items). */
    hasNext: boolean;
    /**
     * Where the next page starts (`LastEvaluatedKey`), to pass as `options.after` in a later call; undefined on the
     * last page and where the answer was read whole (a query the client sorts).
     */
    cursor: Record<string, unknown> | undefined;
    /** The next page, or undefined after the last. */
    next(): Promise<DynamoPage<Row> | undefined>;
}

/** Options of a paged read. */
export interface DynamoPageOptions {
    /** Items DynamoDB reads for the page (`Limit`, before the filter; default the design's page size). */
    pageSize?: number;
    /** The `cursor` of the page before. */
    after?: Record<string, unknown>;
}

/** An item as a row of the query's result type. */
function rowOf<Row>(query: DynamoClientQuery, item: Record<string, unknown>): Row {
    const row: Record<string, unknown> = {};
    for (const column of query.columns) {
        const value = item[column.field];
        if (value !== undefined && value !== null) row[column.prop] = value;
        else if (!column.required) row[column.prop] = null;
        else throw new TypeError(`${query.name}: an item of ${query.table} has no value for ${column.field}`);
    }
    return row as Row;
}

/** A page of rows already read in whole (a query the client sorts). */
function slicePage<Row>(all: readonly Row[], offset: number, pageSize: number): DynamoPage<Row> {
    const end = Math.min(all.length, offset + pageSize);
    return {
        rows: all.slice(offset, end),
        hasNext: end < all.length,
        cursor: undefined,
        next: async () => (end < all.length ? slicePage(all, end, pageSize) : undefined),
    };
}

/**
 * Reads one page of a served query: one `Query` request of `pageSize` items from `options.after`, its rows, and
 * `next()` from its `LastEvaluatedKey`. Each page is its own request: rows written between two pages may show in
 * the later one or not. A query ordered by keys no key carries is read whole first and sorted, and its pages are
 * slices of that one answer.
 */
export async function readDynamoPage<Row>(
    documents: DynamoDBDocumentClient,
    query: DynamoClientQuery,
    params: object,
    options: DynamoPageOptions = {},
): Promise<DynamoPage<Row>> {
    const source = params as Readonly<Record<string, unknown>>;
    const pageSize = options.pageSize ?? query.limit;
    if (!Number.isSafeInteger(pageSize) || pageSize < 1)
        throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
    if (query.clientSort.length > 0) {
        const { items } = await readWholeAnswer(documents, query, source);
        return slicePage(
            items.map((item) => rowOf<Row>(query, item)),
            0,
            pageSize,
        );
    }
    const input = queryCommandInput(query, source, pageSize);
    const read = async (after: Record<string, unknown> | undefined): Promise<DynamoPage<Row>> => {
        const page = await documents.send(new QueryCommand({ ...input, ExclusiveStartKey: after }));
        const cursor = page.LastEvaluatedKey as Record<string, unknown> | undefined;
        return {
            rows: ((page.Items ?? []) as Record<string, unknown>[]).map((item) => rowOf<Row>(query, item)),
            hasNext: cursor !== undefined,
            cursor,
            next: async () => (cursor === undefined ? undefined : read(cursor)),
        };
    };
    return read(options.after);
}

/** Every page of an answer, in order. */
export async function* allDynamoPages<Row>(first: Promise<DynamoPage<Row>>): AsyncGenerator<DynamoPage<Row>> {
    let page: DynamoPage<Row> | undefined = await first;
    while (page !== undefined) {
        yield page;
        page = await page.next();
    }
}
