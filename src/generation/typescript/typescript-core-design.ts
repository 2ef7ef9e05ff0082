/**
 * The design of the TypeScript client of the redis-core design: the redis-core target's view model (its library's
 * read function, each collection's record key, each query's parameters and projections) plus the TypeScript names
 * the application sees. The names and types are those of the RediSearch client of the same model (built by
 * `buildTsClientDesign`), so an application reads the same `<Query>Params` and `<Query>Result` types whichever
 * design it runs on. Pure.
 */
import type { KvlmModel, PidmModel } from '../../language/generated/ast.js';
import { GenerationError } from '../generation-errors.js';
import {
    buildCoreViewModel,
    type CoreCollection,
    type CoreQuery,
    type CoreViewModel,
} from '../redis-core/redis-core-design.js';
import { coreClusterDesign } from '../redis-core/redis-core-cluster-design.js';
import { buildRedisViewModel, type RedisGenerationOptions } from '../redis/redis-view-model.js';
import type { CoreClusterSteps } from './client-runtime/kvmod-core-client.js';
import { buildTsClientDesign, CLIENT_FIXED_NAMES, type TsProperty } from './typescript-design.js';
import { buildTsEntityStore, type TsEntityStore } from './typescript-entities.js';
import { NameScope } from './typescript-names.js';

/** A served query of the client. */
export interface TsCoreQuery {
    /** The redis-core design's query. */
    core: CoreQuery;
    /** The collection it reads. */
    collection: CoreCollection;
    /** The safe spelling of the query name. */
    id: string;
    /** Type and function names (as the RediSearch client names them). */
    names: { params: string; result: string; run: string; pages: string };
    /** Its parameters, in the order the read function takes them. */
    params: TsProperty[];
    /** Its result columns, in the order the read function returns them (`param` is the hash field). */
    columns: TsProperty[];
}

/** What the TypeScript target's emitter receives for `--design redis-core`. */
export interface TsCoreClientDesign {
    /** The redis-core design it is built from. */
    core: CoreViewModel;
    /** The served queries, in model order. */
    queries: TsCoreQuery[];
    /** The default page size (`--limit`). */
    limit: number;
    /**
     * The entities and their operations (the RediSearch client's, over the redis-core design's entity store, whose
     * Function lives in `library.lua`); null when the design keeps no entities.
     */
    entities: TsEntityStore | null;
    /** What the entity operations need on a Redis Cluster besides the entity store (null without entities). */
    cluster: CoreClusterSteps | null;
}

/** Names the generated module declares or exports besides those the RediSearch client's already has. */
export const CORE_CLIENT_FIXED_NAMES = [
    'core',
    'LIBRARY',
    'LIBRARY_SOURCE',
    'loadLibrary',
    'FunctionsMissingError',
    'MissingLibraryError',
    'connectCluster',
    'CLUSTER_STEPS',
] as const;

/**
 * Builds the client's design from the redis-core view model (with its entity store when the source PIDM is given)
 * and the RediSearch client's names of the same model.
 */
export function buildTsCoreClientDesign(
    kvlm: KvlmModel,
    options: Partial<RedisGenerationOptions>,
    source: { pidm?: readonly PidmModel[] } = {},
): TsCoreClientDesign {
    const core = buildCoreViewModel(kvlm, source.pidm);
    const named = buildTsClientDesign(buildRedisViewModel(kvlm, options));
    const fixed = new Set<string>(CORE_CLIENT_FIXED_NAMES);
    const queries = core.collections.flatMap((collection) =>
        collection.queries.map((query): TsCoreQuery => {
            const ts = named.queries.find((q) => q.redis.name === query.name);
            if (!ts) throw new Error(`query ${query.name}: the RediSearch client's design does not name it`);
            for (const name of Object.values(ts.names))
                if (fixed.has(name))
                    throw new GenerationError(
                        `the function of query ${query.name} and the client's own ${name} would both be named ${name} in the TypeScript client (module scope); rename the query in the model`,
                        { code: 'generation.name-collision' },
                    );
            const params = query.params.map((param) => {
                const property = ts.params.find((p) => p.param === param.name);
                if (!property) throw new Error(`query ${query.name}: no property for parameter ${param.name}`);
                return property;
            });
            if (ts.columns.length !== query.projections.length)
                throw new Error(`query ${query.name}: the two designs project different columns`);
            const columns = ts.columns.map((column, position) => ({
                ...column,
                param: query.projections[position]!.field,
            }));
            return { core: query, collection, id: ts.id, names: ts.names, params, columns };
        }),
    );
    // The entity operations share the module scope with the queries and the client's own names.
    const top = new NameScope('module scope', [...CLIENT_FIXED_NAMES, ...CORE_CLIENT_FIXED_NAMES]);
    for (const query of queries) {
        const what = `query ${query.core.name}`;
        top.claim(query.names.params, `the parameter type of ${what}`);
        top.claim(query.names.result, `the result type of ${what}`);
        top.claim(query.names.run, `the function of ${what}`);
        top.claim(query.names.pages, `the page iterator of ${what}`);
    }
    const entities =
        core.entityStore === null ? null : buildTsEntityStore({ schema: core.entityStore.schema, library: null }, top);
    let cluster: CoreClusterSteps | null = null;
    if (core.entityStore !== null) {
        const { collections, functions } = coreClusterDesign(kvlm, core);
        cluster = { collections, functions };
    }
    return { core, queries, limit: named.redis.options.limit, entities, cluster };
}
