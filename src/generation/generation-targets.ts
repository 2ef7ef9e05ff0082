/**
 * The registry of generation targets: the CLI, the extension and the runtime look targets up by name here.
 */
import { GenerationError } from './generation-errors.js';
import type { GenerationTarget } from './generation-target.js';
import { redisTarget } from './redis/redis-target.js';

/** All targets, by name. */
export const generationTargets: ReadonlyMap<string, GenerationTarget> = new Map([[redisTarget.name, redisTarget]]);

/** The target of that name; a `GenerationError` listing the known ones otherwise. */
export function getGenerationTarget(name: string): GenerationTarget {
    const target = generationTargets.get(name);
    if (!target) {
        throw new GenerationError(`unknown target '${name}' (known: ${[...generationTargets.keys()].join(', ')})`, {
            code: 'generation.target',
        });
    }
    return target;
}
