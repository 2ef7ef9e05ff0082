/**
 * `kvmod complete`: carries every change an entity operation left pending on a Redis Cluster (a writer that died
 * between the steps of its operation; see core-cluster-entities.ts) to every slot it reaches. On one server there
 * is nothing to complete: each operation is one atomic call there.
 */
import { generateTarget } from '../../generation/generation-engine.js';
import type { CoreViewModel } from '../../generation/redis-core/redis-core-design.js';
import { redisCoreTarget } from '../../generation/redis-core/redis-core-target.js';
import { KvmodError } from '../../pipeline/errors.js';
import type { RuntimeDesign } from '../runtime-design.js';
import { ClusterEntities, completeCluster } from './core-cluster-entities.js';
import { connectCore, type CoreConnection } from './core-connection.js';

export interface CompleteOutcome {
    /** The server as messages print it (its password hidden). */
    server: string;
    /** Masters of the cluster; 0 for one server. */
    masters: number;
    /** Entities that had pending changes, and the changes carried. */
    entities: number;
    records: number;
    /** Reverse entries no referrer holds, cleared. */
    reverse: number;
}

/** The redis-core design of a runtime design, with its library. */
async function coreDesign(runtime: RuntimeDesign): Promise<{ design: CoreViewModel; library: string }> {
    const { viewModel, files } = await generateTarget(redisCoreTarget, { kvlm: runtime.kvlm, pidm: runtime.pidm });
    return { design: viewModel, library: files.find((file) => file.path === 'library.lua')!.content };
}

/** Connects to the server, or to its whole cluster when it is a cluster node. */
async function connect(url: string, timeoutSeconds: number | undefined): Promise<CoreConnection> {
    const connection = await connectCore(url, { timeoutSeconds });
    const [node] = await connection.masters();
    const info = String(await node.send(['INFO', 'cluster']).catch(() => ''));
    if (!/cluster_enabled:1/.test(info)) return connection;
    await connection.close();
    return connectCore(url, { cluster: [url], timeoutSeconds });
}

/** Completes the pending changes of the design's entities on the server (see the module comment). */
export async function completePendingChanges(
    runtime: RuntimeDesign,
    options: { server: string; timeoutSeconds?: number },
): Promise<CompleteOutcome> {
    const { design, library } = await coreDesign(runtime);
    if (design.entityStore === null)
        throw new KvmodError(
            `the design keeps no entities, so nothing can be pending: ${design.noEntityStore ?? 'no entity store'}`,
            { code: 'entity-store.unsupported' },
        );
    const connection = await connect(options.server, options.timeoutSeconds);
    try {
        if (!connection.cluster) return { server: connection.url, masters: 0, entities: 0, records: 0, reverse: 0 };
        const masters = await connection.masters();
        // The steps are functions of the design's library: the same library again changes nothing.
        for (const node of masters) await node.send(['FUNCTION', 'LOAD', 'REPLACE', library]);
        const entities = new ClusterEntities({ connection, design, kvlm: runtime.kvlm, model: runtime.model });
        const done = await completeCluster(entities, connection);
        return { server: connection.url, masters: masters.length, ...done };
    } finally {
        await connection.close();
    }
}

/** What `kvmod complete` prints of an outcome. */
export function completeMessage(done: CompleteOutcome): string {
    if (done.masters === 0)
        return `${done.server} is one server: every entity operation is one atomic call there, nothing is pending`;
    return `${done.records} pending ${done.records === 1 ? 'change' : 'changes'} of ${done.entities} ${done.entities === 1 ? 'entity' : 'entities'} completed on ${done.masters} masters (${done.server})${done.reverse > 0 ? `; ${done.reverse} reverse ${done.reverse === 1 ? 'entry' : 'entries'} no referrer holds cleared` : ''}`;
}
