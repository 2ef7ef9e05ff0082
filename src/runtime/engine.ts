/**
 * The engine contract: what `load`, `verify`, `data check`, `doctor` and `conformance` need of the database a
 * target's design runs on — connect and probe it, prepare the design's schema, write rows, run a served query,
 * and the engine's collation (what equality and order mean), which the oracle takes as a parameter. Every
 * target that runs somewhere has one engine runtime (src/runtime/<engine>/), found by the engine name the
 * target declares (`GenerationTarget.engine`) in engine-registry.ts. The generic runtime (runtime-actions,
 * verify, the oracle) knows engines only through this module.
 */
import type { GenerationTarget } from '../generation/generation-target.js';
import type { OptionDeclarations, OptionValues, RawOptionValues } from '../generation/generation-options.js';
import { KvmodError } from '../pipeline/errors.js';
import type { Collation } from './collation.js';
import type { CollectionRows } from './materialize.js';
import type { ParameterValues } from './oracle.js';
import type { TextRules } from './servable-values.js';
import type { ExecutedQuery } from './verify.js';
import type { InstanceData } from './instance-data.js';
import type { RuntimeDesign } from './runtime-design.js';
import type { WorkloadReport, WorkloadRunSettings } from './entities/workload.js';

/** Where the engine is: one server, or the seed nodes of a cluster. */
export interface EngineConnection {
    /** The server's URL, or several seed URLs of one cluster (any of them leads to the others). */
    urls: readonly string[];
    /** Seconds to wait for the connection and for each reply (the engine's default when absent). */
    timeoutSeconds?: number;
}

/** What a server is, as the probe found it on connecting. */
export interface EngineProbe {
    /** The server as messages print it (passwords hidden; the seeds of a cluster joined by commas). */
    server: string;
    /** The server's product (`Redis`). */
    product: string;
    /** The server's version (`7.0.15`), `unknown` when it does not say. */
    serverVersion: string;
    /** The module that serves the design's queries, when the engine needs one (`RediSearch`, 10205; 0 when hidden). */
    module?: { name: string; version: number };
    /** The variant of the engine the server runs, as designs name it and people read it (`redisearch1`). */
    variant: string;
    /** The target option values the server implies (`{ dialect: 'redisearch1' }`): used where none is given. */
    options: RawOptionValues;
    /** What the user should know of the server's settings (a timeout that cuts answers silently), a sentence each. */
    warnings?: string[];
    /**
     * Why an answer of the design's queries may come back cut with no error on this server (a query timeout the
     * queries cannot turn off), when it may: `verify` then refuses, as it could not trust an answer.
     */
    answersMayBeCut?: string;
}

/** Why an engine could not do what was asked; the engine's own `code` says it more precisely. */
export type EngineFailure =
    | 'url'
    | 'connect'
    | 'auth'
    | 'timeout'
    | 'connection-lost'
    | 'missing-module'
    | 'wrong-dialect'
    | 'schema-differs'
    | 'refused';

/** A failure of the engine a user can act on (exit 1): its kind, and its message and code as the engine gives them. */
export class EngineError extends KvmodError {
    /** What failed. */
    readonly failure: EngineFailure;

    constructor(failure: EngineFailure, message: string, options: { code?: string; cause?: unknown } = {}) {
        super(message, { code: options.code ?? `engine.${failure}`, cause: options.cause });
        this.failure = failure;
    }
}

/**
 * Turns an engine's own errors into `EngineError`s by their `code` (message, code and cause kept), with the
 * failure `failures` gives that code; other errors pass unchanged.
 */
export function engineErrors(failures: Readonly<Record<string, EngineFailure>>): (error: unknown) => unknown {
    return (error) => {
        if (error instanceof EngineError || !(error instanceof Error)) return error;
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'string' || failures[code] === undefined) return error;
        return new EngineError(failures[code], error.message, { code, cause: error.cause ?? error });
    };
}

/** Runs `action`, its failures translated by `translate` (a function from `engineErrors`). */
export async function withEngineErrors<T>(
    translate: (error: unknown) => unknown,
    action: () => Promise<T>,
): Promise<T> {
    try {
        return await action();
    } catch (error) {
        throw translate(error);
    }
}

/**
 * How `prepareSchema` treats a schema object of the design that exists already: `keep` keeps an identical one
 * and stops at a different one; `recreate` drops and recreates a different one (with its rows); `fresh` drops
 * and recreates every one, so that the server holds exactly the data written next (`verify`).
 */
export type SchemaMode = 'keep' | 'recreate' | 'fresh';

/** What happened to one schema object (an index, a function library…). */
export interface SchemaOutcome {
    /** What kind of object it is, as messages name it (`index`). */
    object: string;
    /** Its name on the server. */
    name: string;
    action: 'created' | 'kept' | 'recreated';
}

/** Options of `writeRows`. */
export interface WriteOptions {
    /** Rows sent before waiting for their replies (the engine's default when absent). */
    batchSize?: number;
    /** Called after each acknowledged batch; a returned promise is awaited before the next batch. */
    onProgress?: (done: number, total: number) => void | Promise<void>;
}

/** Rows written, per collection and in all. */
export interface WriteResult {
    collections: { name: string; rows: number }[];
    rows: number;
}

/**
 * An open connection to one server (or cluster), probed. Failures a user can act on are `EngineError`s (a lost
 * server names how far a write got).
 */
export interface EngineSession<Design> {
    /** What the server is. */
    readonly probe: EngineProbe;
    /**
     * Warnings about target options given that contradict the server (a dialect the server does not speak: its
     * commands may be accepted and do nothing).
     */
    contradictions(given: RawOptionValues): string[];
    /** Creates the design's schema (indexes…), keeping or replacing existing objects as `mode` says. */
    prepareSchema(design: Design, mode: SchemaMode): Promise<SchemaOutcome[]>;
    /** Writes every row of every collection of the design, pipelined in batches, with progress. */
    writeRows(design: Design, collections: readonly CollectionRows[], options?: WriteOptions): Promise<WriteResult>;
    /**
     * Runs a served query of the design with bound parameters (typed as instance data types them) and reads the
     * whole answer: its rows, projected columns in order, and the command, as the engine's client takes it.
     */
    runQuery(design: Design, collection: string, query: string, parameters: ParameterValues): Promise<ExecutedQuery>;
    /** The design's entity store (issue 28: the entities beside the rows), on an engine that keeps one. */
    readonly entities?: EngineEntityStore<Design>;
    /** Closes the connection (idempotent). */
    close(): Promise<void>;
}

/** Entities of one entity, by their stored identifiers. */
export interface EntityIds {
    entity: string;
    ids: string[];
}

/** `Book 2 (b7, b9)`: how many entities, and the first 10 ids. */
export function describeIds({ entity, ids }: EntityIds): string {
    const shown = ids.slice(0, 10).join(', ');
    return `${entity} ${ids.length} (${shown}${ids.length > 10 ? ', …' : ''})`;
}

/**
 * What a load of instance data will do to the entity store, found before anything is written: the entities the
 * server holds that the data lacks (`kvmod load` stops on them unless asked to remove them).
 */
export interface EntityLoadPlan {
    /** Entities on the server that the data lacks, per entity (ids sorted); empty when none. */
    extra: EntityIds[];
    /**
     * Writes the entity hashes and reverse hashes of the data (those already exact are left alone), removes `extra`
     * and deletes the rows the server's old entities implied and the data no longer does.
     */
    write(options?: { batchSize?: number }): Promise<EntityLoadResult>;
}

/** What writing the entity store did. */
export interface EntityLoadResult {
    /** Entities written (new or changed): entity hashes on Redis, entity items on DynamoDB. */
    written: number;
    /** Entities removed (`sync`): the plan's `extra`. */
    removed: EntityIds[];
    /** Rows deleted because no entity implies them any more. */
    rowsDeleted: number;
}

/** The entities read back from a server and what a key-for-key comparison found. */
export interface LiveCheckResult {
    /** The entities the server holds (those that decode), as instance data. */
    data: InstanceData;
    /** One plain sentence per difference, naming its key; empty when the server holds exactly what they imply. */
    differences: string[];
}

/** The entity store of a design on a live server. */
export interface EngineEntityStore<Design> {
    /** Why the design keeps no entity store (a sentence), or null. */
    unsupported(design: Design, runtime: RuntimeDesign): string | null;
    /**
     * Reads the server's entities and compares them with `data`: what a load would do (nothing written). Entities
     * the server holds and the data lacks are an error unless `sync` (then they are removed) or `fresh` (the
     * server's store is replaced whole); so is, with `sync`, one a kept entity still references.
     */
    planLoad(
        design: Design,
        runtime: RuntimeDesign,
        data: InstanceData,
        options: { fresh: boolean; sync: boolean },
    ): Promise<EntityLoadPlan>;
    /**
     * Read-only: reads the entities back and compares every row, index entry, reverse hash and entity hash with
     * what the entities imply.
     */
    check(design: Design, runtime: RuntimeDesign): Promise<LiveCheckResult>;
}

/**
 * An engine runtime: runs the designs of one target on one engine family. `target` is the target whose design
 * it runs (a target on the same engine, e.g. a client of the Redis design, loads and verifies through it).
 */
export interface EngineRuntime<Options extends OptionDeclarations, Design> {
    /** The engine family, as targets name it in `GenerationTarget.engine` (`redisearch`). */
    readonly name: string;
    /** The target whose design the engine runs (its options and `buildDesign`). */
    readonly target: GenerationTarget<Options, Design>;
    /** What `=` and ORDER BY mean on this engine: the oracle compares and sorts with it. */
    readonly collation: Collation;
    /** Which texts a design with these options can serve (`kvmod data check`, and before a load writes anything). */
    textRules(options: OptionValues<Options>): TextRules;
    /** The variant of the engine a design is made for, as people read it (`redisearch1`). */
    variantOf(design: Design): string;
    /** One line of advice after `kvmod doctor`'s probe: how to generate for this server. */
    advice(probe: EngineProbe): string;
    /** Connects and probes; an unreachable server, a refused login or a missing module is an `EngineError`. */
    connect(connection: EngineConnection): Promise<EngineSession<Design>>;
    /**
     * `kvmod workload` run by the engine itself, for an engine whose entity operations run in the runtime rather than
     * in a library the generated client installs on the server (DynamoDB). Absent, the workload runs through the
     * generated client (runtime/redis-entities/workload-engine.ts).
     */
    runWorkload?(design: RuntimeDesign, run: EngineWorkloadRun): Promise<EngineWorkloadResult>;
    /**
     * `kvmod complete`: carries out the entity changes writers left pending (a writer that died between the steps of
     * an operation, where one operation is not one atomic call: Redis Cluster); resolves to one line saying what was
     * done. Absent where nothing can be left pending.
     */
    completePending?(design: RuntimeDesign, run: { server: string; timeoutSeconds?: number }): Promise<string>;
}

/** What `kvmod workload` asks of an engine: the server, the design's options and the run's. */
export interface EngineWorkloadRun extends WorkloadRunSettings {
    /** The server's URL (one server: the writers and the check share it). */
    server: string;
    /** The target's options as given; those the server implies are detected when not given. */
    targetOptions?: RawOptionValues;
    timeoutSeconds?: number;
}

/** What a workload run found. */
export interface EngineWorkloadResult {
    target: string;
    /** The server as messages print it (its password hidden). */
    server: string;
    /** The engine variant the design is made for (`redisearch1`, `redis-core`, `dynamodb`). */
    engine: string;
    report: WorkloadReport;
    warnings: string[];
}

/** An engine runtime, its types hidden (like `RegisteredTarget`), with a way back to the typed runtime. */
export interface RegisteredEngine {
    readonly name: string;
    /** The name of the target whose design it runs. */
    readonly target: string;
    /** Runs `use` on the typed runtime. */
    use<R>(use: <O extends OptionDeclarations, D>(engine: EngineRuntime<O, D>) => R): R;
}

/** Registers a typed engine runtime. */
export function registerEngine<O extends OptionDeclarations, D>(engine: EngineRuntime<O, D>): RegisteredEngine {
    return { name: engine.name, target: engine.target.name, use: (use) => use(engine) };
}

/** An entity store whose failures are translated by `translate` (a function from `engineErrors`). */
export function entityStoreErrors<D>(
    translate: (error: unknown) => unknown,
    store: EngineEntityStore<D>,
): EngineEntityStore<D> {
    return {
        unsupported: (design, runtime) => store.unsupported(design, runtime),
        planLoad: async (design, runtime, data, options) => {
            const plan = await withEngineErrors(translate, () => store.planLoad(design, runtime, data, options));
            return { extra: plan.extra, write: (writing) => withEngineErrors(translate, () => plan.write(writing)) };
        },
        check: (design, runtime) => withEngineErrors(translate, () => store.check(design, runtime)),
    };
}
