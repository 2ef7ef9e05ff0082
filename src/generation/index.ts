/**
 * Model-to-text generation: targets, the template engine, the one output writer, and the Redis target's
 * encoding and command binding (shared with the runtime).
 */
export * from './generation-errors.js';
export * from './generation-target.js';
export * from './generation-options.js';
export * from './generation-targets.js';
export * from './generation-templates.js';
export * from './generation-engine.js';
export * from './generation-writer.js';
export * from './generation-paths.js';
export * from './shared/redis-encoding.js';
export * from './shared/redis-escaping.js';
export * from './redis/redis-view-model.js';
export * from './redis/redis-commands.js';
export { redisTarget, redisTargetOptions } from './redis/redis-target.js';
export { POINTER_QUERY_LUA } from './redis/redis-dialect-strategy.js';
export * from './redis/redis-naming.js';
export * from './redis/redis-migration-plan.js';
