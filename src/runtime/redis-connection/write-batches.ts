/**
 * How the Redis engines' row writers pipeline their batches: the RediSearch loader (redisearch/redis-loader.ts) and
 * the redis-core writer (redis-core/core-engine.ts) send batches ahead of the replies alike.
 */

/**
 * Batches sent and not yet acknowledged at most. Two (one the server indexes, one the client sends meanwhile) left
 * the server idle whenever the client paused for longer than a batch takes the server (finding a collection's
 * bindings, a garbage collection): ~0.08 s of a 1 s write of the airflights data at scale 10,000 on RediSearch 1.2.
 * Four left ~0.035 s; more saved nothing and took more client time (bigger buffers).
 */
export const BATCHES_IN_FLIGHT = 4;

/**
 * Rows of the load's first batch at most: the server starts indexing while the client makes the next (a full first
 * batch of 2000 rows kept it idle for the ~5 ms of encoding them).
 */
export const FIRST_BATCH_ROWS = 250;
