/**
 * How the Redis engines' row writers pipeline their batches: the RediSearch loader (redisearch/redis-loader.ts) and
 * the redis-core writer (redis-core/core-engine.ts) send batches ahead of the replies alike.
 */

/**
 * Batches sent and not yet acknowledged at most. Two (one the server indexes, one the client sends meanwhile) left
 * the server idle whenever the client paused for longer than a batch takes the server (finding a collection's
 * bindings, a garbage collection). Four hide most of those pauses; more save nothing and cost client time (bigger
 * buffers). Figures: docs/benchmarks.md.
 */
export const BATCHES_IN_FLIGHT = 4;

/**
 * Rows of the load's first batch at most: the server starts indexing while the client makes the next (a full first
 * batch would keep it idle while the client encodes it).
 */
export const FIRST_BATCH_ROWS = 250;
