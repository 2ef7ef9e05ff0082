/**
 * The DynamoDB engine runtime behind the engine contract (../engine.ts): runs the dynamodb target's design on
 * Amazon DynamoDB or a server of its API (dynalite, DynamoDB Local) given by its endpoint URL. Tables are created
 * from the design's `CreateTable` inputs; rows are written 25 items a `BatchWriteItem`; a query is its `Query`
 * request, read page by page (`Limit` = the design's page size) by `LastEvaluatedKey`. Its collation is
 * DynamoDB's: text equal only when identical, ordered by UTF-8 bytes.
 */
import {
    CreateTableCommand,
    DeleteTableCommand,
    DescribeTableCommand,
    DynamoDBClient,
    ListTablesCommand,
    ResourceNotFoundException,
    type CreateTableCommandInput,
    type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamoClientQuery } from '../../generation/dynamodb/dynamodb-client-query.js';
import type { DynamoQuery, DynamoTable, DynamoViewModel } from '../../generation/dynamodb/dynamodb-design.js';
import { dynamoTarget, type dynamoTargetOptions } from '../../generation/dynamodb/dynamodb-target.js';
import { queryCommandInput, readWholeAnswer } from '../../generation/typescript/client-runtime/kvmod-dynamo-client.js';
import { collationFor, compareCodePoints, type TypedValue } from '../collation.js';
import {
    EngineError,
    type EngineProbe,
    type EngineRuntime,
    type EngineSession,
    type SchemaOutcome,
    type WriteResult,
} from '../engine.js';
import type { CollectionRows } from '../materialize.js';
import { dynamoEntityStore } from './dynamo-entities.js';
import { itemOf } from './dynamo-row-items.js';
import type { ParameterValues } from '../oracle.js';

/** DynamoDB's collation: a text equals only itself; order is UTF-8 byte order (= code point order). */
export const dynamoCollation = collationFor({
    name: 'dynamodb',
    equals: (a, b) => a === b,
    compare: compareCodePoints,
    orderForm: (text) => text,
});

/** Items a `BatchWriteItem` takes. */
const BATCH_ITEMS = 25;

/** Batches in flight at once while writing. */
const IN_FLIGHT = 4;

/** A connection to one DynamoDB endpoint. */
export interface DynamoConnection {
    url: string;
    client: DynamoDBClient;
    documents: DynamoDBDocumentClient;
}

function isLoopback(url: URL): boolean {
    return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

/** The SDK's clients for an endpoint (a bad URL is an `EngineError`); each call makes clients of its own. */
export function connectDynamo(url: string, timeoutSeconds: number | undefined): DynamoConnection {
    let parsed: URL;
    try {
        parsed = new URL(url);
    } catch {
        throw new EngineError('url', `not a DynamoDB endpoint URL: ${url} (give http://host:port or https://…)`, {
            code: 'dynamodb.url',
        });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new EngineError('url', `not a DynamoDB endpoint URL: ${url} (give http://host:port or https://…)`, {
            code: 'dynamodb.url',
        });
    // A local server takes any credentials; AWS takes the default chain (environment, profile, role).
    const local = isLoopback(parsed) && process.env.AWS_ACCESS_KEY_ID === undefined;
    const client = new DynamoDBClient({
        endpoint: url,
        region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
        ...(local ? { credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' } } : {}),
        maxAttempts: 3,
        ...(timeoutSeconds === undefined
            ? {}
            : { requestHandler: { requestTimeout: timeoutSeconds * 1000, connectionTimeout: timeoutSeconds * 1000 } }),
    });
    const documents = DynamoDBDocumentClient.from(client, {
        marshallOptions: { removeUndefinedValues: true },
    });
    return { url, client, documents };
}

/** An error of the SDK as an `EngineError` (connection failures and refusals), other errors unchanged. */
function engineError(url: string, error: unknown): unknown {
    if (error instanceof EngineError || !(error instanceof Error)) return error;
    const code = (error as { code?: string }).code ?? (error as { name?: string }).name ?? '';
    // The SDK wraps a socket's error ("AWS SDK error wrapper for Error: connect ECONNREFUSED …"), its code inside.
    const socket = /\b(ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET)\b/.exec(
        `${code} ${(error.cause as { code?: string } | undefined)?.code ?? ''} ${error.message}`,
    );
    if (socket !== null)
        return new EngineError('connect', `cannot reach the DynamoDB endpoint ${url}: ${error.message}`, {
            code: 'dynamodb.connect',
            cause: error,
        });
    if (code === 'TimeoutError' || code === 'RequestTimeout')
        return new EngineError('timeout', `the DynamoDB endpoint ${url} did not answer in time: ${error.message}`, {
            code: 'dynamodb.timeout',
            cause: error,
        });
    if (['UnrecognizedClientException', 'InvalidSignatureException', 'AccessDeniedException'].includes(code))
        return new EngineError('auth', `${url} refused the credentials: ${error.message}`, { code, cause: error });
    if (code === 'ValidationException' || code === 'ItemCollectionSizeLimitExceededException')
        return new EngineError('refused', `${url} refused: ${error.message}`, { code, cause: error });
    return error;
}

async function typed<T>(url: string, action: () => Promise<T>): Promise<T> {
    try {
        return await action();
    } catch (error) {
        throw engineError(url, error);
    }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function describe(connection: DynamoConnection, name: string): Promise<TableDescription | undefined> {
    try {
        return (await connection.client.send(new DescribeTableCommand({ TableName: name }))).Table;
    } catch (error) {
        if (error instanceof ResourceNotFoundException) return undefined;
        throw error;
    }
}

/** Waits until a table is active (`gone`: until it no longer exists). */
async function waitFor(connection: DynamoConnection, name: string, gone: boolean): Promise<void> {
    for (let attempt = 0; attempt < 600; attempt++) {
        const table = await describe(connection, name);
        if (gone ? table === undefined : table?.TableStatus === 'ACTIVE') return;
        await sleep(100);
    }
    throw new EngineError(
        'timeout',
        `table ${name} on ${connection.url} did not become ${gone ? 'deleted' : 'active'}`,
        {
            code: 'dynamodb.timeout',
        },
    );
}

/** The key schema of a table and its indexes, as one comparable text. */
function keyShape(table: {
    KeySchema?: { AttributeName?: string; KeyType?: string }[];
    GlobalSecondaryIndexes?: { IndexName?: string; KeySchema?: { AttributeName?: string; KeyType?: string }[] }[];
}): string {
    const keys = (schema?: { AttributeName?: string; KeyType?: string }[]) =>
        (schema ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(',');
    const indexes = (table.GlobalSecondaryIndexes ?? [])
        .map((index) => `${index.IndexName}(${keys(index.KeySchema)})`)
        .sort()
        .join(';');
    return `${keys(table.KeySchema)}|${indexes}`;
}

async function prepareTables(
    connection: DynamoConnection,
    view: DynamoViewModel,
    mode: 'keep' | 'recreate' | 'fresh',
): Promise<SchemaOutcome[]> {
    const outcomes: SchemaOutcome[] = [];
    for (const created of view.createTables) {
        const input = created as unknown as CreateTableCommandInput;
        const table = { name: input.TableName! };
        const existing = await describe(connection, table.name);
        const differs = existing !== undefined && keyShape(existing) !== keyShape(input);
        if (existing !== undefined && !differs && mode !== 'fresh') {
            outcomes.push({ object: 'table', name: table.name, action: 'kept' });
            continue;
        }
        if (differs && mode === 'keep')
            throw new EngineError(
                'schema-differs',
                `table ${table.name} on ${connection.url} has other keys or indexes than the design's: run again with --recreate to delete it (with its items) and create it anew`,
                { code: 'dynamodb.table-differs' },
            );
        if (existing !== undefined) {
            await connection.client.send(new DeleteTableCommand({ TableName: table.name }));
            await waitFor(connection, table.name, true);
        }
        await connection.client.send(new CreateTableCommand(input));
        await waitFor(connection, table.name, false);
        outcomes.push({ object: 'table', name: table.name, action: existing === undefined ? 'created' : 'recreated' });
    }
    return outcomes;
}

async function writeTables(
    connection: DynamoConnection,
    view: DynamoViewModel,
    collections: readonly CollectionRows[],
    options: { batchSize?: number; onProgress?: (done: number, total: number) => void | Promise<void> },
): Promise<WriteResult> {
    const result: WriteResult = { collections: [], rows: 0 };
    const total = collections.reduce((sum, collection) => sum + collection.rows.length, 0);
    const step = Math.max(BATCH_ITEMS, options.batchSize ?? 2000);
    for (const collection of collections) {
        const table = view.tables.find((t) => t.collection === collection.name);
        if (!table) throw new Error(`the DynamoDB design has no table for collection ${collection.name}`);
        let written = 0;
        for (let start = 0; ; start += step) {
            const rows = collection.rows.slice(start, start + step);
            if (rows.length === 0) break;
            const items = rows.map((row) => itemOf(table, row));
            const batches: Record<string, unknown>[][] = [];
            for (let at = 0; at < items.length; at += BATCH_ITEMS) batches.push(items.slice(at, at + BATCH_ITEMS));
            for (let at = 0; at < batches.length; at += IN_FLIGHT)
                await Promise.all(
                    batches.slice(at, at + IN_FLIGHT).map((batch) => writeBatch(connection, table.name, batch)),
                );
            written += rows.length;
            result.rows += rows.length;
            await options.onProgress?.(result.rows, total);
        }
        result.collections.push({ name: collection.name, rows: written });
    }
    return result;
}

/** One `BatchWriteItem`, its unprocessed items sent again (with a growing pause) until none is left. */
async function writeBatch(connection: DynamoConnection, tableName: string, items: Record<string, unknown>[]) {
    let requests = items.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
        const reply = await connection.documents.send(
            new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
        );
        requests = (reply.UnprocessedItems?.[tableName] ?? []) as typeof requests;
        if (requests.length > 0) await sleep(Math.min(1000, 20 * 2 ** attempt));
    }
}

/** The `Query` input of a served query with bound parameters (without `ExclusiveStartKey`): the client runtime's. */
export function queryInput(
    view: DynamoViewModel,
    table: DynamoTable,
    query: DynamoQuery,
    parameters: ParameterValues,
): QueryCommandInput {
    return queryCommandInput(dynamoClientQuery(view.pageSize, table, query), parameters);
}

/**
 * Runs a served query as the generated client reads it whole: every page, then the client's sort where no key
 * carries the order.
 */
async function runDynamoQuery(
    connection: DynamoConnection,
    view: DynamoViewModel,
    table: DynamoTable,
    query: DynamoQuery,
    parameters: ParameterValues,
): Promise<{ rows: TypedValue[][]; command: string }> {
    const { items, input } = await readWholeAnswer(
        connection.documents,
        dynamoClientQuery(view.pageSize, table, query),
        parameters,
    );
    return {
        rows: items.map((item) => query.projections.map((p) => item[p.field] as TypedValue)),
        command: `Query ${JSON.stringify(input)}`,
    };
}

function session(connection: DynamoConnection, found: EngineProbe): EngineSession<DynamoViewModel> {
    const url = connection.url;
    return {
        probe: found,
        contradictions: () => [],
        prepareSchema: (view, mode) => typed(url, () => prepareTables(connection, view, mode)),
        writeRows: (view, collections, options = {}) =>
            typed(url, () => writeTables(connection, view, collections, options)),
        runQuery: (view, collectionName, queryName, parameters) =>
            typed(url, async () => {
                const table = view.tables.find((t) => t.collection === collectionName);
                const query = table?.queries.find((q) => q.name === queryName);
                if (!table || !query)
                    throw new Error(`the DynamoDB design has no query ${queryName} in ${collectionName}`);
                return runDynamoQuery(connection, view, table, query, parameters);
            }),
        entities: dynamoEntityStore(connection.documents),
        close: async () => connection.client.destroy(),
    };
}

/** DynamoDB (or a server of its API), running the dynamodb target's design. */
export const dynamoEngine: EngineRuntime<typeof dynamoTargetOptions, DynamoViewModel> = {
    name: 'dynamodb',
    target: dynamoTarget,
    collation: dynamoCollation,
    // Any text is stored and compared as it is; a key too long for DynamoDB is refused at load, naming the row.
    textRules: () => ({ name: 'dynamodb', unservable: () => null, unsortable: () => null }),
    variantOf: () => 'dynamodb',
    advice: () => 'generate with: kvmod generate <model> --target dynamodb',
    async connect({ urls, timeoutSeconds }) {
        const connection = connectDynamo(urls[0], timeoutSeconds);
        try {
            await typed(urls[0], () => connection.client.send(new ListTablesCommand({ Limit: 1 })));
        } catch (error) {
            connection.client.destroy();
            throw error;
        }
        return session(connection, {
            server: urls[0],
            product: 'DynamoDB',
            serverVersion: 'unknown',
            variant: 'dynamodb',
            options: {},
        });
    },
    // No library on the server: the operations run here, through the runtime's steps (dynamo-entities.ts).
    runWorkload: async (design, run) => (await import('./dynamo-workload.js')).runDynamoWorkloadOnDesign(design, run),
};

/** A row's item (kept exported here for the tests that import it from the engine). */
export { itemOf };
