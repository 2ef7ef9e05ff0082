/**
 * `kvmod complete`: carries every change an entity operation left pending on a Redis Cluster (a writer that died
 * between the steps of its operation; see core-cluster-entities.ts) to every slot it reaches. On one server there
 * is nothing to complete: each operation is one atomic call there.
 */
import { KvmodError } from '../../pipeline/errors.js';
import type { RuntimeDesign } from '../runtime-design.js';
import { ClusterEntities, completeCluster } from './core-cluster-entities.js';
import { buildCoreDesign } from './core-engine.js';
import { connectCoreNodes } from './core-runtime.js';

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

/** Completes the pending changes of the design's entities on the server (see the module comment). */
export async function completePendingChanges(
    runtime: RuntimeDesign,
    options: { server: string; timeoutSeconds?: number },
): Promise<CompleteOutcome> {
    const { design, library } = await buildCoreDesign({ kvlm: runtime.kvlm, pidm: runtime.pidm });
    if (design.entityStore === null)
        throw new KvmodError(
            `the design keeps no entities, so nothing can be pending: ${design.noEntityStore ?? 'no entity store'}`,
            { code: 'entity-store.unsupported' },
        );
    const connection = await connectCoreNodes([options.server], options.timeoutSeconds);
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
