/**
 * The Redis view model: everything the Redis templates see, built from a KVLM model alone. Templates never
 * see the Langium AST. Every command (index creation, row insert and delete, each served query) is an argv
 * array with parameter slots, so the scripts the templates print and the commands the runtime sends are
 * the same commands (see `redis-commands.ts`). Its JSON Schema is `schemas/redis-view-model.schema.json`.
 */
import type {
    Collection,
    Field,
    KExpression,
    KvlmModel,
    KValue,
    Node,
    ServedQuery,
} from '../../language/generated/ast.js';
import { GenerationError } from '../generation-errors.js';
import { encodeRedisValue, isNumericType, RedisEncodingError, type RedisLogicalType } from './redis-encoding.js';
import { escapeQueryFieldName } from './redis-escaping.js';
import { REDIS_DIALECTS, type RedisDialect } from './redis-dialects.js';
import { REDIS_TEXT_RULES, TAG_SEPARATOR } from './redis-text-rules.js';

export { REDIS_DIALECTS, type RedisDialect } from './redis-dialects.js';
export { TAG_SEPARATOR } from './redis-text-rules.js';

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
 * says; `sort-key` = the text's sort form (`encodeSortKey`), stored in a field's sort companion.
 */
export type RedisSlotUse = 'value' | 'key-part' | 'tag' | 'tag-param' | 'sort-key';

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
    /** The index name (with the database prefix when asked). */
    index: string;
    /** The key prefix, `<index>:`. */
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
}

/** Counter insert for RediSearch 2.x+: INCR, then HSET (prefix indexing picks the hash up). */
const COUNTER_INSERT_LUA_2 = [
    '-- KEYS[1] = counter key; ARGV[1] = key prefix; ARGV[2] = id field; ARGV[3..] = field, value pairs',
    "local id = redis.call('INCR', KEYS[1])",
    'local key = ARGV[1] .. id',
    "redis.call('HSET', key, ARGV[2], id, unpack(ARGV, 3))",
    'return key',
].join('\n');

/** Counter insert for RediSearch 1.2: INCR, then FT.ADD (which writes the hash and indexes it). */
const COUNTER_INSERT_LUA_1 = [
    '-- KEYS[1] = counter key; ARGV[1] = index; ARGV[2] = key prefix; ARGV[3] = id field; ARGV[4..] = field, value pairs',
    "local id = redis.call('INCR', KEYS[1])",
    'local key = ARGV[2] .. id',
    "redis.call('FT.ADD', ARGV[1], key, '1.0', 'REPLACE', 'FIELDS', ARGV[3], id, unpack(ARGV, 4))",
    'return key',
].join('\n');

/** Builds the view model of a KVLM model for one dialect. Throws `GenerationError` for what RediSearch cannot express. */
export function buildRedisViewModel(model: KvlmModel, options: Partial<RedisGenerationOptions> = {}): RedisViewModel {
    const opts: RedisGenerationOptions = { ...DEFAULT_REDIS_OPTIONS, ...definedOnly(options) };
    if (!REDIS_DIALECTS.includes(opts.dialect)) {
        throw new GenerationError(`unknown Redis dialect '${opts.dialect}' (known: ${REDIS_DIALECTS.join(', ')})`, {
            code: 'generation.option',
        });
    }
    if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1_000_000) {
        throw new GenerationError(`the query limit must be an integer from 1 to 1000000, got ${opts.limit}`, {
            code: 'generation.option',
        });
    }
    const collections = model.collections.map((collection) => buildCollection(model, collection, opts));
    const hasCounter = collections.some((c) => c.key.kind === 'counter');
    return {
        target: 'redis',
        dialect: opts.dialect,
        engine:
            opts.dialect === 'redisearch1'
                ? 'RediSearch 1.2: the 1.x module on Redis 5–7, e.g. Debian 12'
                : 'RediSearch 2.x and later: Redis Stack, Redis 8',
        legacy: opts.dialect === 'redisearch1',
        database: model.name,
        source: model.source ?? null,
        options: { dbPrefix: opts.dbPrefix, limit: opts.limit },
        tagSeparator: TAG_SEPARATOR,
        counterInsertLua: hasCounter
            ? opts.dialect === 'redisearch1'
                ? COUNTER_INSERT_LUA_1
                : COUNTER_INSERT_LUA_2
            : null,
        collections,
    };
}

function definedOnly<T extends object>(value: T): Partial<T> {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Field needs derived from the queries themselves (the roles are a summary; the queries are the truth). */
interface FieldUse {
    equality: Set<string>;
    range: Set<string>;
    sort: Set<string>;
}

function buildCollection(model: KvlmModel, collection: Collection, opts: RedisGenerationOptions): RedisCollection {
    const legacy = opts.dialect === 'redisearch1';
    const index = opts.dbPrefix ? `${model.name}_${collection.name}` : collection.name;
    const keyPrefix = `${index}:`;
    const fieldsByName = new Map(collection.fields.map((f) => [f.name, f]));
    const uses = new Map<string, FieldUse>(
        collection.fields.map((f) => [f.name, { equality: new Set(), range: new Set(), sort: new Set() }]),
    );
    for (const query of collection.queries) {
        if (query.where) collectUses(query.where, query, uses, collection);
        for (const key of query.sortKeys) uses.get(fieldOf(key.field, collection).name)!.sort.add(query.name);
    }

    const fields: RedisField[] = collection.fields.map((field) => {
        const roles = {
            projected: [] as string[],
            filtered: [] as string[],
            ranged: [] as string[],
            sorted: [] as string[],
        };
        for (const role of field.roles) {
            for (const q of role.queries) roles[role.kind].push(refName(q));
        }
        const use = uses.get(field.name)!;
        for (const q of use.equality) if (!roles.filtered.includes(q)) roles.filtered.push(q);
        for (const q of use.range) if (!roles.ranged.includes(q)) roles.ranged.push(q);
        for (const q of use.sort) if (!roles.sorted.includes(q)) roles.sorted.push(q);
        return {
            name: field.name,
            label: field.label ?? field.name,
            type: field.type as RedisLogicalType,
            source: `${refName(field.node)}.${field.attribute}`,
            indexed: field.indexed,
            roles,
            index: indexOf(field, roles, collection),
            sortKey: null,
        };
    });
    const schemaFields = fields.filter((f) => f.index).map((f) => f.name);
    assignSortCompanions(collection, fields);

    // The id field is stored in every row; it is indexed only when nothing else is, so the index is never empty.
    const idField = collection.keyField;
    const key = keyStrategyOf(collection, keyPrefix, fields);
    const rowParams: RedisRowParam[] = [
        ...key.parts
            .filter((p) => !fieldsByName.has(p.param))
            .map((p) => ({ name: p.param, type: p.type, source: p.source, keyOnly: true })),
        ...fields.map((f) => ({ name: f.name, type: f.type, source: f.source, keyOnly: false })),
    ];

    const create = createCommand(index, keyPrefix, fields, idField, legacy);
    const insert = insertCommand(index, keyPrefix, idField, key, fields, legacy);
    const del = deleteCommand(index, keyPrefix, idField, key, legacy);
    const queries = collection.queries.map((query) => buildQuery(query, collection, index, idField, fields, opts));
    return {
        name: collection.name,
        index,
        keyPrefix,
        idField,
        key,
        root: { name: collection.root.name, entity: collection.root.entity },
        nodes: collection.nodes.map((n) => ({
            name: n.name,
            parent: refName(n.parent),
            reference: n.reference,
            entity: n.entity,
            cardinality: n.cardinality,
        })),
        fields,
        schemaFields: schemaFields.length > 0 ? schemaFields : [idField],
        rowParams,
        create,
        insert,
        delete: del,
        queries,
    };
}

function indexOf(field: Field, roles: RedisField['roles'], collection: Collection): RedisIndexedField | null {
    const sortable = roles.sorted.length > 0;
    const filtered = roles.filtered.length > 0;
    const ranged = roles.ranged.length > 0;
    if (!sortable && !filtered && !ranged) return null;
    const type = field.type as RedisLogicalType;
    if (isNumericType(type)) {
        const why = [
            filtered ? `equality in ${roles.filtered.join(', ')}` : '',
            ranged ? `range in ${roles.ranged.join(', ')}` : '',
            sortable ? `sort in ${roles.sorted.join(', ')}` : '',
        ]
            .filter(Boolean)
            .join('; ');
        return { type: 'NUMERIC', sortable, separator: null, reason: why };
    }
    if (ranged) {
        throw new GenerationError(
            `collection '${collection.name}': field '${field.name}' (text) is compared with <, <=, > or >= in ${roles.ranged.join(', ')}; RediSearch cannot range over text (only NUMERIC fields range)`,
            { code: 'generation.unsupported' },
        );
    }
    const why = [
        filtered ? `equality in ${roles.filtered.join(', ')}` : '',
        sortable ? `sort in ${roles.sorted.join(', ')}` : '',
    ]
        .filter(Boolean)
        .join('; ');
    return { type: 'TAG', sortable, separator: TAG_SEPARATOR, reason: why };
}

/**
 * Gives every text field that an FT.AGGREGATE query (several sort keys) sorts on a sort companion, named
 * `<field>__sort` (with `_` appended until no field, id field or other companion has the name).
 */
function assignSortCompanions(collection: Collection, fields: RedisField[]): void {
    const taken = new Set([...fields.map((f) => f.name), collection.keyField]);
    const byName = new Map(fields.map((f) => [f.name, f]));
    for (const query of collection.queries) {
        if (query.sortKeys.length < 2) continue;
        for (const key of query.sortKeys) {
            const field = byName.get(fieldOf(key.field, collection).name)!;
            if (isNumericType(field.type) || field.sortKey !== null) continue;
            let name = `${field.name}__sort`;
            while (taken.has(name)) name += '_';
            taken.add(name);
            field.sortKey = name;
        }
    }
}

function collectUses(expr: KExpression, query: ServedQuery, uses: Map<string, FieldUse>, collection: Collection): void {
    switch (expr.$type) {
        case 'KBinaryExpression':
            collectUses(expr.left, query, uses, collection);
            collectUses(expr.right, query, uses, collection);
            return;
        case 'KNotExpression':
            collectUses(expr.operand, query, uses, collection);
            return;
        case 'KGroupExpression':
            collectUses(expr.inner, query, uses, collection);
            return;
        case 'KComparison': {
            const field = fieldOf(expr.field, collection);
            const use = uses.get(field.name)!;
            if (expr.operator === '=' || expr.operator === '!=') use.equality.add(query.name);
            else use.range.add(query.name);
            return;
        }
    }
}

function keyStrategyOf(collection: Collection, keyPrefix: string, fields: RedisField[]): RedisKeyStrategy {
    if (collection.strategy.$type === 'CounterKey') {
        return {
            kind: 'counter',
            parts: [],
            counterKey: `${keyPrefix}counter`,
            pattern: `${keyPrefix}<INCR ${keyPrefix}counter>`,
        };
    }
    const taken = new Set(fields.map((f) => f.name));
    const parts: RedisKeyPart[] = collection.strategy.parts.map((part) => {
        const node = refName(part.node);
        const source = `${node}.${part.attribute}`;
        const field = fields.find((f) => f.source === source);
        if (field) return { source, param: field.name, type: field.type };
        let param = `${node}_${part.attribute}`;
        while (taken.has(param)) param += '_key';
        taken.add(param);
        return { source, param, type: 'text' as RedisLogicalType };
    });
    return {
        kind: 'natural',
        parts,
        counterKey: null,
        pattern: keyPrefix + parts.map((p) => `<${p.param}>`).join(':'),
    };
}

function slot(param: string, type: RedisLogicalType, use: RedisSlotUse, nullable = false): RedisParamSlot {
    return { param, type, use, nullable };
}

function command(argv: RedisArgPart[][]): RedisCommand {
    const params: string[] = [];
    for (const arg of argv) {
        for (const part of arg) {
            if (typeof part !== 'string' && !params.includes(part.param)) params.push(part.param);
        }
    }
    return { argv: argv.map(mergeLiterals), params };
}

/** Adjacent literal parts become one, so a literal argument is always a single string part. */
function mergeLiterals(arg: RedisArgPart[]): RedisArgPart[] {
    const out: RedisArgPart[] = [];
    for (const part of arg) {
        const last = out[out.length - 1];
        if (typeof part === 'string' && typeof last === 'string') out[out.length - 1] = last + part;
        else if (part !== '') out.push(part);
    }
    return out.length > 0 ? out : [''];
}

function lit(...words: string[]): RedisArgPart[][] {
    return words.map((w) => [w]);
}

function createCommand(
    index: string,
    keyPrefix: string,
    fields: RedisField[],
    idField: string,
    legacy: boolean,
): RedisCommand {
    const argv = lit('FT.CREATE', index);
    if (!legacy) argv.push(...lit('ON', 'HASH', 'PREFIX', '1', keyPrefix));
    argv.push(...lit('STOPWORDS', '0', 'SCHEMA'));
    const indexed = fields.filter((f) => f.index);
    if (indexed.length === 0) argv.push(...lit(idField, 'TAG', 'SEPARATOR', TAG_SEPARATOR));
    for (const field of indexed) {
        const ix = field.index!;
        argv.push(...lit(field.name, ix.type));
        if (ix.type === 'TAG') argv.push(...lit('SEPARATOR', ix.separator!));
        if (ix.sortable) argv.push(...lit('SORTABLE'));
    }
    return command(argv);
}

function keyParts(keyPrefix: string, idField: string, key: RedisKeyStrategy, withPrefix: boolean): RedisArgPart[] {
    const parts: RedisArgPart[] = withPrefix ? [keyPrefix] : [];
    if (key.kind === 'counter') {
        parts.push(slot(idField, 'int', 'value'));
        return parts;
    }
    key.parts.forEach((part, i) => {
        if (i > 0) parts.push(':');
        parts.push(slot(part.param, part.type, 'key-part'));
    });
    return parts;
}

/** The field/value pairs of a write: each field, then its sort companion (derived from the same row value). */
function fieldPairs(fields: RedisField[]): RedisArgPart[][] {
    return fields.flatMap((f) => [
        [f.name],
        [slot(f.name, f.type, 'value', true)],
        ...(f.sortKey !== null ? [[f.sortKey], [slot(f.name, 'text', 'sort-key', true)]] : []),
    ]);
}

function insertCommand(
    index: string,
    keyPrefix: string,
    idField: string,
    key: RedisKeyStrategy,
    fields: RedisField[],
    legacy: boolean,
): RedisCommand {
    if (key.kind === 'counter') {
        const lua = legacy ? COUNTER_INSERT_LUA_1 : COUNTER_INSERT_LUA_2;
        const head = legacy
            ? lit('EVAL', lua, '1', key.counterKey!, index, keyPrefix, idField)
            : lit('EVAL', lua, '1', key.counterKey!, keyPrefix, idField);
        return command([...head, ...fieldPairs(fields)]);
    }
    const rowKey = keyParts(keyPrefix, idField, key, true);
    const id = keyParts(keyPrefix, idField, key, false);
    const head: RedisArgPart[][] = legacy
        ? [['FT.ADD'], [index], rowKey, ['1.0'], ['REPLACE'], ['FIELDS']]
        : [['HSET'], rowKey];
    return command([...head, [idField], id, ...fieldPairs(fields)]);
}

function deleteCommand(
    index: string,
    keyPrefix: string,
    idField: string,
    key: RedisKeyStrategy,
    legacy: boolean,
): RedisCommand {
    const rowKey = keyParts(keyPrefix, idField, key, true);
    return command(legacy ? [['FT.DEL'], [index], rowKey, ['DD']] : [['DEL'], rowKey]);
}

function buildQuery(
    query: ServedQuery,
    collection: Collection,
    index: string,
    idField: string,
    fields: RedisField[],
    opts: RedisGenerationOptions,
): RedisQuery {
    const legacy = opts.dialect === 'redisearch1';
    const fieldByName = new Map(fields.map((f) => [f.name, f]));
    const usedParams: string[] = [];
    const paramTypes = new Map<string, RedisLogicalType>();
    const paramFields = new Map<string, string>();
    const filterParts: RedisArgPart[] = query.where
        ? translate(query.where, { collection, query, legacy, usedParams, paramTypes, paramFields, top: true })
        : ['*'];
    const filter = mergeLiterals(filterParts);
    const params = query.params.map((p) => ({
        name: p.name,
        type: p.type as RedisLogicalType,
        field: paramFields.get(p.name) ?? null,
    }));
    const projections = query.projections.map((p) => {
        const field = fieldByName.get(fieldOf(p.field, collection).name)!;
        return { field: field.name, label: p.label ?? field.label, type: field.type };
    });
    const taken = new Set([
        ...fields.map((f) => f.name),
        ...fields.flatMap((f) => (f.sortKey !== null ? [f.sortKey] : [])),
        idField,
    ]);
    const sortKeys = query.sortKeys.map((k) => {
        const field = fieldByName.get(fieldOf(k.field, collection).name)!;
        return {
            field: field.name,
            direction: (k.direction.toLowerCase() === 'desc' ? 'DESC' : 'ASC') as 'ASC' | 'DESC',
            property: `@${field.name}`,
            numeric: isNumericType(field.type),
        };
    });
    const kind: RedisQuery['kind'] = sortKeys.length > 1 ? 'aggregate' : 'search';

    const page = pagingSlots(query.params.map((p) => p.name));
    const limitArgs: RedisArgPart[][] = [
        ['LIMIT'],
        [{ ...slot(page.offset, 'int', 'value'), default: '0' }],
        [{ ...slot(page.count, 'int', 'value'), default: String(opts.limit) }],
    ];
    const argv: RedisArgPart[][] = [];
    const load: string[] = [];
    if (kind === 'search') {
        argv.push(['FT.SEARCH'], [index], filter);
        argv.push(...lit('RETURN', String(projections.length), ...projections.map((p) => p.field)));
        if (sortKeys.length === 1) argv.push(...lit('SORTBY', sortKeys[0]!.field, sortKeys[0]!.direction));
        argv.push(...limitArgs);
    } else {
        // FT.AGGREGATE cannot return the document key (load the id field) and compares LOADed values as
        // byte strings: numbers sort on an APPLY'd `@x + 0`, text on its case-folded sort companion.
        for (const key of sortKeys) {
            const companion = fieldByName.get(key.field)!.sortKey;
            if (!key.numeric && companion !== null) key.property = `@${companion}`;
        }
        const sortLoads = sortKeys.map((k) => (k.numeric ? k.field : k.property.slice(1)));
        for (const name of [idField, ...projections.map((p) => p.field), ...sortLoads]) {
            if (!load.includes(name)) load.push(name);
        }
        argv.push(['FT.AGGREGATE'], [index], filter);
        argv.push(...lit('LOAD', String(load.length), ...load.map((n) => `@${n}`)));
        for (const key of sortKeys) {
            if (!key.numeric) continue;
            let alias = `${key.field}_num`;
            while (taken.has(alias)) alias += '_';
            taken.add(alias);
            key.property = `@${alias}`;
            argv.push(...lit('APPLY', `@${key.field} + 0`, 'AS', alias));
        }
        argv.push(...lit('SORTBY', String(sortKeys.length * 2), ...sortKeys.flatMap((k) => [k.property, k.direction])));
        argv.push(...limitArgs);
    }
    if (!legacy) {
        if (usedParams.length > 0) {
            argv.push(...lit('PARAMS', String(usedParams.length * 2)));
            for (const name of usedParams) {
                const type = paramTypes.get(name)!;
                argv.push([name], [slot(name, type, isNumericType(type) ? 'value' : 'tag-param')]);
            }
        }
        argv.push(...lit('DIALECT', '2'));
    }
    return {
        name: query.name,
        params,
        kind,
        filter: filter.map((p) => (typeof p === 'string' ? p : `$${p.param}`)).join(''),
        sortKeys,
        projections,
        load,
        limit: opts.limit,
        page,
        rowIdentity: kind === 'search' ? 'document-key' : 'id-field',
        command: command(argv),
    };
}

/** The names of the paging slots: `offset` and `count`, with `_` appended until no query parameter has the name. */
function pagingSlots(params: readonly string[]): { offset: string; count: string } {
    const free = (name: string): string => (params.includes(name) ? free(`${name}_`) : name);
    return { offset: free('offset'), count: free('count') };
}

interface TranslateContext {
    collection: Collection;
    query: ServedQuery;
    legacy: boolean;
    usedParams: string[];
    paramTypes: Map<string, RedisLogicalType>;
    paramFields: Map<string, string>;
    top: boolean;
}

/**
 * A KVLM condition as a RediSearch query string. OR binds tighter than AND in RediSearch, so every operand
 * of `|` and every compound operand of an intersection is parenthesised.
 */
function translate(expr: KExpression, ctx: TranslateContext): RedisArgPart[] {
    const inner = { ...ctx, top: false };
    switch (expr.$type) {
        case 'KGroupExpression':
            return translate(expr.inner, ctx);
        case 'KNotExpression':
            return ['-(', ...translate(expr.operand, inner), ')'];
        case 'KBinaryExpression': {
            const operands = flatten(expr, expr.operator);
            const wrap = (e: KExpression): RedisArgPart[] => {
                const parts = translate(e, inner);
                const plain = unwrapGroups(e).$type === 'KComparison';
                return expr.operator === 'and' && plain ? parts : ['(', ...parts, ')'];
            };
            return operands.flatMap((operand, i) => [
                ...(i > 0 ? [expr.operator === 'and' ? ' ' : ' | '] : []),
                ...wrap(operand),
            ]);
        }
        case 'KComparison':
            return comparison(expr, ctx);
    }
}

/** The operands of a chain of one operator (`a and b and c`), groups of the same operator included. */
function flatten(expr: KExpression, operator: string): KExpression[] {
    const inner = unwrapGroups(expr);
    if (inner.$type === 'KBinaryExpression' && inner.operator === operator)
        return [...flatten(inner.left, operator), ...flatten(inner.right, operator)];
    return [expr];
}

function unwrapGroups(expr: KExpression): KExpression {
    return expr.$type === 'KGroupExpression' ? unwrapGroups(expr.inner) : expr;
}

function comparison(expr: Extract<KExpression, { $type: 'KComparison' }>, ctx: TranslateContext): RedisArgPart[] {
    const field = fieldOf(expr.field, ctx.collection);
    const type = field.type as RedisLogicalType;
    const at = `@${escapeQueryFieldName(field.name)}:`;
    const negate = expr.operator === '!=';
    if (!isNumericType(type)) {
        if (expr.operator !== '=' && expr.operator !== '!=') {
            throw new GenerationError(
                `query '${ctx.query.name}': '${field.name}' is text; RediSearch cannot range over text`,
                { code: 'generation.unsupported' },
            );
        }
        const value = valueParts(expr.value, type, 'tag', ctx, field);
        return [negate ? '-' : '', at, '{', ...value, '}'];
    }
    const value = valueParts(expr.value, type, 'number', ctx, field);
    switch (expr.operator) {
        case '=':
            return [at, '[', ...value, ' ', ...value, ']'];
        case '!=':
            return ['-', at, '[', ...value, ' ', ...value, ']'];
        case '<':
            return [at, '[-inf (', ...value, ']'];
        case '<=':
            return [at, '[-inf ', ...value, ']'];
        case '>':
            return [at, '[(', ...value, ' +inf]'];
        case '>=':
            return [at, '[', ...value, ' +inf]'];
    }
}

/** A comparison's right-hand side inside the query string: a literal, or a parameter. */
function valueParts(
    value: KValue,
    type: RedisLogicalType,
    kind: 'tag' | 'number',
    ctx: TranslateContext,
    field: Field,
): RedisArgPart[] {
    if (value.$type === 'ParameterRef') {
        const name = value.parameter.ref?.name ?? value.parameter.$refText;
        if (!ctx.query.params.some((p) => p.name === name)) {
            throw new GenerationError(`query '${ctx.query.name}': unknown parameter '?${name}'`, {
                code: 'generation.model',
            });
        }
        const known = ctx.paramTypes.get(name);
        if (known !== undefined && known !== type) {
            throw new GenerationError(
                `query '${ctx.query.name}': parameter '?${name}' is compared with fields of two types (${known}, ${type})`,
                { code: 'generation.model' },
            );
        }
        ctx.paramTypes.set(name, type);
        if (!ctx.paramFields.has(name)) ctx.paramFields.set(name, field.name);
        if (!ctx.usedParams.includes(name)) ctx.usedParams.push(name);
        if (!ctx.legacy) return [`$${name}`];
        return [slot(name, type, kind === 'tag' ? 'tag' : 'value')];
    }
    let raw: unknown;
    if (value.$type === 'KStringValue') raw = value.value;
    else if (value.$type === 'KNumberValue') raw = `${value.negative ? '-' : ''}${value.value}`;
    else raw = value.value === 'true';
    let encoded: string;
    try {
        encoded = encodeRedisValue(type, raw);
    } catch (error) {
        const detail = error instanceof RedisEncodingError ? error.message : String(error);
        throw new GenerationError(
            `query '${ctx.query.name}': the literal compared with '${field.name}' does not fit its type ${type}: ${detail}`,
            { code: 'generation.model' },
        );
    }
    if (kind === 'tag') {
        try {
            return [REDIS_TEXT_RULES[ctx.legacy ? 'redisearch1' : 'redisearch2'].queryTag(encoded, 'query-string')];
        } catch (error) {
            if (!(error instanceof RedisEncodingError)) throw error;
            throw new GenerationError(
                `query '${ctx.query.name}': the literal compared with '${field.name}' cannot be searched for: ${error.message}`,
                { code: 'generation.unsupported' },
            );
        }
    }
    return [encoded];
}

function fieldOf(ref: { ref?: Field; $refText: string }, collection: Collection): Field {
    const field = ref.ref ?? collection.fields.find((f) => f.name === ref.$refText);
    if (!field) {
        throw new GenerationError(`collection '${collection.name}': unknown field '${ref.$refText}'`, {
            code: 'generation.model',
        });
    }
    return field;
}

function refName(ref: { ref?: Node | ServedQuery | Field; $refText: string }): string {
    return ref.$refText || ref.ref?.name || '';
}
