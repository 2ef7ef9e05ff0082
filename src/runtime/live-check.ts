/**
 * The live check (issue 28): a server as it is, read-only — no data file, no load, no drop. The entities are read
 * back from the design's entity store; every row, index entry, reverse hash and entity hash is compared, key for
 * key, with what they imply (the engine's `EngineEntityStore.check`); `verifyLive` then evaluates every query with
 * the oracle over those entities and runs the generated queries, as `kvmod verify` does over a data file.
 */
import type { OptionDeclarations, RawOptionValues } from '../generation/generation-options.js';
import { KvmodError } from '../pipeline/errors.js';
import type { EngineRuntime, EngineSession, LiveCheckResult } from './engine.js';
import { indexInstanceData } from './instance-data.js';
import { loadRuntimeDesign, type DesignOptions, type RuntimeDesign } from './runtime-design.js';
import { designOptions, engineViewModel, withEngine } from './runtime-actions.js';
import { verifyQueries, type QueryExecutor, type QueryVerdict } from './verify.js';

/** Options of `liveCheck`. */
export interface LiveCheckOptions {
    /** The target whose design the server holds: `redis` (default) or `redis-core`. */
    target?: string;
    /** The target's options as `generate` takes them; those the server implies are detected when not given. */
    targetOptions?: RawOptionValues;
    /** Seconds to wait for the connection and for each reply. */
    timeoutSeconds?: number;
}

/** An open session on the server with the design it holds. */
interface LiveSession<D> {
    session: EngineSession<D>;
    view: D;
    warnings: string[];
}

async function openLive<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    server: string | readonly string[],
    design: RuntimeDesign,
    options: LiveCheckOptions,
): Promise<LiveSession<D>> {
    const given = designOptions(engine, options.targetOptions ?? {});
    const urls = typeof server === 'string' ? [server] : server;
    const session = await engine.connect({ urls, timeoutSeconds: options.timeoutSeconds });
    try {
        const view = await engineViewModel(engine, design, { ...session.probe.options, ...given });
        const warnings = [...design.warnings, ...session.contradictions(given), ...(session.probe.warnings ?? [])];
        return { session, view, warnings };
    } catch (error) {
        await session.close();
        throw error;
    }
}

/** The check itself, on an open session. */
async function checkLive<D>({ session, view }: LiveSession<D>, design: RuntimeDesign): Promise<LiveCheckResult> {
    const store = session.entities;
    if (store === undefined)
        throw new KvmodError(
            `the ${session.probe.variant} engine keeps no entity store: there is nothing to check live`,
            {
                code: 'entity-store.unsupported',
            },
        );
    const unsupported = store.unsupported(view, design);
    if (unsupported !== null)
        throw new KvmodError(`the design keeps no entity store, so there is nothing to check live: ${unsupported}`, {
            code: 'entity-store.unsupported',
        });
    return store.check(view, design);
}

/**
 * Read-only: reads the entities back and compares every row, index entry, reverse hash and entity hash with what
 * they imply, key for key. The differences, one plain sentence each naming its key; empty when none.
 */
export function liveCheck(server: string, design: RuntimeDesign, options: LiveCheckOptions = {}): Promise<string[]> {
    return withEngine(options, async (engine) => {
        const live = await openLive(engine, server, design, options);
        try {
            return (await checkLive(live, design)).differences;
        } finally {
            await live.session.close();
        }
    });
}

/** Options of `verifyLive`. */
export interface LiveVerifyOptions extends LiveCheckOptions, DesignOptions {
    /** The model: `.pidm` (transformed with the merge/key options) or `.kvlm`. */
    modelPath: string;
    /** The server's URL. */
    server: string | readonly string[];
    /** Parameter sets per query drawn from the entities (default 10). */
    samples?: number;
    /** Seed of the sampling (default 1). */
    seed?: number;
}

/** What `kvmod verify --live` found. */
export interface LiveVerifyResult {
    target: string;
    server: string;
    engine: string;
    /** Entities read back. */
    entities: number;
    /** The key-for-key differences (`liveCheck`). */
    differences: string[];
    verdicts: QueryVerdict[];
    /** No difference and every query matches. */
    ok: boolean;
    warnings: string[];
}

/** `kvmod verify --live`: the live check, then every query against the oracle over the entities read back. */
export async function verifyLive(options: LiveVerifyOptions): Promise<LiveVerifyResult> {
    const design = await loadRuntimeDesign(options.modelPath, options);
    return withEngine(options, async (engine, target) => {
        const live = await openLive(engine, options.server, design, options);
        const { session, view } = live;
        try {
            const cut = session.probe.answersMayBeCut;
            if (cut !== undefined)
                throw new KvmodError(`verify cannot trust an answer: ${cut}`, { code: 'verify.answers-may-be-cut' });
            const { data, differences } = await checkLive(live, design);
            const index = indexInstanceData(design.model, data);
            const execute: QueryExecutor = (collection, query, parameters) =>
                session.runQuery(view, collection.name, query.name, parameters);
            const verdicts = await verifyQueries(design.pidm, design.kvlm, design.model, data, execute, {
                samples: options.samples ?? 10,
                seed: options.seed ?? 1,
                collation: engine.collation,
                index,
            });
            return {
                target,
                server: session.probe.server,
                engine: engine.variantOf(view),
                entities: Object.values(data).reduce((sum, objects) => sum + objects.length, 0),
                differences,
                verdicts,
                ok: differences.length === 0 && verdicts.every((verdict) => verdict.mismatches === 0),
                warnings: live.warnings,
            };
        } finally {
            await session.close();
        }
    });
}
