/**
 * The Functions library that holds a design's entity Function, as `kvmod load` and the client's setup load it
 * (`FUNCTION LOAD REPLACE <text>`): for the redis target its own `entities.lua`, for redis-core the design's whole
 * `library.lua` (the entity functions call the library's row and index writers, so they live in it).
 */
import { renderTemplate } from '../generation-engine.js';
import type { CoreViewModel } from '../redis-core/redis-core-view-model.js';
import { redisCoreTarget } from '../redis-core/redis-core-target.js';
import type { RedisViewModel } from '../redis/redis-view-model-types.js';

/** The library text to load for a design's entity operations, or null when the design keeps no entities. */
export async function entityLibrary(design: RedisViewModel | CoreViewModel): Promise<string | null> {
    if (design.entityStore === null) return null;
    if (design.target === 'redis') return design.entityStore.library;
    const library = await renderTemplate(redisCoreTarget, design, 'library.lua');
    if (library === undefined) throw new Error('the redis-core templates wrote no library.lua');
    return library;
}
