/**
 * The Redis target: RediSearch index creation, row writes and served queries as redis-cli scripts, plus a
 * README of the design, in two dialects (RediSearch 2.x+ and the 1.2 module).
 */
import type { GenerationTarget } from '../generation-target.js';
import { redisHelpers } from './redis-helpers.js';
import { buildRedisViewModel, REDIS_DIALECTS, type RedisDialect, type RedisViewModel } from './redis-view-model.js';

/** The Redis generation target. */
export const redisTarget: GenerationTarget = {
    name: 'redis',
    description: 'RediSearch indexes, writes and queries as redis-cli scripts (dialects: redisearch2, redisearch1)',
    dialects: REDIS_DIALECTS,
    defaultDialect: 'redisearch2',
    buildViewModel(kvlm, options) {
        return buildRedisViewModel(kvlm, {
            dialect: options.dialect as RedisDialect | undefined,
            dbPrefix: options.dbPrefix === undefined ? undefined : Boolean(options.dbPrefix),
            limit: options.limit === undefined ? undefined : Number(options.limit),
        });
    },
    viewModelSchema: 'schemas/redis-view-model.schema.json',
    entries: [
        { template: 'indexes.redis.hbs' },
        { template: 'writes.redis.hbs' },
        { template: 'writes.lua.hbs', when: (vm) => (vm as RedisViewModel).counterInsertLua !== null },
        { template: 'queries.redis.hbs' },
        { template: 'README.md.hbs' },
    ],
    helpers: redisHelpers,
};
