// Copied by kvmod from its src/generation/shared/redis-dialects.ts: the rules of the Redis design have one source. Do not edit.
/**
 * The RediSearch dialects the Redis target generates. A module without imports, so that the command-line parser
 * can name the choices without loading the generator (kvmod --help stays fast).
 */

/** The two RediSearch dialects we generate. */
export type RedisDialect = 'redisearch2' | 'redisearch1';

/** All dialects, the default first. */
export const REDIS_DIALECTS: readonly RedisDialect[] = ['redisearch2', 'redisearch1'];
