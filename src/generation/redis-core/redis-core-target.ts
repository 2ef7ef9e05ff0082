/**
 * The redis-core target: the design on core Redis alone (a hash per row, sets and sorted sets per served query, one
 * Redis Functions library for every write and read), for servers without the search module and for Redis Cluster
 * (hash tags keep a collection's indexes in one slot, rows spread). Template-only output: the library, its calls as
 * redis-cli lines, and a README of the design. No options.
 */
import type { GenerationTarget } from '../generation-target.js';
import type { CoreViewModel } from './redis-core-design.js';
import { redisCoreHelpers } from './redis-core-helpers.js';

/** The redis-core target's option declarations: none. */
export const redisCoreTargetOptions = {};

/** The core-Redis generation target. */
export const redisCoreTarget: GenerationTarget<typeof redisCoreTargetOptions, CoreViewModel> = {
    name: 'redis-core',
    description:
        'Core Redis without modules: hashes, set and sorted-set indexes, a Redis Functions library; runs on Redis Cluster',
    engine: 'redis-core',
    options: redisCoreTargetOptions,
    // Imported when it runs: the design code reaches the language layer, which `kvmod --help` must not load.
    // The entity store is all the design reads of the PIDM.
    usesSourceModel: 'entities',
    buildDesign: async ({ kvlm, pidm }) => (await import('./redis-core-design.js')).buildCoreViewModel(kvlm, pidm),
    templates: {
        viewModelSchema: 'schemas/redis-core-view-model.schema.json',
        entries: [{ template: 'library.lua.hbs' }, { template: 'calls.redis.hbs' }, { template: 'README.md.hbs' }],
        helpers: redisCoreHelpers,
    },
    warnings: (design) => [
        ...design.warnings.map((warning) => ({
            code: 'redis-core.full-scan',
            query: warning.query,
            message: `query ${warning.query} cannot be served without a full scan on core Redis: ${warning.reason}; instead, ${warning.instead}`,
        })),
        ...(design.noEntityStore === null
            ? []
            : [
                  {
                      code: 'redis-core.no-entity-store',
                      message: `the design keeps no entities, so it has no entity operations (no entity function in library.lua): ${design.noEntityStore}`,
                  },
              ]),
    ],
};
