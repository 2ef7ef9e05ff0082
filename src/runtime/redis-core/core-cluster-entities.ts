/**
 * Entity operations on a Redis Cluster that always converge (issue 29, docs/design/cluster-entities.md): kvmod's own
 * writer (the workload, `kvmod complete`, the tests). The steps are the generated client's
 * (client-runtime/kvmod-cluster-entities.ts: the outbox call in the entity's slot, then versioned one-slot steps,
 * pending records first); what is kvmod's own is the check, the engine-neutral semantics (`applyEntityOperation`) over
 * the entities the operation names, read from their slots, so every outcome is the oracle's.
 */
import { coreClusterDesign } from '../../generation/redis-core/redis-core-cluster-design.js';
import type { CoreViewModel } from '../../generation/redis-core/redis-core-design.js';
import {
    entityHashFields,
    entitySchema,
    storedId,
    storedTargets,
    decodeEntityHash,
    referenceField,
    type EntityStoreSchema,
} from '../../generation/shared/entity-store.js';
import {
    ClusterEntitySteps,
    LOG_SUFFIX,
    WriterKilled,
    type ChangeRecord,
    type EntityRef,
    type ReadEntity,
} from '../../generation/typescript/client-runtime/kvmod-cluster-entities.js';
import type { KvlmModel } from '../../language/generated/ast.js';
import { applyEntityOperation, type EntityOperation, type EntityRefusal } from '../entities/entity-operations.js';
import type { EntityExecutor, ExecutedOutcome } from '../entities/workload.js';
import type { InstanceData, InstanceObject } from '../instance-data.js';
import type { RuntimeModel } from '../runtime-model.js';
import type { TextRules } from '../servable-values.js';
import type { CoreConnection } from './core-connection.js';

export { LOG_SUFFIX, WriterKilled };

/** Why a cluster cannot keep a design's entities: a counter-key collection (its row map is one server's), or null. */
export function clusterCounterReason(design: CoreViewModel): string | null {
    const counters = design.collections.filter((collection) => collection.key.kind === 'counter');
    return counters.length === 0
        ? null
        : `collection ${counters[0].name} has counter keys, whose row map the entity operations keep on a single server only (use --key natural on a cluster)`;
}

/** The design, when a cluster can keep its entities (see `clusterCounterReason`); throws otherwise. */
function onCluster(design: CoreViewModel): CoreViewModel {
    const reason = clusterCounterReason(design);
    if (reason !== null) throw new Error(reason);
    return design;
}

/** What the steps need: the design, its entity layout and the model (for the semantics). */
export interface ClusterEntityContext {
    connection: CoreConnection;
    design: CoreViewModel;
    kvlm: KvlmModel;
    model: RuntimeModel;
    rules?: TextRules;
}

/** The entity store of a redis-core design on a cluster, written by kvmod (the oracle's semantics). */
export class ClusterEntities extends ClusterEntitySteps {
    constructor(private readonly context: ClusterEntityContext) {
        super(
            { call: (key, argv) => context.connection.call(key, argv) },
            coreClusterDesign(context.kvlm, onCluster(context.design)),
        );
    }

    /** An entity's state as the semantics take it: instance data holding the entities read (decoded). */
    private addObject(data: InstanceData, entity: string, hash: Record<string, string> | null): void {
        if (hash === null) return;
        const object = decodeEntityHash(this.schema, entity, hash).object as InstanceObject;
        const idName = entitySchema(this.schema, entity).idName;
        const id = storedId(this.schema, entity, object[idName]);
        const list = (data[entity] ??= []);
        if (!list.some((o) => storedId(this.schema, entity, o[idName]) === id)) list.push(object);
    }

    /** Runs one operation (see the module comment); a refusal is the semantics' own. */
    async execute(operation: EntityOperation): Promise<ExecutedOutcome> {
        const schema = this.schema;
        const entity = operation.entity;
        if (schema.entities[entity] === undefined) {
            const outcome = applyEntityOperation(this.context.model, {}, operation, { rules: this.context.rules });
            return outcome.ok ? { ok: false, code: null, message: 'no entity' } : refusal(outcome.refusal);
        }
        const spec = entitySchema(schema, entity);
        let id: string;
        try {
            const given = operation.kind === 'create' ? operation.object[spec.idName] : operation.id;
            id = storedId(schema, entity, given);
        } catch (error) {
            return {
                ok: false,
                code: 'entity.bad-value',
                message: error instanceof Error ? error.message : String(error),
            };
        }
        const outcome = await this.run<EntityRefusal>({
            entity,
            id,
            delete: operation.kind === 'delete',
            // The targets the operation or the entity names (existence); the holders are read by the steps.
            targets: (self: ReadEntity): EntityRef[] =>
                spec.references.flatMap((reference) => [
                    ...storedTargets(reference, self.hash?.[referenceField(reference.name)]).map((t) => ({
                        entity: reference.target,
                        id: t,
                    })),
                    ...namedTargets(schema, operation, reference.name, reference.target).map((t) => ({
                        entity: reference.target,
                        id: t,
                    })),
                ]),
            check: (state) => {
                const data: InstanceData = {};
                for (const name of this.context.model.entities.keys()) data[name] = [];
                this.addObject(data, entity, state.self.hash);
                const names = new Set<string>();
                const add = (e: string, i: string) => {
                    const k = `${e}\0${i}`;
                    if (names.has(k)) return;
                    names.add(k);
                    this.addObject(data, e, state.get(e, i)?.hash ?? null);
                };
                for (const reference of spec.references) {
                    for (const t of storedTargets(reference, state.self.hash?.[referenceField(reference.name)]))
                        add(reference.target, t);
                    for (const t of namedTargets(schema, operation, reference.name, reference.target))
                        add(reference.target, t);
                }
                for (const holder of state.holders) for (const h of holder.ids) add(holder.entity, h);
                const result = applyEntityOperation(this.context.model, data, operation, {
                    rules: this.context.rules,
                });
                if (!result.ok) return { refused: result.refusal };
                return {
                    after: (e: string, i: string) => {
                        const object = objectOf(schema, result.data, e, i);
                        return object === null ? null : entityHashFields(schema, e, object);
                    },
                };
            },
        });
        if ('refused' in outcome) return refusal(outcome.refused);
        if ('gaveUp' in outcome) return { ok: false, code: null, message: outcome.gaveUp };
        return { ok: true };
    }
}

function refusal(r: EntityRefusal): ExecutedOutcome {
    return { ok: false, code: r.code, message: r.message };
}

/** The stored ids an operation names as targets of a reference. */
function namedTargets(
    schema: EntityStoreSchema,
    operation: EntityOperation,
    reference: string,
    target: string,
): string[] {
    const ids = (values: unknown[]): string[] =>
        values.flatMap((v) => {
            try {
                return v === null || v === undefined ? [] : [storedId(schema, target, v)];
            } catch {
                return [];
            }
        });
    if (operation.kind === 'create') {
        const value = (operation.object as Record<string, unknown>)[reference];
        return ids(Array.isArray(value) ? value : [value]);
    }
    if ((operation.kind === 'set' || operation.kind === 'add') && operation.reference === reference)
        return ids(operation.kind === 'set' ? [operation.target] : [...operation.targets]);
    return [];
}

function objectOf(schema: EntityStoreSchema, data: InstanceData, entity: string, id: string): InstanceObject | null {
    const idName = entitySchema(schema, entity).idName;
    return (data[entity] ?? []).find((o) => storedId(schema, entity, o[idName]) === id) ?? null;
}

/** The executor of one writer on a cluster (the workload's interface). */
export function clusterExecutor(entities: ClusterEntities): EntityExecutor {
    return {
        async execute(operation) {
            try {
                return await entities.execute(operation);
            } catch (error) {
                // The entity's own call is done: the operation happened, its steps are left for the next writer.
                if (error instanceof WriterKilled) return { ok: true };
                throw error;
            }
        },
    };
}

/** What `completeCluster` did. */
export interface CompleteResult {
    /** Entities whose log holds pending records, and the records carried. */
    entities: number;
    records: number;
    /** Reverse entries no referrer holds, cleared. */
    reverse: number;
}

/** Every key matching a pattern on every master. */
async function scanMasters(connection: CoreConnection, pattern: string): Promise<string[]> {
    const out: string[] = [];
    for (const node of await connection.masters()) {
        let cursor = '0';
        do {
            const [next, keys] = (await node.send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
                unknown,
                unknown[],
            ];
            cursor = String(next);
            out.push(...keys.map(String));
        } while (cursor !== '0');
    }
    return out;
}

/**
 * Carries every pending change record of the design on every master (SCAN of the entity logs), then clears the
 * reverse entries no referrer holds (SCAN of the reverse hashes): after it, every row, index entry and reverse entry
 * is what the entities imply.
 */
export async function completeCluster(entities: ClusterEntities, connection: CoreConnection): Promise<CompleteResult> {
    const root = `kvmod:${entities.schema.database}:`;
    let found = 0;
    let records = 0;
    for (const log of await scanMasters(connection, `${root}{*}${LOG_SUFFIX}`)) {
        const fields = (await connection.call(log, ['HKEYS', log])) as unknown[];
        const pending = fields.map(String).filter((f) => /^r\d+$/.test(f));
        if (pending.length === 0) continue;
        const text = String(await connection.call(log, ['HGET', log, pending[0]]));
        const record = JSON.parse(text) as ChangeRecord;
        found++;
        records += await entities.completeEntity(record.entity, record.id);
    }
    let reverse = 0;
    for (const key of await scanMasters(connection, `${root}{*}:<*`)) reverse += await entities.reconcileReverse(key);
    return { entities: found, records, reverse };
}
