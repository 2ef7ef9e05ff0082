/**
 * The design of the TypeScript client: the Redis target's physical design (index names, keys, commands with their
 * parameter slots, encodings, sort companions, paging slots) plus the TypeScript names the application sees. Built
 * FROM the Redis view model, never beside it: a renamed index or key, a new encoding or companion field flows into
 * the client unchanged. Pure; a name that two model names share after the safe spelling is a GenerationError.
 */
import type { KvlmModel, PidmModel } from '../../language/generated/ast.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import {
    buildRedisViewModel,
    type RedisCollection,
    type RedisCommand,
    type RedisGenerationOptions,
    type RedisQuery,
    type RedisViewModel,
} from '../redis/redis-view-model.js';
import { REDIS_DIALECT_STRATEGIES } from '../redis/redis-dialect-strategy.js';
import type { RedisDialect } from '../shared/redis-dialects.js';
import { buildTsEntityStore, type TsEntityStore } from './typescript-entities.js';
import { NameScope, safeIdentifier, typeCase } from './typescript-names.js';

export { safeIdentifier } from './typescript-names.js';

/** A property of an application-facing object: its TypeScript name, the design name it maps to, its type. */
export interface TsProperty {
    /** The safe TypeScript spelling. */
    prop: string;
    /** The design's name (row parameter, query parameter, hash field). */
    param: string;
    /** The logical type. */
    type: RedisLogicalType;
    /** False when the value may be missing (written as absent, read back as null). */
    required: boolean;
    /** Where the value comes from, for the doc comment. */
    doc: string;
}

/** A collection of the client. */
export interface TsCollection {
    /** The Redis design's collection. */
    redis: RedisCollection;
    /** The safe spelling of the collection name. */
    id: string;
    /** Type and function names (rows are written by the entity operations, never one by one). */
    names: { key: string; keyOf: string | null };
    /** The row's properties (the design parameters a row feeds). */
    row: TsProperty[];
    /** The key's properties (what the key builder takes). */
    key: TsProperty[];
}

/** A served query of the client. */
export interface TsQuery {
    /** The Redis design's query. */
    redis: RedisQuery;
    /** The collection it reads. */
    collection: TsCollection;
    /**
     * What the client sends: the Redis design's command with its head pinned to this design's index (see
     * `RedisDialectStrategy.pinnedQueryHead`), so that a server another design now serves refuses the query instead
     * of answering it from that design's index.
     */
    command: RedisCommand;
    /** The safe spelling of the query name. */
    id: string;
    /** Type and function names. */
    names: { params: string; result: string; run: string; pages: string };
    /** Its parameters. */
    params: TsProperty[];
    /** Its result columns (`param` is the hash field). */
    columns: TsProperty[];
    /**
     * How its pages stay consistent (see the client runtime's `ClientQuery.paging`): `whole` for a sorted FT.SEARCH on
     * RediSearch 1.2, whose sorter does not break ties between equal sort keys; `offset` otherwise (RediSearch 2.x
     * breaks ties by document id in every sorter, 1.2 does in FT.AGGREGATE's and in the score order).
     */
    paging: 'offset' | 'whole';
    /**
     * The position of the TIMEOUT / PARAMS / DIALECT arguments of its command (the argv's length when it has none):
     * the count of an aggregate's rows sends them too.
     */
    countTail: number;
}

/** What the TypeScript target's emitter receives. */
export interface TsClientDesign {
    /** The Redis design it is built from. */
    redis: RedisViewModel;
    /** The collections. */
    collections: TsCollection[];
    /** The served queries, in model order. */
    queries: TsQuery[];
    /** The entities and their operations; null when the design keeps no entities (see the Redis design's warning). */
    entities: TsEntityStore | null;
}

/** Names the generated module declares or exports besides the model's (the runtime's re-exports included). */
export const CLIENT_FIXED_NAMES = [
    'kvmod',
    'DATABASE',
    'DIALECT',
    'SOURCE_MODEL',
    'KVMOD_VERSION',
    'INDEXES',
    'KEY_PREFIXES',
    'COLLECTIONS',
    'QUERIES',
    'DESIGN',
    'IsoDate',
    'IsoTime',
    'IsoDateTime',
    'connect',
    'checkServer',
    'createIndexes',
    'dropIndexes',
    'CommandClient',
    'Page',
    'PageOptions',
    'IndexOutcome',
    'KvmodClientError',
    'ConnectionRefusedError',
    'SearchModuleMissingError',
    'WrongDialectError',
    'MissingIndexError',
    'IndexSchemaError',
    'kvmodEntities',
    'ENTITY_STORE',
    'installEntityFunctions',
    'EntityError',
    'EntityErrorCode',
    'EntityReferrer',
    'EntityWrite',
    'UpdateOptions',
    'DeleteOptions',
] as const;

/** The required-ness of each parameter of a command: required when some slot of it has no way to be left out. */
function requiredParams(command: RedisCommand): Map<string, boolean> {
    const required = new Map<string, boolean>();
    for (const arg of command.argv) {
        for (const part of arg) {
            if (typeof part === 'string') continue;
            const optional = part.nullable && arg.length === 1;
            required.set(part.param, (required.get(part.param) ?? false) || !optional);
        }
    }
    return required;
}

/** The types of a command's slots, by parameter (the first slot's type; every slot of one parameter agrees). */
function slotTypes(command: RedisCommand): Map<string, RedisLogicalType> {
    const types = new Map<string, RedisLogicalType>();
    for (const arg of command.argv)
        for (const part of arg)
            if (
                typeof part !== 'string' &&
                part.use !== 'sort-key' &&
                part.use !== 'equality-key' &&
                !types.has(part.param)
            )
                types.set(part.param, part.type);
    return types;
}

function buildCollection(collection: RedisCollection, top: NameScope): TsCollection {
    const id = safeIdentifier(collection.name);
    const what = `collection ${collection.name}`;
    const type = typeCase(id);
    const names = {
        key: top.claim(`${type}Key`, `the key type of ${what}`),
        keyOf: collection.key.kind === 'natural' ? top.claim(`keyOf${type}`, `the key builder of ${what}`) : null,
    };
    const rowScope = new NameScope(`the row values of ${what}`);
    const required = requiredParams(collection.insert);
    const row = collection.rowParams.map((param) => ({
        prop: rowScope.claim(safeIdentifier(param.name), `row value ${param.name}`),
        param: param.name,
        type: param.type,
        required: required.get(param.name) ?? false,
        doc: `${safeIdentifier(param.name) === param.name ? '' : `${param.name}: `}${param.source}${param.keyOnly ? ' (key only)' : ''}`,
    }));
    const keyScope = new NameScope(`the properties of ${names.key}`);
    const deleteTypes = slotTypes(collection.delete);
    const key = collection.delete.params.map((param) => ({
        prop: keyScope.claim(safeIdentifier(param), `key part ${param}`),
        param,
        type: deleteTypes.get(param) ?? 'text',
        required: true,
        doc: `${safeIdentifier(param) === param ? '' : `${param}: `}${collection.key.parts.find((part) => part.param === param)?.source ?? `the row id (${collection.idField})`}`,
    }));
    return { redis: collection, id, names, row, key };
}

/** The query's command with its head (`RedisDialectStrategy.queryHead`) replaced by the head pinned to its index. */
function pinnedCommand(query: RedisQuery, collection: RedisCollection, dialect: RedisDialect): RedisCommand {
    const strategy = REDIS_DIALECT_STRATEGIES[dialect];
    const verb = query.kind === 'search' ? 'FT.SEARCH' : 'FT.AGGREGATE';
    const head = strategy.queryHead(verb, collection.index);
    const length = head.length;
    if (JSON.stringify(query.command.argv.slice(0, length)) !== JSON.stringify(head))
        throw new Error(`query ${query.name}: its command does not start with the head of its dialect`);
    return {
        ...query.command,
        argv: [
            ...strategy.pinnedQueryHead(verb, collection.index, collection.physicalIndex),
            ...query.command.argv.slice(length),
        ],
    };
}

function buildQuery(query: RedisQuery, collection: TsCollection, dialect: RedisDialect, top: NameScope): TsQuery {
    const id = safeIdentifier(query.name);
    const what = `query ${query.name}`;
    const type = typeCase(id);
    const names = {
        params: top.claim(`${type}Params`, `the parameter type of ${what}`),
        result: top.claim(`${type}Result`, `the result type of ${what}`),
        run: top.claim(id, `the function of ${what}`),
        pages: top.claim(`${id}Pages`, `the page iterator of ${what}`),
    };
    const paramScope = new NameScope(`the properties of ${names.params}`);
    const params = query.params.map((param) => ({
        prop: paramScope.claim(safeIdentifier(param.name), `parameter ${param.name}`),
        param: param.name,
        type: param.type,
        required: true,
        doc: `${safeIdentifier(param.name) === param.name ? '' : `${param.name}: `}${param.field === null ? 'unused by the filter' : `compared with ${param.field}`}`,
    }));
    const columnScope = new NameScope(`the properties of ${names.result}`);
    const optional = requiredParams(collection.redis.insert);
    const columns = query.projections.map((projection) => ({
        prop: columnScope.claim(safeIdentifier(projection.label), `column "${projection.label}"`),
        param: projection.field,
        type: projection.type,
        required: optional.get(projection.field) ?? false,
        doc: `column "${projection.label}" (field ${projection.field})`,
    }));
    const command = pinnedCommand(query, collection.redis, dialect);
    const tail = command.argv.findIndex(
        (arg) => arg.length === 1 && (arg[0] === 'TIMEOUT' || arg[0] === 'PARAMS' || arg[0] === 'DIALECT'),
    );
    return {
        redis: query,
        collection,
        command,
        id,
        names,
        params,
        columns,
        paging: dialect === 'redisearch1' && query.kind === 'search' && query.sortKeys.length > 0 ? 'whole' : 'offset',
        countTail: tail < 0 ? command.argv.length : tail,
    };
}

/** Builds the client's design from the Redis view model. */
export function buildTsClientDesign(redis: RedisViewModel): TsClientDesign {
    const top = new NameScope('module scope', CLIENT_FIXED_NAMES);
    const collections = redis.collections.map((collection) => buildCollection(collection, top));
    const queries = collections.flatMap((collection) =>
        collection.redis.queries.map((query) => buildQuery(query, collection, redis.dialect, top)),
    );
    return { redis, collections, queries, entities: buildTsEntityStore(redis.entityStore, top) };
}

/** Builds the Redis design of a KVLM model (with its entity store when the source PIDM is given), then the client's. */
export function buildTsClientDesignFromKvlm(
    kvlm: KvlmModel,
    options: RedisGenerationOptions,
    source: { pidm?: readonly PidmModel[] } = {},
): TsClientDesign {
    return buildTsClientDesign(buildRedisViewModel(kvlm, options, source));
}
