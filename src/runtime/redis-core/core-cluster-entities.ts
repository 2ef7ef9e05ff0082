/**
 * Entity operations on a Redis Cluster that always converge (issue 29, docs/design/cluster-entities.md).
 *
 * One operation on one server is one atomic call of the entity Function. On a cluster its keys sit in many slots, so:
 * 1. The operation is checked with the engine-neutral semantics (`applyEntityOperation`) over the entities it
 *    names, read from their slots; a refused operation writes nothing.
 * 2. The entity's slot, in one call (`begin`): the entity hash written (or deleted) when its version is still the
 *    one read, its version counter raised, and a change record (the entity as it was) appended to its log: the
 *    outbox. From here the change is durable; whoever carries it, the steps below end in the same state.
 * 3. Steps, each one call in one slot, each recomputed from the entities as they are now and guarded by their
 *    versions (the log's counter, which a delete raises too), so a late step never undoes a newer one: the reverse
 *    entries of the entity's references (target's slot); every row the entity is bound in, old and new (row's slot:
 *    written, or tombstoned when no binding makes it any longer); the row's index entries in its partition and
 *    their removal from partitions it left (each partition's slot); the row's list of stale partitions cleared.
 * 4. The record acknowledged (removed from the log). A writer that dies leaves the record: the next operation on the
 *    entity carries it first, and `kvmod complete` carries every record left (`completeCluster`).
 *
 * Reverse entries a new reference needs are added before the entity's call (so a delete of the target cannot miss
 * the referrer), and removed after it.
 */
import { coreLuaCollections } from '../../generation/entities/entity-store-design.js';
import type { EntityLuaCollection } from '../../generation/entities/entity-lua.js';
import { coreClusterFunctions, type CoreClusterFunctions } from '../../generation/redis-core/redis-core-cluster-lua.js';
import {
    coreRowRecordKey,
    type CoreCollection,
    type CoreViewModel,
} from '../../generation/redis-core/redis-core-design.js';
import {
    decodeEntityHash,
    entityHashFields,
    entityKey,
    entitySchema,
    reverseKey,
    storedId,
    storedTargets,
    VERSION_FIELD,
    type EntityStoreSchema,
} from '../../generation/shared/entity-store.js';
import type { KvlmModel } from '../../language/generated/ast.js';
import { applyEntityOperation, type EntityOperation, type EntityRefusal } from '../entities/entity-operations.js';
import type { EntityExecutor, ExecutedOutcome } from '../entities/workload.js';
import type { InstanceData, InstanceObject } from '../instance-data.js';
import type { RuntimeModel } from '../runtime-model.js';
import type { TextRules } from '../servable-values.js';
import { pairsOf } from '../redis-entities/server-entities.js';
import type { CoreConnection } from './core-connection.js';

/** Why a cluster cannot keep a design's entities: a counter-key collection (its row map is one server's), or null. */
export function clusterCounterReason(design: CoreViewModel): string | null {
    const counters = design.collections.filter((collection) => collection.key.kind === 'counter');
    return counters.length === 0
        ? null
        : `collection ${counters[0].name} has counter keys, whose row map the entity operations keep on a single server only (use --key natural on a cluster)`;
}

/** The suffix of an entity's log key (version counter, change records, reverse-entry guards). */
export const LOG_SUFFIX = ':@log';

/** Thrown by an injected fault: the writer dies between two steps. */
export class WriterKilled extends Error {
    constructor() {
        super('the writer was killed between two steps (injected fault)');
    }
}

/** What the steps need: the design, its entity layout and the model (for the semantics). */
export interface ClusterEntityContext {
    connection: CoreConnection;
    design: CoreViewModel;
    kvlm: KvlmModel;
    model: RuntimeModel;
    rules?: TextRules;
}

/** An entity as read from its slot: its hash (null when absent), its version counter, its pending records. */
interface ReadEntity {
    hash: Record<string, string> | null;
    seq: number;
    records: { seq: number; record: ChangeRecord }[];
}

/** A change record: the entity as it was before the operation. */
interface ChangeRecord {
    entity: string;
    id: string;
    old: Record<string, string> | null;
}

/** How many times a step recomputes after a newer writer got there first. */
const MAX_ATTEMPTS = 50;

/** The entity store of a redis-core design on a cluster. */
export class ClusterEntities {
    readonly schema: EntityStoreSchema;
    readonly collections: EntityLuaCollection[];
    readonly f: CoreClusterFunctions;
    private readonly byName: Map<string, CoreCollection>;
    /** Asked before each step of an operation's own carry: true kills the writer there (tests inject faults). */
    fault?: () => boolean;
    private armed = false;
    /** Steps run (for the tests and the report). */
    steps = 0;

    constructor(private readonly context: ClusterEntityContext) {
        const store = context.design.entityStore;
        if (!store) throw new Error(`the design keeps no entity store: ${context.design.noEntityStore ?? ''}`);
        const counter = clusterCounterReason(context.design);
        if (counter !== null) throw new Error(counter);
        this.schema = store.schema;
        this.collections = coreLuaCollections(context.kvlm, this.schema, context.design.collections);
        this.f = coreClusterFunctions(context.design.database);
        this.byName = new Map(context.design.collections.map((c) => [c.name, c]));
    }

    private get db(): string {
        return this.schema.database;
    }

    private call(key: string, argv: readonly string[]): Promise<unknown> {
        return this.context.connection.call(key, argv);
    }

    private async step(): Promise<void> {
        this.steps++;
        if (this.armed && this.fault?.()) {
            this.armed = false;
            throw new WriterKilled();
        }
    }

    /** Reads an entity, its version counter and its pending records from its slot, in one call. */
    async read(entity: string, id: string): Promise<ReadEntity> {
        const key = entityKey(this.db, entity, id);
        const reply = (await this.call(key, ['FCALL_RO', this.f.read, '2', key, key + LOG_SUFFIX])) as unknown[];
        const hash = pairsOf(reply[1]);
        const flat = pairsOf(reply[2]);
        const records = Object.entries(flat)
            .map(([field, text]) => ({ seq: Number(field.slice(1)), record: JSON.parse(text) as ChangeRecord }))
            .sort((a, b) => a.seq - b.seq);
        return { hash: Object.keys(hash).length === 0 ? null : hash, seq: Number(reply[0]), records };
    }

    /** Carries every pending record of an entity, oldest first. */
    async completeEntity(entity: string, id: string): Promise<number> {
        const read = await this.read(entity, id);
        for (const { seq, record } of read.records) await this.carry(record, seq);
        return read.records.length;
    }

    /**
     * Clears the reverse entries no referrer holds: left by a writer that died (or timed out) after adding the entry
     * of a new reference and before its own call. `key` is a reverse hash `kvmod:<db>:{<E>:<id>}:<<Source>.<ref>`.
     */
    async reconcileReverse(key: string): Promise<number> {
        const match = /^kvmod:[^:]+:\{([^:]+):(.*)\}:<([^.]+)\.(.+)$/.exec(key);
        if (match === null) return 0;
        const [, entity, escaped, source, referenceName] = match;
        const id = unescapeId(escaped);
        const reference = this.schema.entities[source]?.references.find((r) => r.name === referenceName);
        if (reference === undefined) return 0;
        let cleared = 0;
        for (const holder of ((await this.call(key, ['HKEYS', key])) as unknown[]).map(String)) {
            await this.completeEntity(source, holder);
            const now = await this.read(source, holder);
            if (storedTargets(reference, now.hash?.[`>${referenceName}`]).includes(id)) continue;
            await this.reverseStep(entity, id, source, referenceName, holder, now.seq, false);
            cleared++;
        }
        return cleared;
    }

    /** Sets one reverse entry (in the target's slot) from the referrer's state at version `seq`. */
    private async reverseStep(
        target: string,
        targetId: string,
        source: string,
        reference: string,
        sourceId: string,
        seq: number,
        present: boolean,
    ): Promise<void> {
        await this.step();
        const key = reverseKey(this.db, target, targetId, source, reference);
        const log = entityKey(this.db, target, targetId) + LOG_SUFFIX;
        await this.call(key, [
            'FCALL',
            this.f.rev,
            '2',
            key,
            log,
            `${source}.${reference}`,
            sourceId,
            String(seq),
            present ? '1' : '0',
        ]);
    }

    /** Carries one change record: reverse entries, rows, index entries, then the acknowledgement. */
    async carry(record: ChangeRecord, seq: number): Promise<void> {
        const { entity, id, old } = record;
        const spec = entitySchema(this.schema, entity);
        const now = await this.read(entity, id);
        // Reverse entries before the rows: a carry that walks them later finds this entity's referrers as they are.
        for (const reference of spec.references) {
            const field = `>${reference.name}`;
            const before = storedTargets(reference, old?.[field]);
            const after = storedTargets(reference, now.hash?.[field]);
            for (const target of new Set([...before, ...after]))
                await this.reverseStep(
                    reference.target,
                    target,
                    entity,
                    reference.name,
                    id,
                    now.seq,
                    after.includes(target),
                );
        }
        for (const collection of this.collections)
            for (let n = 1; n <= collection.nodes.length; n++) {
                if (collection.nodes[n - 1].entity !== entity) continue;
                for (const root of await this.rootsOf(collection, n, id, new Set()))
                    await this.carryRoot(collection, root, n, id, entity, old);
            }
        await this.step();
        const log = entityKey(this.db, entity, id) + LOG_SUFFIX;
        await this.call(log, ['FCALL', this.f.ack, '1', log, String(seq)]);
    }

    /** The roots of the bindings holding `id` at node `n` (the reverse hashes, walked up to the root). */
    private async rootsOf(c: EntityLuaCollection, n: number, id: string, acc: Set<string>): Promise<Set<string>> {
        if (n === 1) {
            acc.add(id);
            return acc;
        }
        const node = c.nodes[n - 1];
        const parent = c.nodes[node.parent - 1];
        const key = reverseKey(this.db, node.entity, id, parent.entity, node.ref);
        const ids = (await this.call(key, ['HKEYS', key])) as unknown[];
        for (const pid of ids) await this.rootsOf(c, node.parent, String(pid), acc);
        return acc;
    }

    /**
     * Makes the rows of one root that bind `id` at node `n` what the entities imply now; the rows its old state
     * bound and its state now does not are tombstoned. Recomputed from fresh reads when a newer writer got there first.
     */
    private async carryRoot(
        c: EntityLuaCollection,
        root: string,
        n: number,
        id: string,
        entity: string,
        old: Record<string, string> | null,
    ): Promise<void> {
        const core = this.byName.get(c.name)!;
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            const cache = new Map<string, Promise<ReadEntity>>();
            const read = (e: string, i: string) => {
                const k = `${e}\0${i}`;
                let found = cache.get(k);
                if (!found) cache.set(k, (found = this.read(e, i)));
                return found;
            };
            const now = await this.bindings(c, root, n, id, read, null);
            const before = await this.bindings(c, root, n, id, read, { entity, id, hash: old });
            const rows = new Map(now.map((b) => this.rowOf(c, b)).map((row) => [row.key, row]));
            const seq = (await read(entity, id)).seq;
            let stale = false;
            for (const b of before) {
                const key = this.rowOf(c, b).key;
                if (rows.has(key)) continue;
                if (!(await this.rowStep(core, key, { [`${entity}:${id}`]: seq }, null))) stale = true;
            }
            for (const row of rows.values())
                if (!(await this.rowStep(core, row.key, row.versions, row.values))) stale = true;
            if (!stale) return;
        }
        throw new Error(`the rows of ${c.name} rooted at ${root} kept changing under ${MAX_ATTEMPTS} attempts`);
    }

    /** Every binding of a collection rooted at `root` with `id` at node `n`; `as` replaces one entity's state. */
    private async bindings(
        c: EntityLuaCollection,
        root: string,
        n: number,
        id: string,
        read: (entity: string, id: string) => Promise<ReadEntity>,
        as: { entity: string; id: string; hash: Record<string, string> | null } | null,
    ): Promise<Bound[][]> {
        const view = async (e: string, i: string): Promise<Bound | null> => {
            const got = await read(e, i);
            const hash = as !== null && as.entity === e && as.id === i ? as.hash : got.hash;
            return hash === null ? null : { entity: e, id: i, hash, seq: got.seq };
        };
        if (n === 1 && root !== id) return [];
        const first = await view(c.nodes[0].entity, root);
        if (first === null) return [];
        const out: Bound[][] = [];
        const b: Bound[] = [first];
        const bind = async (i: number): Promise<void> => {
            if (i >= c.nodes.length) {
                out.push([...b]);
                return;
            }
            const node = c.nodes[i];
            const parent = b[node.parent - 1];
            const reference = entitySchema(this.schema, c.nodes[node.parent - 1].entity).references.find(
                (r) => r.name === node.ref,
            )!;
            for (const target of storedTargets(reference, parent.hash[`>${node.ref}`])) {
                if (n - 1 === i && target !== id) continue;
                const bound = await view(node.entity, target);
                if (bound === null) continue;
                b[i] = bound;
                await bind(i + 1);
            }
            b.length = i;
        };
        await bind(1);
        return out;
    }

    private rowOf(c: EntityLuaCollection, binding: Bound[]): Row {
        const key = c.prefix + c.key.map((part) => keyPart(binding[part.node - 1].hash[part.form], part.iso)).join(':');
        const values = c.fields.map((field) => binding[field.node - 1].hash[field.form]);
        const versions: Record<string, number> = {};
        for (const bound of binding) versions[`${bound.entity}:${bound.id}`] = bound.seq;
        return { key, values, versions };
    }

    /**
     * One row (written, or tombstoned when `values` is null) and its index entries: the row's slot, its partition's,
     * each partition it left, then the row's list of stale partitions. False when a newer writer got there first.
     */
    async rowStep(
        collection: CoreCollection,
        row: string,
        versions: Record<string, number>,
        values: string[] | null,
    ): Promise<boolean> {
        await this.step();
        const map = JSON.stringify(versions);
        const argv = ['FCALL', this.f.row, '1', row, collection.name, map];
        const reply = (await this.call(
            row,
            values === null ? [...argv, 'del'] : [...argv, 'put', ...values],
        )) as unknown[];
        if (String(reply[0]) !== 'ok') return false;
        await this.finishRow(collection, row, map, values, String(reply[1]), reply.slice(2).map(String));
        return true;
    }

    /** The index steps of a row whose row step is done: its partition now, then the partitions it left. */
    async finishRow(
        collection: CoreCollection,
        row: string,
        map: string,
        values: string[] | null,
        tag: string,
        stale: string[],
    ): Promise<void> {
        if (values !== null && tag !== '') {
            await this.step();
            const records = coreRowRecordKey(collection, values);
            await this.call(records, [
                'FCALL',
                this.f.index,
                '1',
                records,
                collection.name,
                row,
                map,
                'put',
                ...values,
            ]);
        }
        if (stale.length === 0) return;
        for (const partition of stale) {
            await this.step();
            const records = `${partition}:rec`;
            await this.call(records, ['FCALL', this.f.index, '1', records, collection.name, row, map, 'del']);
        }
        await this.step();
        await this.call(row, ['FCALL', this.f.rowAck, '1', row, ...stale]);
    }

    /** An entity's state as the semantics take it: instance data holding the entities read (decoded). */
    private addObject(data: InstanceData, entity: string, hash: Record<string, string> | null): void {
        if (hash === null) return;
        const object = decodeEntityHash(this.schema, entity, hash).object as InstanceObject;
        const id = storedId(this.schema, entity, object[entitySchema(this.schema, entity).idName]);
        const list = (data[entity] ??= []);
        if (!list.some((o) => storedId(this.schema, entity, o[entitySchema(this.schema, entity).idName]) === id))
            list.push(object);
    }

    /** Runs one operation (see the module comment); a refusal is the semantics' own. */
    async execute(operation: EntityOperation): Promise<ExecutedOutcome> {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            const outcome = await this.attempt(operation);
            if (outcome !== 'retry') return outcome;
        }
        return { ok: false, code: null, message: `${operation.entity}: the entity kept changing under the operation` };
    }

    private async attempt(operation: EntityOperation): Promise<ExecutedOutcome | 'retry'> {
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
        const data: InstanceData = {};
        for (const name of this.context.model.entities.keys()) data[name] = [];
        const self = await this.read(entity, id);
        this.addObject(data, entity, self.hash);
        // The targets the operation or the entity names (existence), and for a delete the referrers.
        const targets: { entity: string; id: string }[] = [];
        for (const reference of spec.references) {
            for (const t of storedTargets(reference, self.hash?.[`>${reference.name}`]))
                targets.push({ entity: reference.target, id: t });
            for (const t of namedTargets(schema, operation, reference.name, reference.target))
                targets.push({ entity: reference.target, id: t });
        }
        const holders: { entity: string; reference: string; ids: string[] }[] = [];
        if (operation.kind === 'delete')
            for (const referrer of spec.referrers) {
                const key = reverseKey(this.db, entity, id, referrer.entity, referrer.reference);
                const ids = ((await this.call(key, ['HKEYS', key])) as unknown[]).map(String);
                holders.push({ entity: referrer.entity, reference: referrer.reference, ids });
                for (const h of ids) targets.push({ entity: referrer.entity, id: h });
            }
        const reads = new Map<string, ReadEntity>();
        for (const t of targets) {
            const k = `${t.entity}\0${t.id}`;
            if (reads.has(k) || (t.entity === entity && t.id === id)) continue;
            const got = await this.read(t.entity, t.id);
            reads.set(k, got);
            this.addObject(data, t.entity, got.hash);
        }
        const outcome = applyEntityOperation(this.context.model, data, operation, { rules: this.context.rules });
        if (!outcome.ok) return refusal(outcome.refusal);
        // Done: first whatever an earlier writer left of this entity and of its referrers.
        await this.completeEntity(entity, id);
        for (const holder of holders)
            for (const h of holder.ids) {
                await this.completeEntity(holder.entity, h);
                // A reverse entry left by a writer that died before its own call: set from the referrer as it is.
                const now = await this.read(holder.entity, h);
                const reference = entitySchema(schema, holder.entity).references.find(
                    (r) => r.name === holder.reference,
                )!;
                const present = storedTargets(reference, now.hash?.[`>${holder.reference}`]).includes(id);
                if (!present) await this.reverseStep(entity, id, holder.entity, holder.reference, h, now.seq, false);
            }
        // Detached referrers first (each its own operation), then the entity.
        for (const holder of holders)
            for (const h of holder.ids) {
                if (holder.entity === entity && h === id) continue;
                const before = reads.get(`${holder.entity}\0${h}`)!;
                const after = objectOf(schema, outcome.data, holder.entity, h);
                if (after === null || before.hash === null) continue;
                const fields = entityHashFields(schema, holder.entity, after);
                if (sameFields(before.hash, fields)) continue;
                if ((await this.commit(holder.entity, h, before, after)) === 'retry') return 'retry';
            }
        const after = objectOf(schema, outcome.data, entity, id);
        if ((await this.commit(entity, id, self, after, true)) === 'retry') return 'retry';
        return { ok: true };
    }

    /** The entity's call (`begin`), then its carry. */
    private async commit(
        entity: string,
        id: string,
        before: ReadEntity,
        after: InstanceObject | null,
        own = false,
    ): Promise<'retry' | 'done'> {
        const schema = this.schema;
        const spec = entitySchema(schema, entity);
        const key = entityKey(this.db, entity, id);
        const log = key + LOG_SUFFIX;
        const fields = after === null ? [] : entityHashFields(schema, entity, after);
        // New reverse entries first (so that a delete of the target sees the referrer).
        if (after !== null) {
            const now: Record<string, string> = {};
            for (let i = 0; i < fields.length; i += 2) now[fields[i]] = fields[i + 1];
            for (const reference of spec.references) {
                const had = storedTargets(reference, before.hash?.[`>${reference.name}`]);
                for (const t of storedTargets(reference, now[`>${reference.name}`]))
                    if (!had.includes(t))
                        await this.reverseStep(reference.target, t, entity, reference.name, id, before.seq, true);
            }
        }
        const version = Number(before.hash?.[VERSION_FIELD] ?? 0);
        const record: ChangeRecord = { entity, id, old: before.hash };
        const reverse =
            after === null ? spec.referrers.map((r) => reverseKey(this.db, entity, id, r.entity, r.reference)) : [];
        // A reverse hash of an entity referencing itself is deleted with it (the entity was checked as deletable).
        const selfKeys = spec.referrers
            .filter((r) => r.entity === entity)
            .map((r) => reverseKey(this.db, entity, id, r.entity, r.reference));
        const checked = reverse.filter((k) => !selfKeys.includes(k));
        const argv = [
            'FCALL',
            this.f.begin,
            String(2 + checked.length),
            key,
            log,
            ...checked,
            before.hash === null ? '' : String(before.hash[VERSION_FIELD]),
            after === null ? 'del' : 'put',
            JSON.stringify(record),
            ...(after === null ? [] : [...fields, VERSION_FIELD, String(version + 1)]),
        ];
        const reply = await this.call(key, argv);
        if (String(reply) === 'retry') return 'retry';
        if (after === null)
            for (const k of selfKeys) {
                await this.call(k, ['DEL', k]);
            }
        this.armed = own;
        try {
            await this.carry(record, Number(reply));
        } finally {
            this.armed = false;
        }
        return 'done';
    }
}

/** An entity bound at a node: its hash and version counter as read. */
interface Bound {
    entity: string;
    id: string;
    hash: Record<string, string>;
    seq: number;
}

interface Row {
    key: string;
    values: string[];
    versions: Record<string, number>;
}

/** A key part from its stored form (as the entity Function writes it: a key part no field holds as its identity). */
function keyPart(stored: string, iso: string | undefined): string {
    let s = stored;
    if (iso !== undefined) s = isoOf(s, iso);
    return s.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
}

function isoOf(s: string, type: string): string {
    if (type === 'boolean') return s === '1' ? 'true' : 'false';
    const width = type === 'date' ? 8 : type === 'time' ? 6 : 14;
    const d = s.padStart(width, '0');
    if (type === 'date') return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
    if (type === 'time') return `${d.slice(0, 2)}:${d.slice(2, 4)}:${d.slice(4, 6)}`;
    return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}`;
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

function sameFields(hash: Record<string, string>, fields: string[]): boolean {
    const own = Object.keys(hash).filter((k) => k !== VERSION_FIELD);
    if (own.length * 2 !== fields.length) return false;
    for (let i = 0; i < fields.length; i += 2) if (hash[fields[i]] !== fields[i + 1]) return false;
    return true;
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

/** An id as a key holds it (`%`, `:`, `{`, `}` escaped), as stored. */
function unescapeId(escaped: string): string {
    return escaped.replace(/%(25|3A|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
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
