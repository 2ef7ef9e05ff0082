/**
 * The two things the runtime does for a user, end to end: load instance data into an engine with the target's
 * design, and verify that the design answers every query like the oracle. They work through the engine runtime
 * the target declares (engine.ts, engine-registry.ts), never a particular database. The CLI commands are thin
 * shells over these.
 */
import { buildViewModel, targetOptions as resolveTargetOptions } from '../generation/generation-engine.js';
import { GenerationError } from '../generation/generation-errors.js';
import type { OptionDeclarations, RawOptionValues } from '../generation/generation-options.js';
import { DEFAULT_TARGET, getGenerationTarget, type RegisteredTarget } from '../generation/generation-targets.js';
import { KvmodError } from '../pipeline/errors.js';
import { checkedTarget } from '../pipeline/generate.js';
import { phaseDone } from '../pipeline/phase-timing.js';
import type {
    EngineRuntime,
    EngineSession,
    EntityLoadPlan,
    EntityLoadResult,
    SchemaOutcome,
    WriteResult,
} from './engine.js';
import { engineOf } from './engine-registry.js';
import { readInstanceDataAhead, type InstanceData, type InstanceIndex } from './instance-data.js';
import { streamModel } from './materialize.js';
import { loadRuntimeDesign, type DesignOptions, type RuntimeDesign } from './runtime-design.js';
import type { RuntimeModel } from './runtime-model.js';
import { assertServable } from './servable-values.js';
import { inMemoryExecutor, verifyQueries, type QueryExecutor, type QueryVerdict } from './verify.js';

/** What `load` and `verify` need to know. */
export interface RuntimeRunOptions extends DesignOptions {
    /** The model: `.pidm` (transformed with the merge/key options) or `.kvlm`. */
    modelPath: string;
    /** The instance data file. */
    dataPath: string;
    /**
     * The server's URL (`redis://host:port`, or `rediss://`, with `user:password@`), or the seed URLs of a
     * cluster for an engine that runs on one.
     */
    server: string | readonly string[];
    /** The target whose design is loaded (default: the default target). */
    target?: string;
    /** The target's options as given, exactly as `generate` takes them (those the server implies are detected when not given). */
    targetOptions?: RawOptionValues;
    /** Seconds to wait for the connection and for each reply (the engine's default when absent). */
    timeoutSeconds?: number;
    /** Replace schema objects (indexes) that differ from the design. */
    recreate?: boolean;
    /** Remove the entities the server holds that the data lacks (with their rows) instead of stopping. */
    sync?: boolean;
    /** Rows per pipelined batch. */
    batchSize?: number;
    /** Progress of row writing (awaited when it returns a promise). */
    onProgress?: (done: number, total: number) => void | Promise<void>;
}

/** What a load did. */
export interface LoadResult extends WriteResult {
    /** What happened to each schema object of the design (`index airports: created`). */
    schema: SchemaOutcome[];
    /** What happened to the entity store (absent when the design keeps none). */
    entities?: EntityLoadResult;
}

/** The result of a load. */
export interface LoadActionResult extends LoadResult {
    /** The target whose design was loaded. */
    target: string;
    /** The server as messages print it (its password hidden). */
    server: string;
    /** The engine variant the design is made for (`redisearch1`). */
    variant: string;
    /** How the variant was chosen: detected on the server, or given as a target option. */
    variantSource: 'detected' | 'given';
    /** The engine as people read it: `redisearch1, detected`. */
    engine: string;
    /** Things the user should know (a target option that contradicts the server). */
    warnings: string[];
}

interface Prepared<D> {
    target: string;
    design: RuntimeDesign;
    data: InstanceData;
    /** The data's objects by identity (`indexInstanceData`), made by its check. */
    index: InstanceIndex;
    session: EngineSession<D>;
    view: D;
    variant: string;
    variantSource: 'detected' | 'given';
    warnings: string[];
}

/** The target of a run (it must run on an engine) and the given options that its engine's design target declares. */
export function runTarget(name: string | undefined, given: RawOptionValues = {}): RegisteredTarget {
    const target = checkedTarget(name ?? DEFAULT_TARGET, given);
    // A client of another target's design on another engine (`--target typescript --design redis-core`) is loaded
    // and verified as that design.
    const option = target.options.find((o) => o.name === target.describesTargetOption);
    if (!option) return target;
    const described = getGenerationTarget(String(given[option.name] ?? option.declaration.default));
    return described.engine !== undefined && described.engine !== target.engine ? described : target;
}

/** Of the options given (checked against the named target), those the engine's design target declares. */
export function designOptions<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    given: RawOptionValues,
): RawOptionValues {
    return Object.fromEntries(Object.entries(given).filter(([name]) => name in engine.target.options));
}

/** The design `kvmod generate` makes with these options; one the target refuses is a KvmodError (`generation.failed`). */
export async function engineViewModel<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    design: RuntimeDesign,
    values: RawOptionValues,
): Promise<D> {
    try {
        return await buildViewModel(engine.target, design, values);
    } catch (error) {
        if (!(error instanceof GenerationError)) throw error;
        throw new KvmodError(`cannot generate the ${engine.target.name} design: ${error.message}`, {
            code: 'generation.failed',
            cause: error,
        });
    }
}

/**
 * `kvmod data check`'s design rules: refuses values the target's design cannot serve (a KvmodError naming
 * object, field and reason). Without a server the options are the given ones, else the declared defaults.
 */
export async function checkServableData(
    model: RuntimeModel,
    data: InstanceData,
    dataPath: string,
    target?: string,
    targetOptions?: RawOptionValues,
): Promise<void> {
    const named = runTarget(target, targetOptions);
    const engine = await engineOf(named);
    engine.use((typed) => {
        const values = resolveTargetOptions(typed.target, designOptions(typed, targetOptions ?? {}));
        assertServable(model, data, typed.textRules(values), dataPath);
    });
}

async function prepare<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    target: string,
    options: RuntimeRunOptions,
): Promise<Prepared<D>> {
    const given = designOptions(engine, options.targetOptions ?? {});
    phaseDone('start');
    // The data file is read while the model loads (its reading waits on the disk, the model's work on the CPU).
    // A model error is reported first, as without the overlap: a failure to read the data then goes unreported.
    const checkData = readInstanceDataAhead(options.dataPath);
    const design = await loadRuntimeDesign(options.modelPath, options);
    const { data, index } = await checkData(design.model);
    phaseDone('read and check data');
    const urls = typeof options.server === 'string' ? [options.server] : options.server;
    const session = await engine.connect({ urls, timeoutSeconds: options.timeoutSeconds });
    phaseDone('connect and probe');
    try {
        const warnings = [...design.warnings, ...session.contradictions(given), ...(session.probe.warnings ?? [])];
        const values = { ...session.probe.options, ...given };
        // The same design `kvmod generate` writes with these options (and the same schema check).
        const view = await engineViewModel(engine, design, values);
        const rules = engine.textRules(resolveTargetOptions(engine.target, values));
        assertServable(design.model, data, rules, options.dataPath); // before anything is written
        const implied = Object.keys(session.probe.options);
        const variantSource = implied.length > 0 && implied.every((name) => name in given) ? 'given' : 'detected';
        const variant = engine.variantOf(view);
        phaseDone('design + servable data');
        return { target, design, data, index, session, view, variant, variantSource, warnings };
    } catch (error) {
        await session.close();
        throw error;
    }
}

/** Prepares the design's schema and writes every row of every collection. */
async function load<D>(prepared: Prepared<D>, options: RuntimeRunOptions, fresh: boolean): Promise<LoadResult> {
    const { design, data, index, session, view } = prepared;
    // Rows are made batch by batch as they are written: the server indexes one batch while the next is made.
    // The data passed its check (readInstanceData): keys that name every step by its identifier need no check.
    const ids = (entity: string) => design.model.entities.get(entity)?.idName;
    const collections = streamModel(design.kvlm, data, index, ids);
    // The entity store is read and compared with the data before anything is written: a refusal writes nothing.
    let plan: EntityLoadPlan | undefined;
    const store = session.entities;
    const unsupported = store?.unsupported(view, design) ?? null;
    if (store !== undefined && unsupported === null)
        plan = await store.planLoad(view, design, data, { fresh, sync: options.sync ?? false });
    // A design that keeps no entity store says so among its own warnings; a server that cannot keep one is said here.
    else if (unsupported !== null && !prepared.warnings.some((warning) => warning.includes(unsupported)))
        prepared.warnings.push(`no entity store is written: ${unsupported}`);
    const schema = await session.prepareSchema(view, fresh ? 'fresh' : options.recreate ? 'recreate' : 'keep');
    phaseDone('bind rows + schema');
    const entities = await plan?.write({ batchSize: options.batchSize });
    phaseDone('write entities');
    const written = await session.writeRows(view, collections, {
        batchSize: options.batchSize,
        onProgress: options.onProgress,
    });
    phaseDone('write rows');
    return { schema, ...written, ...(entities !== undefined ? { entities } : {}) };
}

/** Runs `run` with the engine runtime of the target the options name, typed. */
export async function withEngine<R>(
    options: { target?: string; targetOptions?: RawOptionValues },
    run: <O extends OptionDeclarations, D>(engine: EngineRuntime<O, D>, target: string) => Promise<R>,
): Promise<R> {
    const target = runTarget(options.target, options.targetOptions);
    const engine = await engineOf(target);
    return engine.use((typed) => run(typed, target.name));
}

/** `kvmod load`: creates the design's schema (indexes) and writes every row of every collection. */
export function loadIntoEngine(options: RuntimeRunOptions): Promise<LoadActionResult> {
    return withEngine(options, async (engine, target) => {
        const prepared = await prepare(engine, target, options);
        try {
            const result = await load(prepared, options, false);
            return {
                ...result,
                target,
                server: prepared.session.probe.server,
                variant: prepared.variant,
                variantSource: prepared.variantSource,
                engine: `${prepared.variant}, ${prepared.variantSource}`,
                warnings: prepared.warnings,
            };
        } finally {
            await prepared.session.close();
        }
    });
}

/** Options of `verifyOnEngine`. */
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
    /** The server as messages print it (its password hidden). */
    server: string;
    /** The engine variant the design is made for (`redisearch1`). */
    variant: string;
    /** The engine as people read it: `redisearch1`. */
    engine: string;
    load: LoadResult;
    verdicts: QueryVerdict[];
    ok: boolean;
    /** Things the user should know (a target option that contradicts the server). */
    warnings: string[];
}

/**
 * `kvmod verify`: loads the data into a fresh schema (existing indexes of the design are dropped with their
 * rows, so the server holds exactly this data), runs every query's generated command for sampled parameter
 * sets and compares the replies with the oracle, in the engine's collation. A difference is attributed: when
 * the KVLM design in memory already differs, the transformation is at fault; otherwise the generated commands
 * or the engine.
 */
export function verifyOnEngine(options: VerifyActionOptions): Promise<VerifyActionResult> {
    return withEngine(options, async (engine, target) => {
        const prepared = await prepare(engine, target, options);
        try {
            const cut = prepared.session.probe.answersMayBeCut;
            if (cut !== undefined) {
                throw new KvmodError(`verify cannot trust an answer: ${cut}`, {
                    code: 'verify.answers-may-be-cut',
                });
            }
            const loaded = await load(prepared, options, true);
            const { design, data, index, session, view } = prepared;
            const execute: QueryExecutor = (collection, query, parameters) =>
                session.runQuery(view, collection.name, query.name, parameters);
            const settings = {
                samples: options.samples ?? 10,
                seed: options.seed ?? 1,
                collation: engine.collation,
                index,
            };
            const verdicts = await verifyQueries(design.pidm, design.kvlm, design.model, data, execute, settings);
            if (verdicts.some((v) => v.mismatches > 0)) {
                const inMemory = await verifyQueries(
                    design.pidm,
                    design.kvlm,
                    design.model,
                    data,
                    inMemoryExecutor(design.model, data, engine.collation, index),
                    settings,
                );
                for (const [position, verdict] of verdicts.entries()) {
                    if (verdict.mismatches === 0) continue;
                    verdict.firstDifference +=
                        inMemory[position].mismatches > 0
                            ? ' [the KVLM design already differs from the oracle: a transformation (merge/grain) fault]'
                            : ' [the KVLM design agrees with the oracle: the generated commands or the engine differ]';
                }
            }
            return {
                target,
                server: session.probe.server,
                variant: prepared.variant,
                engine: prepared.variant,
                load: loaded,
                verdicts,
                ok: verdicts.every((v) => v.mismatches === 0),
                warnings: prepared.warnings,
            };
        } finally {
            await prepared.session.close();
        }
    });
}
