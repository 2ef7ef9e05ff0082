/**
 * The TypeScript target: a typed node-redis client of a design (`client.ts`, built with ts-morph) with its run-time
 * files. Of the Redis target's design (the default), in either RediSearch dialect: its design is the Redis target's
 * physical design plus TypeScript names, so it takes the Redis target's options (`--dialect`, `--db-prefix`,
 * `--limit`) and follows every change of it. Of the redis-core target's design with `--design redis-core` (as the
 * report target names the design it describes): queries through the function library's read function.
 */
import { choiceOption } from '../generation-options.js';
import type { GenerationTarget } from '../generation-target.js';
import { redisTarget, redisTargetOptions } from '../redis/redis-target.js';
import type { TsClientDesign } from './typescript-design.js';
import type { TsCoreClientDesign } from './typescript-core-design.js';
import type { TsDynamoClientDesign } from './typescript-dynamo-design.js';

/** The designs a client can run: the redis target's (RediSearch), the redis-core target's (core Redis), the dynamodb target's. */
export const CLIENT_DESIGNS = ['redis', 'redis-core', 'dynamodb'] as const;

/** The TypeScript target's option declarations: the design it is a client of, then the Redis design's own. */
export const typescriptTargetOptions = {
    design: choiceOption(
        CLIENT_DESIGNS,
        'redis',
        'The design the client runs: redis (RediSearch, as `--target redis` generates it, in the dialect of --dialect), redis-core (core Redis and its function library, as `--target redis-core` generates it; written to typescript/redis-core/) or dynamodb (AWS SDK v3, the tables of `--target dynamodb` with its default options; written to typescript/dynamodb/)',
        // The redis design's clients sit in one folder per dialect; the redis-core and dynamodb clients have no dialect.
        { folderValues: ['redis-core', 'dynamodb'] },
    ),
    ...redisTargetOptions,
};

/** What the emitter receives: a client of the Redis design, or of the redis-core design. */
export type TsTargetDesign = TsClientDesign | TsCoreClientDesign | TsDynamoClientDesign;

/** The TypeScript client generation target. */
export const typescriptTarget: GenerationTarget<typeof typescriptTargetOptions, TsTargetDesign> = {
    name: 'typescript',
    description:
        'A typed TypeScript client for node-redis: entity operations, paged queries with typed parameters and rows, index creation',
    // The client runs the Redis design on RediSearch by default: `load`, `verify` and `doctor` with this target (as a
    // project's config names it) work through that engine, which loads and queries the Redis design.
    engine: 'redisearch',
    // `generate --redis` asks the server through the engine of the design the client runs.
    describesTargetOption: 'design',
    options: typescriptTargetOptions,
    // Imported when it runs: the design reaches the language layer and the emitter loads ts-morph.
    // The entity operations need the entities (attributes, references): the source PIDM of a `.kvlm` input too, of
    // which the design reads nothing else (detached copies: the parsed PIDM is freed before the design is built).
    usesSourceModel: 'entities',
    buildDesign: async ({ kvlm, pidm }, { design, ...options }) =>
        design === 'dynamodb'
            ? (await import('./typescript-dynamo-design.js')).buildTsDynamoClientDesign(
                  kvlm,
                  options,
                  pidm === undefined ? {} : { pidm },
              )
            : design === 'redis-core'
              ? (await import('./typescript-core-design.js')).buildTsCoreClientDesign(
                    kvlm,
                    options,
                    pidm === undefined ? {} : { pidm },
                )
              : (await import('./typescript-design.js')).buildTsClientDesignFromKvlm(
                    kvlm,
                    options,
                    pidm === undefined ? {} : { pidm },
                ),
    // A design without entities: its client has no entity operations (the Redis design's own warning says so).
    warnings: (design) =>
        'dynamo' in design
            ? design.dynamo.warnings.map(({ code, query, message }) => ({ code, query, message }))
            : 'core' in design
              ? design.core.noEntityStore === null
                  ? []
                  : [
                        {
                            code: 'redis-core.no-entity-store',
                            message: `the design keeps no entities, so it has no entity operations (no entity functions in the client): ${design.core.noEntityStore}`,
                        },
                    ]
              : (redisTarget.warnings?.(design.redis) ?? []),
    codeEmitters: [
        {
            name: 'client',
            emit: async (design, _options, run) => {
                const { kvmodVersion } = await import('./typescript-version.js');
                if ('dynamo' in design)
                    return (await import('./typescript-dynamo-emitter.js')).emitDynamoTypeScriptClient(
                        design,
                        kvmodVersion(),
                    );
                if ('core' in design)
                    return (await import('./typescript-core-emitter.js')).emitCoreTypeScriptClient(
                        design,
                        kvmodVersion(),
                        { templatesDir: run.templatesDir },
                    );
                return (await import('./typescript-emitter.js')).emitTypeScriptClient(design, kvmodVersion());
            },
        },
    ],
};
