/**
 * The design of the TypeScript client of the DynamoDB design (`--design dynamodb`): the dynamodb target's view model
 * (its tables, indexes and each query's `Query` request) plus the TypeScript names the application sees. The names
 * and types are those of the RediSearch client of the same model (built by `buildTsClientDesign`), so an application
 * reads the same `<Query>Params` and `<Query>Result` types whichever design it runs on. Pure.
 */
import type { KvlmModel, PidmModel } from '../../language/generated/ast.js';
import { dynamoEntityDesign } from '../dynamodb/dynamodb-entity-design.js';
import { buildEntityStoreSchema } from '../entities/entity-store-schema.js';
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
import type { DynamoEntityDesign } from './client-runtime/kvmod-dynamo-operations.js';
import { buildTsClientDesign, type TsProperty } from './typescript-design.js';
import { buildTsEntityStore, type TsEntityStore } from './typescript-entities.js';
import { NameScope } from './typescript-names.js';

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
    /**
     * The entity operations: the types and names (as the Redis clients name them) and the design data the client
     * embeds (`ENTITY_DESIGN`); null when the design keeps no entities, with the reason in `noEntities`.
     */
    entities: { names: TsEntityStore; design: DynamoEntityDesign } | null;
    noEntities: string | null;
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
    'ENTITY_STORE',
    'completePendingChanges',
    'kvmodEntities',
    'DeleteOptions',
    'EntityErrorCode',
    'EntityWrite',
    'UpdateOptions',
    'EntityError',
] as const;

/**
 * Builds the client's design from the dynamodb view model (default options: a table per collection, pages of 100
 * items) and the RediSearch client's names of the same model.
 */
export function buildTsDynamoClientDesign(
    kvlm: KvlmModel,
    options: Partial<RedisGenerationOptions>,
    source: { pidm?: readonly PidmModel[] } = {},
): TsDynamoClientDesign {
    const dynamo = buildDynamoViewModel(kvlm, { pageSize: dynamoTargetOptions.pageSize.default });
    const named = buildTsClientDesign(buildRedisViewModel(kvlm, options));
    const fixed = new Set<string>(DYNAMO_CLIENT_FIXED_NAMES);
    const top = new NameScope('module scope', DYNAMO_CLIENT_FIXED_NAMES);
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
            for (const [role, name] of Object.entries(ts.names)) top.claim(name, `the ${role} of query ${query.name}`);
            return { dynamo: query, table, id: ts.id, names: ts.names, params, columns, data };
        }),
    );
    const schema = buildEntityStoreSchema({
        kvlm,
        ...(source.pidm === undefined ? {} : { pidm: source.pidm }),
        dialect: null,
    });
    const design =
        schema.schema === null ? null : dynamoEntityDesign(dynamo, kvlm, Object.values(schema.schema.entities));
    if (schema.schema === null || design === null)
        return {
            dynamo,
            queries,
            entities: null,
            noEntities:
                schema.reason ??
                'a collection has a counter key, whose numbers shift when entities change (use --key natural)',
        };
    const names = buildTsEntityStore({ schema: schema.schema, library: null }, top);
    return { dynamo, queries, entities: names === null ? null : { names, design }, noEntities: null };
}
