/**
 * `kvmod workload` on a real server: the design as `generate` makes it for the server (the target's options given or
 * detected), emptied and installed anew before the run and before every replay of a shrink (`FLUSHALL`, the
 * engine's schema, the entity Function installed by the client's own setup function), operations through the
 * generated client's entity functions (one connection per writer), the live check of the engine's entity store
 * (`EngineEntityStore.check`: the entities read back, every row and index entry compared with what they imply), and
 * a digest of every key (`SCAN`, `DUMP`). Destructive by design: the server must be a scratch one.
 */
import { targetOptions as resolveTargetOptions } from '../../generation/generation-engine.js';
import type { OptionDeclarations } from '../../generation/generation-options.js';
import { DEFAULT_TARGET } from '../../generation/generation-targets.js';
import { entityLibrary } from '../../generation/entities/entity-library.js';
import type { CoreViewModel } from '../../generation/redis-core/redis-core-view-model.js';
import type { RedisViewModel } from '../../generation/redis/redis-view-model-types.js';
import type { CommandClient } from '../../generation/typescript/client-runtime/kvmod-client.js';
import {
    installEntityFunctions,
    type ClientEntityStore,
} from '../../generation/typescript/client-runtime/kvmod-entities.js';
import { KvmodError } from '../../pipeline/errors.js';
import { checkedTarget } from '../../pipeline/generate.js';
import type { EngineRuntime, EngineWorkloadResult, EngineWorkloadRun } from '../engine.js';
import { engineOf } from '../engine-registry.js';
import { connectRedis, type RedisLink } from '../redis-connection/redis-link.js';
import { loadRuntimeDesign, type DesignOptions, type RuntimeDesign } from '../runtime-design.js';
import { designOptions, engineViewModel } from '../runtime-actions.js';
import { runSettings, runWorkload, type EntityExecutor, type WorkloadStore } from '../entities/workload.js';
import { clientExecutor } from './workload-client.js';

/** What `kvmod workload` needs. */
export interface EngineWorkloadOptions extends DesignOptions, EngineWorkloadRun {
    /** The model: `.pidm` (transformed with the merge/key options) or `.kvlm`. */
    modelPath: string;
    /** The target whose design is run (default: the default target). */
    target?: string;
    /** The executor of a writer's connection (default: the client's entity functions, `clientExecutor`). */
    executor?: (client: CommandClient, store: ClientEntityStore) => EntityExecutor;
}

/** Runs the workload on the server (see the module comment): the report says whether anything differed. */
export async function runWorkloadOnEngine(options: EngineWorkloadOptions): Promise<EngineWorkloadResult> {
    return runWorkloadOnDesign(await loadRuntimeDesign(options.modelPath, options), options);
}

/** The same, on a design already loaded (`modelPath` is then not read). */
export async function runWorkloadOnDesign(
    design: RuntimeDesign,
    options: EngineWorkloadOptions,
): Promise<EngineWorkloadResult> {
    const target = checkedTarget(options.target ?? DEFAULT_TARGET, options.targetOptions ?? {});
    const engine = await engineOf(target);
    return engine.use((typed) =>
        typed.runWorkload === undefined
            ? runOn(typed, target.name, design, options)
            : typed.runWorkload(design, options),
    );
}

async function runOn<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    target: string,
    design: RuntimeDesign,
    options: EngineWorkloadOptions,
): Promise<EngineWorkloadResult> {
    const given = designOptions(engine, options.targetOptions ?? {});
    const session = await engine.connect({ urls: [options.server], timeoutSeconds: options.timeoutSeconds });
    const links: RedisLink[] = [];
    try {
        const values = { ...session.probe.options, ...given };
        const view = await engineViewModel(engine, design, values);
        const entities = session.entities;
        const unsupported =
            entities === undefined
                ? `the ${engine.variantOf(view)} engine keeps no entity store`
                : entities.unsupported(view, design);
        if (entities === undefined || unsupported !== null)
            throw new KvmodError(`the workload needs the design's entity store: ${unsupported}`, {
                code: 'entity-store.unsupported',
            });
        const clientStore = await clientEntityStore(engine, view);
        const rules = engine.textRules(resolveTargetOptions(engine.target, values));
        const connect = async (): Promise<RedisLink> => {
            const link = await connectRedis(options.server, { timeoutSeconds: options.timeoutSeconds });
            links.push(link);
            return link;
        };
        const admin = await connect();
        const writers = new Map<number, EntityExecutor>();
        const store: WorkloadStore = {
            reset: async () => {
                await admin.send(['FLUSHALL']);
                await session.prepareSchema(view, 'fresh');
                await installEntityFunctions(commandClient(admin), clientStore);
            },
            writer: async (index) => {
                let writer = writers.get(index);
                if (writer === undefined) {
                    writer = (options.executor ?? clientExecutor)(commandClient(await connect()), clientStore);
                    writers.set(index, writer);
                }
                return writer;
            },
            check: () => entities.check(view, design),
            digest: () => serverDigest(admin),
        };
        const report = await runWorkload(store, {
            model: design.model,
            design: design.kvlm,
            rules,
            ...runSettings(options),
        });
        return {
            target,
            server: session.probe.server,
            engine: engine.variantOf(view),
            report,
            warnings: [...design.warnings, ...session.contradictions(given), ...(session.probe.warnings ?? [])],
        };
    } finally {
        for (const link of links) await link.close();
        await session.close();
    }
}

/** A link as the generated client takes a connection. */
function commandClient(link: RedisLink): CommandClient {
    return { sendCommand: (argv) => link.send(argv) };
}

/**
 * What the client needs of the design's entity store: its layout and the library that holds its Function
 * (`entityLibrary`: the redis target's `entities.lua`, redis-core's whole `library.lua`).
 */
async function clientEntityStore<O extends OptionDeclarations, D>(
    engine: EngineRuntime<O, D>,
    view: D,
): Promise<ClientEntityStore> {
    const design = view as RedisViewModel | CoreViewModel;
    const library = design.entityStore === undefined ? null : await entityLibrary(design);
    if (library === null)
        throw new KvmodError(
            `the ${engine.target.name} design keeps no entity store${design.noEntityStore ? `: ${design.noEntityStore}` : ''}`,
            { code: 'entity-store.unsupported' },
        );
    return { schema: design.entityStore!.schema, library };
}

/**
 * A digest of every key of the server, made by the server in one call (a refused operation is digested before and
 * after, so a round trip per key would cost more than the operation): the SHA-1 of each key's name and `DUMP`, in key
 * order. A module's own keys are left out: RediSearch 1.2's garbage collector rewrites its index structures in the
 * background after a delete, so their `DUMP` changes with no command sent; an index entry a refused operation wrote
 * would come with its document hash (`FT.ADD` writes it), and the live check compares the index entries themselves.
 */
const DIGEST_SCRIPT = `#!lua flags=no-writes
local keys, cursor = {}, '0'
repeat
    local reply = redis.call('SCAN', cursor, 'COUNT', 1000)
    cursor = reply[1]
    for _, key in ipairs(reply[2]) do keys[#keys + 1] = key end
until cursor == '0'
table.sort(keys)
local redisTypes = { string = true, list = true, set = true, zset = true, hash = true, stream = true }
local parts, last = {}, nil
for _, key in ipairs(keys) do
    if key ~= last and redisTypes[redis.call('TYPE', key).ok] then
        parts[#parts + 1] = key
        parts[#parts + 1] = redis.call('DUMP', key)
    end
    last = key
end
return redis.sha1hex(table.concat(parts, '\\0'))
`;

/** A digest of every key of the server but a module's (see `DIGEST_SCRIPT`). */
export async function serverDigest(link: RedisLink): Promise<string> {
    return String(await link.send(['EVAL', DIGEST_SCRIPT, '0']));
}
