/**
 * The Redis view model: everything the Redis templates see, built from a KVLM model alone (templates never see the
 * Langium AST). Its types are in `redis-view-model-types.ts`, the collections and their commands are built by
 * `redis-collection-builder.ts` and `redis-query-builder.ts`, and what differs between RediSearch 1.2 and 2.x is one
 * strategy object per dialect (`redis-dialect-strategy.ts`).
 */
import type { KvlmModel, PidmModel } from '../../language/generated/ast.js';
import { redisEntityStore } from '../entities/entity-store-design.js';
import { GenerationError } from '../generation-errors.js';
import { buildCollection, SharedValues } from './redis-collection-builder.js';
import { REDIS_DIALECT_STRATEGIES } from './redis-dialect-strategy.js';
import { REDIS_DIALECTS } from '../shared/redis-dialects.js';
import { TAG_SEPARATOR } from '../shared/redis-text-rules.js';
import { DEFAULT_REDIS_OPTIONS, type RedisGenerationOptions, type RedisViewModel } from './redis-view-model-types.js';

export { REDIS_DIALECTS, type RedisDialect } from '../shared/redis-dialects.js';
export { TAG_SEPARATOR } from '../shared/redis-text-rules.js';
export * from './redis-view-model-types.js';

/**
 * Builds the view model of a KVLM model for one dialect. Throws `GenerationError` for what RediSearch cannot express.
 * With the source PIDM model(s), the design keeps the entities too (`entityStore`).
 */
export function buildRedisViewModel(
    model: KvlmModel,
    options: Partial<RedisGenerationOptions> = {},
    source: { pidm?: readonly PidmModel[] } = {},
): RedisViewModel {
    const opts: RedisGenerationOptions = { ...DEFAULT_REDIS_OPTIONS, ...definedOnly(options) };
    if (!REDIS_DIALECTS.includes(opts.dialect)) {
        throw new GenerationError(`unknown Redis dialect '${opts.dialect}' (known: ${REDIS_DIALECTS.join(', ')})`, {
            code: 'generation.option',
        });
    }
    if (!Number.isInteger(opts.limit) || opts.limit < 1 || opts.limit > 1_000_000) {
        throw new GenerationError(`the query limit must be an integer from 1 to 1000000, got ${opts.limit}`, {
            code: 'generation.option',
        });
    }
    const strategy = REDIS_DIALECT_STRATEGIES[opts.dialect];
    const shared = new SharedValues();
    const collections = model.collections.map((collection) =>
        buildCollection(model, collection, opts, strategy, shared),
    );
    const entities = redisEntityStore(model, source.pidm, opts.dialect, collections);
    return {
        target: 'redis',
        dialect: opts.dialect,
        engine: strategy.engine,
        legacy: strategy.legacy,
        database: model.name,
        source: model.source ?? null,
        options: { dbPrefix: opts.dbPrefix, limit: opts.limit },
        tagSeparator: TAG_SEPARATOR,
        counterInsertLua: collections.some((c) => c.key.kind === 'counter') ? strategy.counterInsertLua : null,
        collections,
        entityStore: entities.store,
        noEntityStore: entities.missing,
    };
}

function definedOnly<T extends object>(value: T): Partial<T> {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
