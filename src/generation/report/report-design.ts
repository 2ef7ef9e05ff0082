/**
 * The design report's view model: what the report templates show, built from the design input alone (the
 * KVLM, and the source PIDM and the transformation's decisions when known). The diagrams are described as
 * data (entities, relationships, nodes, edges); the templates write the Mermaid text, so a user can restyle
 * them, and the helpers in report-helpers.ts make every name and label safe for Mermaid.
 */
import type { Collection, KvlmModel, PidmModel } from '../../language/generated/ast.js';
import { isAttribute, isIdAttribute, isReference } from '../../language/generated/ast.js';
import { printKvlmExpression } from '../../language/kvlm/kvlm-printer.js';
import { referencedName } from '../../language/kvlm/kvlm-semantics.js';
import { attributeType, cardinalityKind, identifierOf, SURROGATE_ID } from '../../language/pidm/pidm-semantics.js';
import type { DesignInput } from '../generation-target.js';
import { formatRedisCommand } from '../redis/redis-commands.js';
import {
    buildRedisViewModel,
    DEFAULT_REDIS_OPTIONS,
    type RedisGenerationOptions,
    type RedisQuery,
} from '../redis/redis-view-model.js';

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

/** A served query and how the redis target's design (in the chosen dialect) answers it. */
export interface ReportQuery {
    name: string;
    collection: string;
    params: { name: string; type: string }[];
    where: string | null;
    orderBy: string[];
    select: string[];
    access: { index: string; operation: string; filter: string; sort: string; command: string };
}

/** Builds the report's view model for a dialect (and database prefix) of the redis target. Pure. */
export function buildReportViewModel(
    input: DesignInput,
    options: Pick<RedisGenerationOptions, 'dialect' | 'dbPrefix'> = DEFAULT_REDIS_OPTIONS,
): ReportViewModel {
    const { kvlm } = input;
    // The access paths and keys of the design `kvmod generate --target redis` writes with the same options.
    const redis = buildRedisViewModel(kvlm, { dialect: options.dialect, dbPrefix: options.dbPrefix });
    const redisQueries = new Map<string, { index: string; query: RedisQuery }>();
    for (const collection of redis.collections)
        for (const query of collection.queries) redisQueries.set(query.name, { index: collection.index, query });
    const keyPrefixes = new Map(redis.collections.map((collection) => [collection.name, collection.keyPrefix]));
    return {
        target: 'report',
        database: kvlm.name,
        source: kvlm.source ?? null,
        pidm: input.pidm && input.pidm.length > 0 ? reportPidm(input.pidm) : null,
        collections: kvlm.collections.map((collection) =>
            reportCollection(collection, keyPrefixes.get(collection.name)!),
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
                if (!access) throw new Error(`the Redis design has no query ${query.name}`);
                return {
                    name: query.name,
                    collection: collection.name,
                    params: query.params.map((p) => ({ name: p.name, type: p.type })),
                    where: query.where ? printKvlmExpression(query.where) : null,
                    orderBy: query.sortKeys.map((k) => `${referencedName(k.field)} ${k.direction}`),
                    select: query.projections.map((p) => referencedName(p.field)),
                    access: accessPath(access.index, access.query),
                };
            }),
        ),
        engine: `Redis with RediSearch (${redis.engine}), the redis target's ${options.dialect} dialect${options.dbPrefix ? ' with --db-prefix' : ''}`,
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

/** A collection's section; `keyPrefix` is its rows' key prefix as stored (with the storage signature). */
function reportCollection(collection: Collection, keyPrefix: string): ReportCollection {
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
            pattern:
                strategy.$type === 'NaturalKey'
                    ? `${keyPrefix}${parts.map((p) => `<${p}>`).join(':')}`
                    : `${keyPrefix}<counter>`,
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
export type { KvlmModel };
