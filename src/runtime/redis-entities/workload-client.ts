/**
 * The workload's executor: each entity operation through the generated TypeScript client's entity functions
 * (`kvmod-entities.ts`, the very file every generated client ships), over one connection. A refusal (`EntityError`,
 * whether the client refused before sending or the server's Function did) is an outcome with its code; any other
 * error is one without a code, which fails the workload.
 */
import type { CommandClient } from '../../generation/typescript/client-runtime/kvmod-client.js';
import {
    addReferences,
    createEntity,
    deleteEntity,
    EntityError,
    removeReferences,
    setReference,
    updateEntity,
    type ClientEntityStore,
} from '../../generation/typescript/client-runtime/kvmod-entities.js';
import type { EntityOperation } from '../entities/entity-operations.js';
import type { EntityExecutor, ExecutedOutcome } from '../entities/workload.js';

/** Runs one operation with the client's function for it. */
export async function executeWithClient(
    client: CommandClient,
    store: ClientEntityStore,
    operation: EntityOperation,
): Promise<void> {
    switch (operation.kind) {
        case 'create':
            await createEntity(client, store, operation.entity, operation.object);
            return;
        case 'update':
            await updateEntity(client, store, operation.entity, operation.id, operation.patch);
            return;
        case 'delete':
            await deleteEntity(client, store, operation.entity, operation.id, { detach: operation.detach === true });
            return;
        case 'set':
            await setReference(client, store, operation.entity, operation.id, operation.reference, operation.target);
            return;
        case 'unset':
            await setReference(client, store, operation.entity, operation.id, operation.reference, null);
            return;
        case 'add':
            await addReferences(client, store, operation.entity, operation.id, operation.reference, operation.targets);
            return;
        case 'remove':
            await removeReferences(
                client,
                store,
                operation.entity,
                operation.id,
                operation.reference,
                operation.targets,
            );
            return;
    }
}

/** An executor over one connection: the client's functions, their refusals as outcomes. */
export function clientExecutor(client: CommandClient, store: ClientEntityStore): EntityExecutor {
    return {
        execute: async (operation): Promise<ExecutedOutcome> => {
            try {
                await executeWithClient(client, store, operation);
                return { ok: true };
            } catch (error) {
                if (error instanceof EntityError) return { ok: false, code: error.code, message: error.message };
                return { ok: false, code: null, message: error instanceof Error ? error.message : String(error) };
            }
        },
    };
}
