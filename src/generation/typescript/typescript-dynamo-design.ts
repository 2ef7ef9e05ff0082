/**
 * The design of the TypeScript client of the DynamoDB design (`--design dynamodb`): the dynamodb target's view model
 * (its tables, indexes and each query's `Query` request) plus the TypeScript names the application sees. The names
 * and types are those of the RediSearch client of the same model (built by `buildTsClientDesign`), so an application
 * reads the same `<Query>Params` and `<Query>Result` types whichever design it runs on. Pure.
 */
import type { KvlmModel } from '../../language/generated/ast.js';
import { dynamoClientQuery } from '../dynamodb/dynamodb-client-query.js';
import {
    buildDynamoViewModel,
    type DynamoQuery,
    type DynamoTable,
    type DynamoViewModel,
} from '../dynamodb/dynamodb-design.js';
import { dynamoTargetOptions } from '../dynamodb/dynamodb-target.js';
import { GenerationError } from '../generation-errors.js';
import { buildRedisViewModel, type RedisGenerationOptions } from '../redis/redis-view-model.js';
import type { DynamoClientQuery } from './client-runtime/kvmod-dynamo-client.js';
import { buildTsClientDesign, type TsProperty } from './typescript-design.js';

/** A served query of the client. */
export interface TsDynamoQuery {
    /** The DynamoDB design's query and its table. */
    dynamo: DynamoQuery;
    table: DynamoTable;
    /** The safe spelling of the query name. */
    id: string;
    /** Type and function names (as the RediSearch client names them). */
    names: { params: string; result: string; run: string; pages: string };
    params: TsProperty[];
    /** Its result columns, in projection order (`param` is the item attribute). */
    columns: TsProperty[];
    /** What the generated module embeds of it (the client runtime's `DynamoClientQuery`). */
    data: DynamoClientQuery;
}

/** What the TypeScript target's emitter receives for `--design dynamodb`. */
export interface TsDynamoClientDesign {
    dynamo: DynamoViewModel;
    queries: TsDynamoQuery[];
}

/** Names the generated module declares or exports besides the queries'. */
export const DYNAMO_CLIENT_FIXED_NAMES = [
    'dynamo',
    'DATABASE',
    'SOURCE_MODEL',
    'KVMOD_VERSION',
    'ENTITY_TABLE',
    'QUERIES',
    'IsoDate',
    'IsoTime',
    'IsoDateTime',
    'connect',
    'DynamoPage',
    'DynamoPageOptions',
    'DynamoDBDocumentClient',
    'DynamoDBClientConfig',
] as const;

/**
 * Builds the client's design from the dynamodb view model (default options: a table per collection, pages of 100
 * items) and the RediSearch client's names of the same model.
 */
export function buildTsDynamoClientDesign(
    kvlm: KvlmModel,
    options: Partial<RedisGenerationOptions>,
): TsDynamoClientDesign {
    const dynamo = buildDynamoViewModel(kvlm, { pageSize: dynamoTargetOptions.pageSize.default });
    const named = buildTsClientDesign(buildRedisViewModel(kvlm, options));
    const fixed = new Set<string>(DYNAMO_CLIENT_FIXED_NAMES);
    const queries = dynamo.tables.flatMap((table) =>
        table.queries.map((query): TsDynamoQuery => {
            const ts = named.queries.find((q) => q.redis.name === query.name);
            if (!ts) throw new Error(`query ${query.name}: the RediSearch client's design does not name it`);
            for (const name of Object.values(ts.names))
                if (fixed.has(name))
                    throw new GenerationError(
                        `the function of query ${query.name} and the client's own ${name} would both be named ${name} in the TypeScript client (module scope); rename the query in the model`,
                        { code: 'generation.name-collision' },
                    );
            if (ts.columns.length !== query.projections.length)
                throw new Error(`query ${query.name}: the two designs project different columns`);
            const columns = ts.columns.map((column, position) => ({
                ...column,
                param: query.projections[position]!.field,
            }));
            const propOf = (param: string) => {
                const property = ts.params.find((p) => p.param === param);
                if (!property) throw new Error(`query ${query.name}: no property for parameter ${param}`);
                return property.prop;
            };
            const data = dynamoClientQuery(dynamo.pageSize, table, query, {
                propOf,
                column: (field) => {
                    const column = columns.find((c) => c.param === field)!;
                    return { prop: column.prop, required: column.required };
                },
            });
            const params = query.params.map((param) => ts.params.find((p) => p.param === param.name)!);
            return { dynamo: query, table, id: ts.id, names: ts.names, params, columns, data };
        }),
    );
    return { dynamo, queries };
}
