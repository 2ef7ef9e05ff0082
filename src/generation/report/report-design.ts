/**
 * The design report's view model: what the report templates show, built from the design input alone (the
 * KVLM, and the source PIDM and the transformation's decisions when known). The diagrams are described as
 * data (entities, relationships, nodes, edges); the templates write the Mermaid text, so a user can restyle
 * them, and the helpers in report-helpers.ts make every name and label safe for Mermaid.
 */
import type { Collection, KvlmModel, PidmModel } from '../../language/generated/ast.js';
import { isAttribute, isIdAttribute, isNaturalKey, isReference } from '../../language/generated/ast.js';
import { printKvlmExpression } from '../../language/kvlm/kvlm-printer.js';
import { referencedName } from '../../language/kvlm/kvlm-semantics.js';
import { attributeType, cardinalityKind, identifierOf, SURROGATE_ID } from '../../language/pidm/pidm-semantics.js';
import { buildWriteMap, totalRows } from '../../../transformations/write-map/index.js';
import { DEFAULT_TRANSFORM_OPTIONS } from '../../../transformations/pidm-to-kvlm/index.js';
import type { DesignInput } from '../generation-target.js';
import { formatRedisCommand } from '../redis/redis-commands.js';
import {
    entityKey,
    entityFunctionName,
    referenceField,
    reverseKey,
    rowMapKey,
    VERSION_FIELD,
} from '../shared/entity-store.js';
import { formatCliCommand } from '../shared/redis-escaping.js';
import {
    buildRedisViewModel,
    DEFAULT_REDIS_OPTIONS,
    type RedisGenerationOptions,
    type RedisQuery,
} from '../redis/redis-view-model.js';
import {
    buildCoreViewModel,
    type CoreCollection,
    type CoreQuery,
    type CoreViewModel,
} from '../redis-core/redis-core-design.js';

import type { ReportDesign } from './report-designs.js';
import { reportCost, type ReportCost } from './report-cost.js';

/** The report's options: the design it describes, and the redis target's options that change what it shows. */
export interface ReportOptions extends Pick<RedisGenerationOptions, 'dialect' | 'dbPrefix'> {
    design: ReportDesign;
}

/** The threshold the cost comparison starts from when neither the run nor the KVLM gives one. */
const DEFAULT_THRESHOLD = DEFAULT_TRANSFORM_OPTIONS.threshold;

/** The defaults: the redis target's design with its default options. */
export const DEFAULT_REPORT_OPTIONS: ReportOptions = {
    design: 'redis',
    dialect: DEFAULT_REDIS_OPTIONS.dialect,
    dbPrefix: DEFAULT_REDIS_OPTIONS.dbPrefix,
};

/** One end of a relationship, as Mermaid's erDiagram spells cardinalities. */
export type ErCardinality = 'exactly-one' | 'zero-or-one' | 'zero-or-more' | 'one-or-more';

/** The report's view model (`schemas/report-view-model.schema.json`). */
export interface ReportViewModel {
    target: 'report';
    /** The KVLM database name. */
    database: string;
    /** The source model named by the KVLM (`source "…"`), or null. */
    source: string | null;
    /** The PIDM as an ER diagram; null when the source PIDM was not available (a `.kvlm` without its source). */
    pidm: ReportPidm | null;
    /** The collections, in KVLM order. */
    collections: ReportCollection[];
    /** The merge decisions (what `kvmod transform --explain` prints); null when the KVLM was read, not made. */
    merges: ReportMerges | null;
    /** Every served query with its collection and access path, in KVLM order. */
    queries: ReportQuery[];
    /** Per entity, the collection fields that copy each attribute and reference, and the rows an update rewrites; null without the PIDM. */
    writeMap: ReportWriteMap[] | null;
    /** The keys the design keeps beside the rows for the entity operations; null without the PIDM. */
    entityStore: ReportEntityStore | null;
    /** The workload, and the cost policy's design beside the 80% rule's with their costs; null without the PIDM. */
    cost: ReportCost | null;
    /** The design whose keys and access paths the report shows. */
    design: ReportDesign;
    /** The engine and dialect the access paths are given for. */
    engine: string;
}

/** The PIDM's entities and references. */
export interface ReportPidm {
    entities: {
        name: string;
        attributes: { name: string; type: string; key: boolean; note: string | null }[];
    }[];
    relationships: {
        from: string;
        to: string;
        reference: string;
        /** How many `to` per `from`: the reference's cardinality. */
        toCardinality: ErCardinality;
        /** The reference's cardinality as written (`[0..1]`, `[*]`). */
        written: string;
        /** The cardinality in words: one, optional, many. */
        kind: string;
    }[];
}

/** One collection: row grain, key, fields with roles, queries served. */
export interface ReportCollection {
    name: string;
    /** The row grain in words: "one row per Book × T (Book.tags)". */
    grain: string;
    /** The grain as a tree: the FROM node, then the included references. */
    nodes: { id: string; name: string; entity: string; root: boolean }[];
    edges: { from: string; to: string; reference: string; cardinality: string }[];
    key: { field: string; kind: 'natural' | 'counter'; parts: string[]; pattern: string };
    fields: { name: string; type: string; source: string; label: string; roles: string[]; indexed: boolean }[];
    queries: string[];
    /** The keys the redis-core design stores for this collection (null for the redis design). */
    coreKeys: { key: string; kind: string; holds: string }[] | null;
}

/** One entity's write map, a line per copy (an attribute or reference copied nowhere has one line, `copy` null). */
export interface ReportWriteMap {
    entity: string;
    /** Per attribute and reference, the cost of one update: the rows and keys it writes. */
    summary: {
        member: string;
        /** How many collection fields (or includes) copy it. */
        copies: number;
        /** The rows an update writes, all copies together: `3 + 2 × Tags per Book` (`0`: none). */
        rows: string;
        /** The keys an update writes: the entity hash (and a reverse hash) and the rows, or why it is never updated. */
        keys: string;
    }[];
    lines: {
        /** `fullName`, `pid (identifier)`, `clinic → Clinic (reference)`. */
        member: string;
        /** `collection.field`, `collection include P`, or null when nothing copies it. */
        copy: string | null;
        /** The field's roles (`key part` when it keys the rows), `include` for a reference. */
        roles: string;
        /** The rows of the collection an update of one instance rewrites, in words. */
        rows: string;
        /** The same as a count of instances: `1`, `Books per Tag`, `none`. */
        count: string;
    }[];
}

/** The keys the design keeps for the entity operations besides the rows (docs/design/entity-store.md). */
export interface ReportEntityStore {
    /** The Function each entity operation calls (`FCALL <function> 0 <op> …`). */
    function: string;
    /** Why the design keeps no entities, or null (every design with its PIDM keeps them). */
    reason: string | null;
    keys: {
        /** The key pattern, as the design stores it. */
        key: string;
        kind: string;
        /** What the key holds. */
        holds: string;
        /** How many such keys there are. */
        count: string;
    }[];
}

/** The merge decisions of the transformation. */
export interface ReportMerges {
    policy: string;
    threshold: number;
    decisions: {
        left: string;
        right: string;
        common: number;
        leftSize: number;
        rightSize: number;
        leftRatio: string;
        rightRatio: string;
        merged: boolean;
        outcome: string;
    }[];
}

/** A served query and how the chosen design answers it. */
export interface ReportQuery {
    name: string;
    collection: string;
    params: { name: string; type: string }[];
    where: string | null;
    orderBy: string[];
    select: string[];
    /** The redis design's access path (in the chosen dialect); null for the redis-core design. */
    access: { index: string; operation: string; filter: string; sort: string; command: string } | null;
    /** The redis-core design's access path; null for the redis design. */
    core: ReportCoreAccess | null;
}

/** How the redis-core design answers a query: one call of its function library, the keys read, the round trips. */
export interface ReportCoreAccess {
    /** The library function a single server calls (`<database>_query`). */
    function: string;
    /** The FCALL's keys (the collection's record hash: the call runs in its slot). */
    keys: string[];
    /** The FCALL's arguments: the query name, then the parameters in order (written `$name`). */
    args: string[];
    /** The call as a redis-cli line. */
    command: string;
    /** The call on a cluster: the function that returns the answer's row keys, as a redis-cli line. */
    clusterCommand: string;
    /** The access path in the function. */
    access: string;
    /** The index keys (and the record hash) the function reads, as stored. */
    indexKeys: string[];
    /** The row keys the answer's rows are read from (HMGET of the projected fields). */
    rowKeys: string;
    /** The round trips on a single server and on a cluster. */
    server: string;
    cluster: string;
    /** The index slots a call reads: the partition's one, or the collection's only one. */
    slots: string;
    /** Why the plan reads every record, or null. */
    warning: string | null;
}

/**
 * Builds the report's view model for a design: the redis target's (in a dialect, with or without the database
 * prefix) or the redis-core target's. Pure.
 */
export function buildReportViewModel(
    input: DesignInput,
    options: ReportOptions = DEFAULT_REPORT_OPTIONS,
): ReportViewModel {
    const { kvlm } = input;
    // The access paths and keys of the design `kvmod generate --target <design>` writes (with the same options).
    const core = options.design === 'redis-core' ? buildCoreViewModel(kvlm) : undefined;
    const redis = core
        ? undefined
        : buildRedisViewModel(kvlm, { dialect: options.dialect, dbPrefix: options.dbPrefix });
    const redisQueries = new Map<string, { index: string; query: RedisQuery }>();
    for (const collection of redis?.collections ?? [])
        for (const query of collection.queries) redisQueries.set(query.name, { index: collection.index, query });
    const coreCollections = new Map((core?.collections ?? []).map((collection) => [collection.name, collection]));
    const keyPrefixes = new Map(
        (redis?.collections ?? []).map((collection) => [collection.name, collection.keyPrefix]),
    );
    const keyPattern = (collection: Collection, parts: string[]): string => {
        const coreCollection = coreCollections.get(collection.name);
        if (coreCollection) return coreCollection.key.pattern;
        const keyPrefix = keyPrefixes.get(collection.name)!;
        return collection.strategy.$type === 'NaturalKey'
            ? `${keyPrefix}${parts.map((p) => `<${p}>`).join(':')}`
            : `${keyPrefix}<counter>`;
    };
    return {
        target: 'report',
        database: kvlm.name,
        source: kvlm.source ?? null,
        pidm: input.pidm && input.pidm.length > 0 ? reportPidm(input.pidm) : null,
        writeMap: input.pidm && input.pidm.length > 0 ? reportWriteMap(input.pidm, kvlm) : null,
        entityStore:
            input.pidm && input.pidm.length > 0
                ? reportEntityStore(input.pidm, kvlm, (collection) => {
                      const counter =
                          coreCollections.get(collection)?.key.counterKey ??
                          redis?.collections.find((c) => c.name === collection)?.key.counterKey;
                      return counter ? rowMapKey(counter) : null;
                  })
                : null,
        cost:
            input.pidm && input.pidm.length > 0
                ? reportCost(input.pidm, input.transform?.options.threshold ?? kvlm.threshold ?? DEFAULT_THRESHOLD)
                : null,
        collections: kvlm.collections.map((collection) =>
            reportCollection(collection, keyPattern, coreCollections.get(collection.name)),
        ),
        merges: input.transform
            ? {
                  policy: input.transform.options.merge,
                  threshold: input.transform.options.threshold,
                  decisions: input.transform.decisions.map((d) => ({
                      left: d.left,
                      right: d.right,
                      common: d.common,
                      leftSize: d.leftSize,
                      rightSize: d.rightSize,
                      leftRatio: (d.common / d.leftSize).toFixed(2),
                      rightRatio: (d.common / d.rightSize).toFixed(2),
                      merged: d.result !== undefined,
                      outcome:
                          d.result !== undefined ? `merged into ${d.result}` : `refused: ${d.refusedBecause ?? ''}`,
                  })),
              }
            : null,
        queries: kvlm.collections.flatMap((collection) =>
            collection.queries.map((query) => {
                const access = redisQueries.get(query.name);
                const coreCollection = coreCollections.get(collection.name);
                const coreQuery = coreCollection?.queries.find((q) => q.name === query.name);
                if (core ? !coreQuery : !access)
                    throw new Error(`the ${options.design} design has no query ${query.name}`);
                return {
                    name: query.name,
                    collection: collection.name,
                    params: query.params.map((p) => ({ name: p.name, type: p.type })),
                    where: query.where ? printKvlmExpression(query.where) : null,
                    orderBy: query.sortKeys.map((k) => `${referencedName(k.field)} ${k.direction}`),
                    select: query.projections.map((p) => referencedName(p.field)),
                    access: access ? accessPath(access.index, access.query) : null,
                    core: core && coreCollection && coreQuery ? coreAccess(core, coreCollection, coreQuery) : null,
                };
            }),
        ),
        design: options.design,
        engine: redis
            ? `Redis with RediSearch (${redis.engine}), the redis target's ${options.dialect} dialect${options.dbPrefix ? ' with --db-prefix' : ''}`
            : `core Redis 7 or later without modules (a server or a cluster), the redis-core target's design: the function library ${core!.library}`,
    };
}

function reportPidm(models: readonly PidmModel[]): ReportPidm {
    const entities = models.flatMap((model) => model.entities);
    return {
        entities: entities.map((entity) => {
            const declared = entity.members.filter((m) => isAttribute(m) || isIdAttribute(m));
            const attributes = declared.map((member) => ({
                name: member.name,
                type: attributeType(member),
                key: isIdAttribute(member),
                note: isIdAttribute(member) && member.unique ? 'unique' : null,
            }));
            if (!identifierOf(entity))
                attributes.unshift({ name: SURROGATE_ID, type: 'text', key: true, note: 'surrogate' });
            return { name: entity.name, attributes };
        }),
        relationships: entities.flatMap((entity) =>
            entity.members.filter(isReference).map((reference) => {
                const kind = cardinalityKind(reference.cardinality);
                const lower = reference.cardinality?.lower;
                return {
                    from: entity.name,
                    to: reference.target.$refText,
                    reference: reference.name,
                    toCardinality:
                        kind === 'one'
                            ? 'exactly-one'
                            : kind === 'optional'
                              ? 'zero-or-one'
                              : lower !== undefined && lower >= 1
                                ? 'one-or-more'
                                : 'zero-or-more',
                    written: reference.cardinality?.$cstNode?.text ?? '[*]',
                    kind,
                } satisfies ReportPidm['relationships'][number];
            }),
        ),
    };
}

/** The write map as the report's tables show it. */
function reportWriteMap(pidm: readonly PidmModel[], kvlm: KvlmModel): ReportWriteMap[] {
    return buildWriteMap(pidm, kvlm).map((entity) => ({
        entity: entity.entity,
        summary: [
            ...entity.attributes.map((attribute) => {
                const rows = totalRows(attribute.copies.map((copy) => copy.rows));
                return {
                    member: attribute.identifier ? `${attribute.name} (identifier)` : attribute.name,
                    copies: attribute.copies.length,
                    rows,
                    keys: attribute.identifier
                        ? 'never updated: an identifier change is refused (`entity.identifier-change`)'
                        : `1 entity hash${rows === '0' ? '' : ` + ${rowsPhrase(rows)}`}`,
                };
            }),
            ...entity.references.map((reference) => {
                const rows = totalRows(reference.copies.map((copy) => copy.rows));
                return {
                    member: `${reference.name} → ${reference.target} (reference)`,
                    copies: reference.copies.length,
                    rows,
                    keys: `per target added or removed: 1 entity hash + 1 reverse hash${rows === '0' ? '' : ` + ${rowsPhrase(rows)}`}`,
                };
            }),
        ],
        lines: [
            ...entity.attributes.flatMap((attribute): ReportWriteMap['lines'] => {
                const member = attribute.identifier ? `${attribute.name} (identifier)` : attribute.name;
                if (attribute.copies.length === 0)
                    return [{ member, copy: null, roles: '', rows: 'none', count: 'none' }];
                return attribute.copies.map((copy) => ({
                    member,
                    copy: `${copy.collection}.${copy.field}`,
                    roles: [
                        ...copy.roles.filter((role) => role !== 'key'),
                        ...(copy.indexed ? ['indexed'] : []),
                        ...(copy.keyPart ? ['key part'] : []),
                    ].join(', '),
                    rows: copy.rows.text,
                    count: copy.rows.count,
                }));
            }),
            ...entity.references.flatMap((reference): ReportWriteMap['lines'] => {
                const member = `${reference.name} → ${reference.target} (reference)`;
                if (reference.copies.length === 0)
                    return [{ member, copy: null, roles: '', rows: 'none', count: 'none' }];
                return reference.copies.map((copy) => ({
                    member,
                    copy: `${copy.collection} include ${copy.node}`,
                    roles: 'include',
                    rows: copy.rows.text,
                    count: copy.rows.count,
                }));
            }),
        ],
    }));
}

/** `1 row`, `2 rows`, `(3 + Tags per Book) rows`. */
function rowsPhrase(rows: string): string {
    if (rows === '1') return '1 row';
    return /^\d+$/.test(rows) ? `${rows} rows` : `(${rows}) rows`;
}

/**
 * The entity store's keys: an entity hash per instance, a reverse hash per referenced instance and reference, and a
 * row map per counter-key collection (`rowMap`: its key).
 */
function reportEntityStore(
    pidm: readonly PidmModel[],
    kvlm: KvlmModel,
    rowMap: (collection: string) => string | null,
): ReportEntityStore {
    const entities = pidm.flatMap((model) => model.entities);
    const keys: ReportEntityStore['keys'] = [];
    for (const entity of entities) {
        const id = identifierOf(entity)?.name ?? SURROGATE_ID;
        const attributes = entity.members.filter((m) => isAttribute(m) || isIdAttribute(m)).map((m) => m.name);
        if (!identifierOf(entity)) attributes.unshift(SURROGATE_ID);
        const references = entity.members.filter(isReference);
        keys.push({
            key: entityKey(kvlm.name, entity.name, `<${id}>`),
            kind: 'hash',
            holds: [
                `the stored forms of ${attributes.join(', ')}`,
                ...references.map((reference) => `\`${referenceField(reference.name)}\``),
                `\`${VERSION_FIELD}\``,
            ].join(', '),
            count: `one per ${entity.name}`,
        });
    }
    for (const entity of entities)
        for (const reference of entity.members.filter(isReference)) {
            const target = entities.find((e) => e.name === reference.target.$refText);
            const targetId = (target && identifierOf(target)?.name) ?? SURROGATE_ID;
            const sourceId = identifierOf(entity)?.name ?? SURROGATE_ID;
            keys.push({
                key: reverseKey(kvlm.name, reference.target.$refText, `<${targetId}>`, entity.name, reference.name),
                kind: 'hash',
                holds: `the ${sourceId} of each ${entity.name} whose ${reference.name} names the ${reference.target.$refText} (value "")`,
                count: `one per ${reference.target.$refText} some ${entity.name}.${reference.name} names`,
            });
        }
    for (const collection of kvlm.collections) {
        const map = isNaturalKey(collection.strategy) ? null : rowMap(collection.name);
        if (map !== null)
            keys.push({
                key: map,
                kind: 'hash',
                holds: `the row map of \`${collection.name}\` (counter keys): per row, the stored identifiers of its objects (root first, \`:\`-joined) → its number; ≈50–90 bytes per row (Redis 7.0: 51 for one id, 74–87 for two or three)`,
                count: 'one',
            });
    }
    return { function: entityFunctionName(kvlm.name), reason: null, keys };
}

/**
 * A collection's section; `keyPattern` gives its rows' key as the design stores it (with the redis design's storage
 * signature), `core` the redis-core design's collection when the report describes that design.
 */
function reportCollection(
    collection: Collection,
    keyPattern: (collection: Collection, parts: string[]) => string,
    core: CoreCollection | undefined,
): ReportCollection {
    const nodes = [
        { id: 'n0', name: collection.root.name, entity: collection.root.entity, root: true },
        ...collection.nodes.map((node, index) => ({
            id: `n${index + 1}`,
            name: node.name,
            entity: node.entity,
            root: false,
        })),
    ];
    const idOf = new Map(nodes.map((node) => [node.name, node.id]));
    const edges = collection.nodes.map((node) => ({
        from: idOf.get(referencedName(node.parent)) ?? 'n0',
        to: idOf.get(node.name)!,
        reference: node.reference,
        cardinality: node.cardinality,
    }));
    const multiplying = collection.nodes.filter((node) => node.cardinality === 'many');
    const grain =
        multiplying.length === 0
            ? `one row per ${collection.root.entity}`
            : `one row per ${[collection.root.entity, ...multiplying.map((n) => `${n.entity} (${referencedName(n.parent)}.${n.reference})`)].join(' × ')}`;
    const strategy = collection.strategy;
    const parts =
        strategy.$type === 'NaturalKey' ? strategy.parts.map((p) => `${referencedName(p.node)}.${p.attribute}`) : [];
    return {
        name: collection.name,
        grain,
        nodes,
        edges,
        key: {
            field: collection.keyField,
            kind: strategy.$type === 'NaturalKey' ? 'natural' : 'counter',
            parts,
            pattern: keyPattern(collection, parts),
        },
        fields: collection.fields.map((field) => ({
            name: field.name,
            type: field.type,
            source: `${referencedName(field.node)}.${field.attribute}`,
            label: field.label ?? field.name,
            roles: field.roles.map((role) => `${role.kind}(${role.queries.map(referencedName).join(', ')})`),
            indexed: field.indexed,
        })),
        queries: collection.queries.map((query) => query.name),
        coreKeys: core ? coreKeys(core) : null,
    };
}

/** Every key the redis-core design stores for a collection, as its loader writes them. */
function coreKeys(collection: CoreCollection): NonNullable<ReportCollection['coreKeys']> {
    const keys = [
        { key: collection.key.pattern, kind: 'hash', holds: 'a row (its fields)' },
        { key: collection.recordPattern, kind: 'hash', holds: 'row key → the record the queries filter and sort on' },
        ...collection.indexes.map((index) => ({
            key: index.pattern,
            kind: index.kind === 'eq' ? 'set' : 'sorted set',
            holds:
                index.kind === 'eq'
                    ? `the row keys per normalised value of ${index.field}`
                    : index.kind === 'score'
                      ? `the row keys scored by ${index.field}`
                      : `the row keys after the sort form of ${index.field}`,
        })),
    ];
    if (collection.key.counterKey)
        keys.push(
            { key: collection.key.counterKey, kind: 'string', holds: 'the last counter value' },
            {
                key: rowMapKey(collection.key.counterKey),
                kind: 'hash',
                holds: 'the row map: per row, the stored identifiers of its objects → its number',
            },
        );
    return keys;
}

/** The redis-core design's access path of a query: the FCALL the generated calls make, the keys, the round trips. */
function coreAccess(design: CoreViewModel, collection: CoreCollection, query: CoreQuery): ReportCoreAccess {
    const keys = [collection.recordPattern];
    const args = [query.name, ...query.params.map((param) => `$${param.name}`)];
    const line = (fn: string) => formatCliCommand(['FCALL_RO', fn, String(keys.length), ...keys, ...args]);
    return {
        function: design.functions.query,
        keys,
        args,
        command: line(design.functions.query),
        clusterCommand: line(design.functions.queryKeys),
        access: query.cost.access,
        indexKeys: query.cost.keys,
        rowKeys: collection.key.pattern,
        server: query.cost.server,
        cluster: query.cost.cluster,
        slots: query.cost.slots,
        warning: query.warning,
    };
}

function accessPath(index: string, query: RedisQuery): ReportQuery['access'] {
    return {
        index,
        operation: query.kind === 'search' ? 'FT.SEARCH' : 'FT.AGGREGATE',
        filter: query.filter,
        sort:
            query.sortKeys.length === 0
                ? 'none (engine order)'
                : query.sortKeys.map((k) => `${k.property} ${k.direction}`).join(', '),
        command: formatRedisCommand(query.command),
    };
}

/** Re-exported for the schema test. */
export type { KvlmModel, ReportCost };
