/**
 * The TypeScript target: a typed node-redis client of the design (`client.ts`, built with ts-morph) with its run-time
 * files, in either RediSearch dialect. Its design is the Redis target's physical design plus TypeScript names, so
 * it takes the Redis target's options (`--dialect`, `--db-prefix`, `--limit`) and follows every change of it.
 */
import type { GenerationTarget } from '../generation-target.js';
import { redisTarget, redisTargetOptions } from '../redis/redis-target.js';
import type { TsClientDesign } from './typescript-design.js';

/** The TypeScript target's option declarations: the Redis design's own. */
export const typescriptTargetOptions = redisTargetOptions;

/** The TypeScript client generation target. */
export const typescriptTarget: GenerationTarget<typeof typescriptTargetOptions, TsClientDesign> = {
    name: 'typescript',
    description:
        'A typed TypeScript client for node-redis: entity operations, paged queries with typed parameters and rows, index creation',
    // The client runs the Redis design on RediSearch: `load`, `verify` and `doctor` with this target (as a
    // project's config names it) work through that engine, which loads and queries the Redis design.
    engine: 'redisearch',
    options: typescriptTargetOptions,
    // Imported when it runs: the design reaches the language layer and the emitter loads ts-morph.
    // The entity operations need the entities (attributes, references): the source PIDM of a `.kvlm` input too.
    usesSourceModel: true,
    buildDesign: async ({ kvlm, pidm }, options) =>
        (await import('./typescript-design.js')).buildTsClientDesignFromKvlm(
            kvlm,
            options,
            pidm === undefined ? {} : { pidm },
        ),
    // The Redis design's warnings (a design without entities: its client has no entity operations).
    warnings: (design) => redisTarget.warnings?.(design.redis) ?? [],
    codeEmitters: [
        {
            name: 'client',
            emit: async (design) => {
                const [{ emitTypeScriptClient }, { kvmodVersion }] = await Promise.all([
                    import('./typescript-emitter.js'),
                    import('./typescript-version.js'),
                ]);
                return emitTypeScriptClient(design, kvmodVersion());
            },
        },
    ],
};
