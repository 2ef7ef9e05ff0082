/**
 * The RediSearch dialects the Redis target generates. A module without imports, so that the command-line parser
 * can name the choices without loading the generator (kvmod --help stays fast).
 */

/** The two RediSearch dialects we generate. */
export type RedisDialect = 'redisearch2' | 'redisearch1';

/** All dialects, the default first. */
export const REDIS_DIALECTS: readonly RedisDialect[] = ['redisearch2', 'redisearch1'];
