// Copied by kvmod from its src/generation/redis/redis-view-model-types.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The types of the Redis view model: everything the Redis templates see (`buildRedisViewModel` builds it). Every
 * command is an argv array with parameter slots, so the scripts the templates print and the commands the runtime
 * sends are the same commands (`redis-commands.ts`). Its JSON Schema is `schemas/redis-view-model.schema.json`.
 */
import type { RedisLogicalType } from './redis-encoding.js';
import type { RedisDialect } from './redis-dialects.js';
import type { EntityStoreSchema } from './entity-store.js';

/** Options of the Redis target; their doc comments are the documentation of the CLI flags. */
export interface RedisGenerationOptions {
    /** `redisearch2` (RediSearch 2.x+, Redis Stack, Redis 8; default) or `redisearch1` (RediSearch 1.2, e.g. Debian 12). */
    dialect: RedisDialect;
    /** Prefix index names and keys with the database name (`airflights_C`, seed 004 §4.6). Default false. */
    dbPrefix: boolean;
    /**
     * The page size: the default `count` of every query's `LIMIT $offset $count` (RediSearch returns 10 rows without
     * a LIMIT). Default 10000.
     */
    limit: number;
}

/** The defaults of `RedisGenerationOptions`. */
export const DEFAULT_REDIS_OPTIONS: RedisGenerationOptions = { dialect: 'redisearch2', dbPrefix: false, limit: 10000 };

/**
 * How a parameter value becomes (part of) an argument: `value` = the stored encoding (see
 * `redis-encoding.ts`); `key-part` = stored encoding with `%` and `:` escaped (natural keys);
 * `tag` = a text compared with a TAG field, written into a RediSearch 1.2 query string (1.2 has no PARAMS);
 * `tag-param` = a text compared with a TAG field, passed as a PARAMS value (2.x); both as `redis-text-rules.ts`
 * says; `sort-key` = the text's sort form (`encodeSortKey`), stored in a field's sort companion; `equality-key` = the
 * text's equality form (`equalityForm`), stored in a field's equality companion (2.x).
 */
export type RedisSlotUse = 'value' | 'key-part' | 'tag' | 'tag-param' | 'sort-key' | 'equality-key';

/** A place in an argument where a parameter's value goes. */
export interface RedisParamSlot {
    /** The parameter (query parameter, or row field for writes). */
    param: string;
    /** Its logical type: decides the encoding. */
    type: RedisLogicalType;
    /** How the encoded value is escaped for its position. */
    use: RedisSlotUse;
    /**
     * True for an optional row value: when the value is null or missing, this argument and the one before it
     * (the hash field name) are left out of the command.
     */
    nullable: boolean;
    /** The value bound when none is given (the paging slots: offset 0, count = the page size); absent otherwise. */
    default?: string;
}

/** A part of one argument: literal text, or a parameter slot. An argument is its parts concatenated. */
export type RedisArgPart = string | RedisParamSlot;

/** One command: its arguments (each a list of parts) and the parameters it needs. */
export interface RedisCommand {
    /** The arguments, the command name first. */
    argv: RedisArgPart[][];
    /** The distinct parameters the slots use, in order of first use. */
    params: string[];
}

/** A field of a collection as stored and indexed. */
export interface RedisField {
    /** The hash field name (a KVLM name: letters, digits, underscores). */
    name: string;
    /** The name the queries use (`FL.departureTime`). */
    label: string;
    /** The logical type. */
    type: RedisLogicalType;
    /** Where the value comes from: `node.attribute`. */
    source: string;
    /** The paper's flag: some query sorts on it. */
    indexed: boolean;
    /** The queries that project, filter (equality), range and sort on it. */
    roles: { projected: string[]; filtered: string[]; ranged: string[]; sorted: string[] };
    /** Its place in the index schema, or null when it is only stored (projection-only). */
    index: RedisIndexedField | null;
    /**
     * The companion hash field holding the value's sort form (`<name>__sort`), written with every row, when an
     * FT.AGGREGATE query sorts on this text field: FT.AGGREGATE sorts LOADed strings byte-wise, so it sorts the
     * case-folded companion to order text as FT.SEARCH does. Null otherwise. Stored only, never indexed.
     */
    sortKey: string | null;
    /**
     * The companion hash field holding the value's equality form (`<name>__eq`), written with every row and indexed as
     * a TAG, when a query compares this text field (`=`, `!=`) on RediSearch 2.x: the 2.x builds lower-case tags in two
     * ways (ASCII only, or Unicode), so equality clauses search a form neither changes. The field itself is then
     * indexed only when a query sorts on it. Null otherwise (always on 1.2, which folds ASCII letters only).
     */
    equalityKey: string | null;
}

/** How a field is indexed. */
export interface RedisIndexedField {
    /** TAG for text equality, NUMERIC for numbers, booleans, dates and times. */
    type: 'TAG' | 'NUMERIC';
    /** True when a query sorts on it. */
    sortable: boolean;
    /** The TAG separator (a control character no real value contains), null for NUMERIC. */
    separator: string | null;
    /** Why it is indexed, for the README. */
    reason: string;
}

/** A part of a natural key. */
export interface RedisKeyPart {
    /** `node.attribute` in the KVLM. */
    source: string;
    /** The row value it takes (a field name, or `<node>_<attribute>` when no field holds it). */
    param: string;
    /** Its logical type. */
    type: RedisLogicalType;
}

/** How a collection's keys are made. */
export interface RedisKeyStrategy {
    /** `natural`: from identifiers along the row path; `counter`: INCR on a per-collection counter. */
    kind: 'natural' | 'counter';
    /** The natural key parts (empty for counter keys). */
    parts: RedisKeyPart[];
    /** The counter key (null for natural keys). */
    counterKey: string | null;
    /** A readable key pattern, e.g. `Q3:<idPassport>:<FL_code>`. */
    pattern: string;
}

/** A value a row supplies when it is written. */
export interface RedisRowParam {
    /** Its name (a field name or a key part's name). */
    name: string;
    /** Its logical type. */
    type: RedisLogicalType;
    /** `node.attribute`. */
    source: string;
    /** True when it is only needed for the key (no field stores it). */
    keyOnly: boolean;
}

/** A served query. */
export interface RedisQuery {
    /** The KVLM query name. */
    name: string;
    /** Its parameters, in declaration order, with the field each is first compared with (null if unused). */
    params: { name: string; type: RedisLogicalType; field: string | null }[];
    /** `search` (FT.SEARCH, at most one sort key) or `aggregate` (FT.AGGREGATE, several sort keys). */
    kind: 'search' | 'aggregate';
    /** The query string with `$param` markers, for reading. */
    filter: string;
    /**
     * Sort keys in order: field, direction, and the property the engine sorts on (FT.AGGREGATE: `@<x>_num` for
     * numbers, `@<x>__sort`, the sort companion, for text).
     */
    sortKeys: { field: string; direction: 'ASC' | 'DESC'; property: string; numeric: boolean }[];
    /** The projected fields with the column names the application sees. */
    projections: { field: string; label: string; type: RedisLogicalType }[];
    /** Hash fields an aggregate LOADs (the id field, the projections, then the sort properties); empty for a search. */
    load: string[];
    /** The page size: the default count of `LIMIT $offset $count`. */
    limit: number;
    /**
     * The paging slots of `LIMIT $offset $count`: their parameter names (`offset` and `count`, with `_` appended
     * when the query has a parameter of that name). Bind them to read a page; unbound, the first page is read.
     */
    page: { offset: string; count: string };
    /**
     * How rows come back: `search` replies carry the document key and the RETURNed fields; `aggregate`
     * replies carry only loaded and applied properties, so the id field identifies the row.
     */
    rowIdentity: 'document-key' | 'id-field';
    /** The command. */
    command: RedisCommand;
}

/** A collection: one index, one key prefix, one kind of hash. */
export interface RedisCollection {
    /** The KVLM collection name. */
    name: string;
    /**
     * The stable name every query uses (the collection name, with the database prefix when asked): an index alias on
     * RediSearch 2.x, resolved through `pointerKey` on 1.2. It survives a change of the design (`kvmod migrate`).
     */
    index: string;
    /**
     * The physical index, `<index>_<storage signature>` (see `redis-naming.ts`): it changes exactly when what the rows
     * and the index hold changes, so a new design's index is built beside the old one.
     */
    physicalIndex: string;
    /** RediSearch 1.2: the key holding the physical index name (`kvmod:index:<index>`); null on 2.x (an alias). */
    pointerKey: string | null;
    /** The key prefix of the rows, `<physicalIndex>:`. */
    keyPrefix: string;
    /** The field holding the row's id (the key without its prefix): FT.AGGREGATE cannot return keys. */
    idField: string;
    /** How keys are made. */
    key: RedisKeyStrategy;
    /** The row grain: the FROM entity. */
    root: { name: string; entity: string };
    /** The row grain: included references. */
    nodes: { name: string; parent: string; reference: string; entity: string; cardinality: string }[];
    /** All stored fields, in KVLM order. */
    fields: RedisField[];
    /** The indexed fields, in schema order. */
    schemaFields: string[];
    /** What a row supplies to `insert`. */
    rowParams: RedisRowParam[];
    /** `FT.CREATE`. */
    create: RedisCommand;
    /** Writes (or replaces) one row and keeps the index in step. */
    insert: RedisCommand;
    /** Deletes one row from the keyspace and the index. */
    delete: RedisCommand;
    /** Makes the stable name serve the physical index: `FT.ALIASUPDATE` (2.x) or `SET` of the pointer key (1.2). */
    point: RedisCommand;
    /** Drops the physical index with its rows: `FT.DROPINDEX … DD` (2.x) or `FT.DROP` (1.2). */
    drop: RedisCommand;
    /** The served queries. */
    queries: RedisQuery[];
}

/** What the Redis templates receive. */
export interface RedisViewModel {
    /** Always `redis`. */
    target: 'redis';
    /** The dialect. */
    dialect: RedisDialect;
    /** A readable name of the engine versions the dialect targets. */
    engine: string;
    /** True for `redisearch1`. */
    legacy: boolean;
    /** The KVLM database name. */
    database: string;
    /** The PIDM file the KVLM came from, when recorded. */
    source: string | null;
    /** The options used. */
    options: { dbPrefix: boolean; limit: number };
    /** The TAG separator (U+001F): a character real values do not contain, so a tag is never split. */
    tagSeparator: string;
    /** The Lua script of counter-key inserts (null when no collection uses counter keys). */
    counterInsertLua: string | null;
    /** The collections. */
    collections: RedisCollection[];
    /** The entity store (issue 28): entity hashes, reverse hashes and the entity Function; null when the design has none. */
    entityStore: RedisEntityStore | null;
    /** Why the design has no entity store (a design warning), or null. */
    noEntityStore: string | null;
}

/** The entity store of a design: how entities are kept and the Functions library that runs their operations. */
export interface RedisEntityStore {
    /** The layout every writer and reader of the entities shares (src/generation/shared/entity-store.ts). */
    schema: EntityStoreSchema;
    /** The Functions library (`FUNCTION LOAD REPLACE`), the text of `entities.lua`: one Function, `schema.functionName`. */
    library: string;
    /** The library's name: `kvmod_<database>_entities`. */
    libraryName: string;
}
