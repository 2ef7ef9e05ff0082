/**
 * The two things the runtime does for a user, end to end: load instance data into Redis with the generated
 * design, and verify that the design answers every query like the oracle. The CLI commands are thin shells
 * over these.
 */
import type { RedisDialect, RedisViewModel } from '../generation/redis/redis-view-model.js';
import { formatCliCommand } from '../generation/redis/redis-escaping.js';
import { redisTarget } from '../generation/redis/redis-target.js';
import { buildViewModel, targetOptions as resolveTargetOptions } from '../generation/generation-engine.js';
import { GenerationError } from '../generation/generation-errors.js';
import type { RawOptionValues } from '../generation/generation-options.js';
import { DEFAULT_TARGET, generationTargets } from '../generation/generation-targets.js';
import { KvmodError } from '../pipeline/errors.js';
import { checkedTarget } from '../pipeline/generate.js';
import { indexInstanceData, readInstanceData, type InstanceData } from './instance-data.js';
import type { RuntimeModel } from './runtime-model.js';
import { materializeModel } from './materialize.js';
import { loadIntoRedis, type LoadResult } from './redis-loader.js';
import { connectRedis, detectDialect, RedisConnectionLost, type RedisLink } from './redis-link.js';
import { runEngineQuery } from './redis-query.js';
import { loadRuntimeDesign, type DesignOptions, type RuntimeDesign } from './runtime-design.js';
import { assertServable } from './servable-values.js';
import { inMemoryExecutor, verifyQueries, type QueryExecutor, type QueryVerdict } from './verify.js';

/** What `load` and `verify` need to know. */
export interface RuntimeRunOptions extends DesignOptions {
    /** The model: `.pidm` (transformed with the merge/key options) or `.kvlm`. */
    modelPath: string;
    /** The instance data file. */
    dataPath: string;
    /** `redis://host:port` (or `rediss://`, with `user:password@`). */
    redisUrl: string;
    /** The target whose design is loaded (default: the default target). */
    target?: string;
    /** The target's options as given, exactly as `generate` takes them (a dialect not given is detected). */
    targetOptions?: RawOptionValues;
    /** Seconds to wait for the connection and for each reply (default `DEFAULT_REDIS_TIMEOUT_SECONDS`). */
    timeoutSeconds?: number;
    /** Replace indexes whose schema differs. */
    recreate?: boolean;
    /** Rows per pipelined batch. */
    batchSize?: number;
    /** Progress of row writing (awaited when it returns a promise). */
    onProgress?: (done: number, total: number) => void | Promise<void>;
}

/** The result of a load. */
export interface LoadActionResult extends LoadResult {
    dialect: RedisDialect;
    /** How the dialect was chosen. */
    dialectSource: 'detected' | 'given';
    /** The engine as people read it: `redisearch1, detected`. */
    engine: string;
    /** Things the user should know (a dialect that does not match the server). */
    warnings: string[];
}

interface Prepared {
    target: string;
    design: RuntimeDesign;
    data: InstanceData;
    link: RedisLink;
    view: RedisViewModel;
    dialect: RedisDialect;
    dialectSource: 'detected' | 'given';
    warnings: string[];
}

/** The target of a run: one that runs on an engine the runtime drives (today RediSearch). */
function runtimeTarget(
    name: string | undefined,
    given: RawOptionValues = {},
): { name: string; given: RawOptionValues } {
    const target = checkedTarget(name ?? DEFAULT_TARGET, given);
    if (target.engine !== redisTarget.engine) {
        const runnable = [...generationTargets.values()].filter((t) => t.engine === redisTarget.engine);
        throw new KvmodError(
            `target ${target.name} runs on no engine kvmod drives; load and verify work with: ${runnable.map((t) => t.name).join(', ')}`,
            { code: 'cli.option' },
        );
    }
    return { name: target.name, given };
}

/**
 * `kvmod data check`'s design rules: refuses values the target's design cannot serve (a KvmodError naming
 * object, field and reason). Without a server the dialect is the given one, else the declared default.
 */
export function checkServableData(
    model: RuntimeModel,
    data: InstanceData,
    dataPath: string,
    target?: string,
    targetOptions?: RawOptionValues,
): void {
    const { given } = runtimeTarget(target, targetOptions);
    const { dialect } = resolveTargetOptions(redisTarget, given);
    assertServable(model, data, dialect, dataPath);
}

async function prepare(options: RuntimeRunOptions): Promise<Prepared> {
    const { name: target, given } = runtimeTarget(options.target, options.targetOptions);
    const design = await loadRuntimeDesign(options.modelPath, options);
    const data = await readInstanceData(options.dataPath, design.model);
    const link = await connectRedis(options.redisUrl, { timeoutSeconds: options.timeoutSeconds });
    try {
        const detected = await detectDialect(link);
        const givenDialect = given.dialect === undefined ? undefined : String(given.dialect);
        const warnings: string[] = [...design.warnings];
        if (givenDialect !== undefined && givenDialect !== detected.dialect) {
            // e.g. 2.x commands on a 1.2 server: FT.CREATE … PREFIX is accepted and ignored, nothing gets indexed.
            warnings.push(
                `${link.url} runs ${detected.dialect} (module version ${detected.version}), but --dialect ${givenDialect} was given: its commands may be accepted and do nothing`,
            );
        }
        let view: RedisViewModel;
        try {
            // The same design `kvmod generate` writes with these options (and the same schema check).
            view = await buildViewModel(redisTarget, design, { dialect: detected.dialect, ...given });
        } catch (error) {
            if (!(error instanceof GenerationError)) throw error;
            throw new KvmodError(`cannot generate the Redis design: ${error.message}`, {
                code: 'generation.failed',
                cause: error,
            });
        }
        assertServable(design.model, data, view.dialect, options.dataPath); // before anything is written
        const dialectSource = givenDialect !== undefined ? 'given' : 'detected';
        return { target, design, data, link, view, dialect: view.dialect, dialectSource, warnings };
    } catch (error) {
        await link.close();
        if (error instanceof RedisConnectionLost)
            throw new KvmodError(error.message, { code: error.code, cause: error });
        throw error;
    }
}

async function load(prepared: Prepared, options: RuntimeRunOptions, fresh: boolean): Promise<LoadResult> {
    const collections = materializeModel(
        prepared.design.kvlm,
        prepared.data,
        indexInstanceData(prepared.design.model, prepared.data),
    );
    return loadIntoRedis(prepared.link, prepared.view, collections, {
        recreate: options.recreate,
        fresh,
        batchSize: options.batchSize,
        onProgress: options.onProgress,
    });
}

/** `kvmod load`: creates the design's indexes and writes every row of every collection. */
export async function loadDataIntoRedis(options: RuntimeRunOptions): Promise<LoadActionResult> {
    const prepared = await prepare(options);
    try {
        const result = await load(prepared, options, false);
        return {
            ...result,
            dialect: prepared.dialect,
            dialectSource: prepared.dialectSource,
            engine: `${prepared.dialect}, ${prepared.dialectSource}`,
            warnings: prepared.warnings,
        };
    } finally {
        await prepared.link.close();
    }
}

/** Options of `verifyOnRedis`. */
export interface VerifyActionOptions extends RuntimeRunOptions {
    /** Parameter sets per query drawn from the data (default 10). */
    samples?: number;
    /** Seed of the sampling (default 1). */
    seed?: number;
}

/** The result of a verification. */
export interface VerifyActionResult {
    /** The target whose design was verified. */
    target: string;
    dialect: RedisDialect;
    /** The engine as people read it: `redisearch1`. */
    engine: string;
    load: LoadResult;
    verdicts: QueryVerdict[];
    ok: boolean;
    /** Things the user should know (a dialect that does not match the server). */
    warnings: string[];
}

/**
 * `kvmod verify`: loads the data into fresh indexes (existing indexes of the design are dropped with their
 * rows, so the server holds exactly this data), runs every query's generated command for sampled
 * parameter sets and compares the replies with the oracle. A difference is attributed: when the KVLM design
 * in memory already differs, the transformation is at fault; otherwise the Redis commands or the engine.
 */
export async function verifyOnRedis(options: VerifyActionOptions): Promise<VerifyActionResult> {
    const prepared = await prepare(options);
    try {
        const loaded = await load(prepared, options, true);
        const { design, data, link, view } = prepared;
        const engine: QueryExecutor = async (collection, query, parameters) => {
            const redisQuery = view.collections
                .find((c) => c.name === collection.name)
                ?.queries.find((q) => q.name === query.name);
            if (!redisQuery) throw new Error(`the Redis design has no query ${query.name} in ${collection.name}`);
            try {
                const answer = await runEngineQuery(link, redisQuery, parameters);
                return { rows: answer.rows, command: formatCliCommand(answer.argv) };
            } catch (error) {
                if (error instanceof RedisConnectionLost)
                    throw new KvmodError(error.message, { code: error.code, cause: error });
                throw error;
            }
        };
        const settings = { samples: options.samples ?? 10, seed: options.seed ?? 1 };
        const verdicts = await verifyQueries(design.pidm, design.kvlm, design.model, data, engine, settings);
        if (verdicts.some((v) => v.mismatches > 0)) {
            const inMemory = await verifyQueries(
                design.pidm,
                design.kvlm,
                design.model,
                data,
                inMemoryExecutor(design.model, data),
                settings,
            );
            for (const [position, verdict] of verdicts.entries()) {
                if (verdict.mismatches === 0) continue;
                verdict.firstDifference +=
                    inMemory[position].mismatches > 0
                        ? ' [the KVLM design already differs from the oracle: a transformation (merge/grain) fault]'
                        : ' [the KVLM design agrees with the oracle: the Redis commands or the engine differ]';
            }
        }
        return {
            target: prepared.target,
            dialect: prepared.dialect,
            engine: prepared.dialect,
            load: loaded,
            verdicts,
            ok: verdicts.every((v) => v.mismatches === 0),
            warnings: prepared.warnings,
        };
    } finally {
        await prepared.link.close();
    }
}
