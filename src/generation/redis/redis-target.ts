/**
 * The Redis target: RediSearch index creation, row writes and served queries as redis-cli scripts, plus a
 * README of the design, in two dialects (RediSearch 2.x+ and the 1.2 module). Its options are declared here
 * and nowhere else: the front ends derive `--dialect`, `--db-prefix` and `--limit` from them.
 */
import { booleanOption, choiceOption, integerOption } from '../generation-options.js';
import type { GenerationTarget } from '../generation-target.js';
import { redisHelpers } from './redis-helpers.js';
import { redisPartialRenderers } from './redis-partial-renderers.js';
import { REDIS_DIALECTS } from '../shared/redis-dialects.js';
import { DEFAULT_REDIS_OPTIONS, type RedisViewModel } from './redis-view-model-types.js';

/** The Redis target's option declarations. */
export const redisTargetOptions = {
    dialect: choiceOption(
        REDIS_DIALECTS,
        DEFAULT_REDIS_OPTIONS.dialect,
        'RediSearch dialect: redisearch2 (RediSearch 2.x+, Redis Stack, Redis 8) or redisearch1 (RediSearch 1.2); load and verify detect it from the server when not given',
        { outputFolder: true },
    ),
    dbPrefix: booleanOption(
        DEFAULT_REDIS_OPTIONS.dbPrefix,
        'Prefix index names and keys with the database name (<db>_<collection>)',
    ),
    limit: integerOption(
        DEFAULT_REDIS_OPTIONS.limit,
        "The page size: the default count of every query's LIMIT $offset $count",
        { min: 1, max: 1_000_000 },
    ),
};

/** The Redis generation target. */
export const redisTarget: GenerationTarget<typeof redisTargetOptions, RedisViewModel> = {
    name: 'redis',
    description: 'RediSearch indexes, writes and queries as redis-cli scripts, and a README of the design',
    engine: 'redisearch',
    options: redisTargetOptions,
    // The entity store is all the design reads of the PIDM.
    usesSourceModel: 'entities',
    // Imported when it runs: the design's entity store reads the PIDM through the language layer (Langium), which
    // `kvmod --help` must not load.
    buildDesign: async ({ kvlm, pidm }, options) =>
        (await import('./redis-view-model.js')).buildRedisViewModel(kvlm, options, { pidm }),
    templates: {
        viewModelSchema: 'schemas/redis-view-model.schema.json',
        entries: [
            { template: 'indexes.redis.hbs' },
            { template: 'writes.redis.hbs' },
            { template: 'writes.lua.hbs', when: (design) => design.counterInsertLua !== null },
            { template: 'queries.redis.hbs' },
            { template: 'entities.lua.hbs', when: (design) => design.entityStore !== null },
            { template: 'README.md.hbs' },
        ],
        helpers: redisHelpers,
        partialRenderers: redisPartialRenderers,
    },
    warnings: (design) =>
        design.noEntityStore === null
            ? []
            : [
                  {
                      code: 'redis.no-entity-store',
                      message: `the design keeps no entities, so it has no entity operations (no entities.lua, no entity functions in the client): ${design.noEntityStore}`,
                  },
              ],
    describeCollection(design, name) {
        const collection = design.collections.find((c) => c.name === name);
        return collection
            ? `Redis: index \`${collection.index}\`, keys \`${collection.keyPrefix}…\` (${design.dialect})`
            : undefined;
    },
};
