// Copied by kvmod from its src/generation/entity-error-codes.ts: the rules of the DynamoDB design have one source. Do not edit.
/**
 * The stable codes of a refused entity operation (issue 28): one list for the entity store's protocol
 * (src/generation/shared/entity-store.ts: the server's `KVMOD_<CODE>` errors, the typed client's `EntityError`, which
 * ships this file) and the engine-neutral entity operations (src/runtime/entities). Here, outside the targets'
 * shared folder, because the entity operations import no target; no imports, so the client can embed it.
 */

/** Every code, in the order the documentation lists them. */
export const ENTITY_ERROR_CODES = [
    'entity.not-found',
    'entity.exists',
    'entity.still-referenced',
    'entity.missing-target',
    'entity.required-reference',
    'entity.identifier-change',
    'entity.unservable-value',
    'entity.bad-value',
    'entity.conflict',
] as const;

/** The stable code of a refused entity operation. */
export type EntityErrorCode = (typeof ENTITY_ERROR_CODES)[number];
