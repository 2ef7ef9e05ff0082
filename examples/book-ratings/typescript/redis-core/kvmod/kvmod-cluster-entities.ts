// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-cluster-entities.ts: the rules of the Redis design have one source. Do not edit.
/**
 * Entity operations on a Redis Cluster that always converge (issue 29, docs/design/cluster-entities.md): the steps
 * every writer on a cluster runs — the generated redis-core client (shipped verbatim as
 * `kvmod/kvmod-cluster-entities.ts`), and kvmod's own writer, `kvmod complete` and the tests
 * (src/runtime/redis-core/core-cluster-entities.ts), which import this file. One source for the algorithm; only the
 * check of an operation is the caller's (the client's `checkClusterCall`, kvmod's engine-neutral semantics).
 *
 * One operation on one server is one atomic call of the entity Function. On a cluster its keys sit in many slots, so:
 * 1. The operation is checked over the entities it names, read from their slots; a refused operation writes nothing.
 * 2. The entity's slot, in one call (`begin`): the entity hash written (or deleted) when its version is still the
 *    one read, its version counter raised, and a change record (the entity as it was) appended to its log: the
 *    outbox. From here the change is durable; whoever carries it, the steps below end in the same state.
 * 3. Steps, each one call in one slot, each recomputed from the entities as they are now and guarded by their
 *    versions (the log's counter, which a delete raises too), so a late step never undoes a newer one: the reverse
 *    entries of the entity's references (target's slot); every row the entity is bound in, old and new (row's slot:
 *    written, or tombstoned when no binding makes it any longer); the row's index entries in its partition and
 *    their removal from partitions it left (each partition's slot); the row's list of stale partitions cleared.
 * 4. The record acknowledged (removed from the log). A writer that dies leaves the record: the next operation on the
 *    entity carries it first, and `kvmod complete` carries every record left.
 *
 * Reverse entries a new reference needs are added before the entity's call (so a delete of the target cannot miss
 * the referrer), and removed after it.
 */
import { escapeCoreKeyPart, partitionRecordKey } from './core-partition.js';
import {
    entityKey,
    entitySchema,
    referenceField,
    reverseKey,
    storedTargets,
    VERSION_FIELD,
    type EntityCall,
    type EntityErrorCode,
    type EntityReferrer,
    type EntityStoreSchema,
    type EntityWrite,
} from './entity-store.js';
import type { RedisLogicalType } from './redis-encoding.js';

/** The suffix of an entity's log key (version counter, change records, reverse-entry guards). */
export const LOG_SUFFIX = ':@log';

/** Sends one command to the node serving `key` (node-redis's cluster client, or kvmod's connection). */
export interface ClusterCommands {
    call(key: string, argv: readonly string[]): Promise<unknown>;
}

/** A collection as the steps write it: its rows' key and fields from the entities, its partition. */
export interface ClusterCollection {
    name: string;
    /** The row keys' prefix. */
    prefix: string;
    /** Nodes, root first: entity, parent position (1-based; 0 for the root), reference followed from the parent. */
    nodes: { entity: string; parent: number; ref: string }[];
    /** Key parts: the node and stored form they read; `iso`: the value's identity rather than its stored form. */
    key: { node: number; form: string; iso?: RedisLogicalType }[];
    /** Row fields in write order: node and stored form. */
    fields: { node: number; form: string }[];
    /** The record key of the global partition (`{<collection>}:rec`). */
    recordKey: string;
    /** The fields the collection is partitioned by (1-based positions in `fields`; text or not), or null. */
    partition: { position: number; text: boolean }[] | null;
}

/** The names of the library's one-slot functions (`<db>_c_read`, …), one per role. */
export interface ClusterFunctionNames {
    /** Entity slot, read-only: the entity's hash, its version counter and its pending records. */
    read: string;
    /** Entity slot: the entity written (or deleted) and its change record appended, in one call. */
    begin: string;
    /** Entity slot: the version counter raised (no change), then the entity read, in one call. */
    fence: string;
    /** Entity slot: a change record's steps are done. */
    ack: string;
    /** Target's slot: one reverse entry set from its referrer's state at a version. */
    rev: string;
    /** Row's slot: the row written or tombstoned, guarded by versions. */
    row: string;
    /** Row's slot: partitions cleaned of the row's old entries. */
    rowAck: string;
    /** Partition's slot: the row's index entries written or removed, guarded by versions. */
    index: string;
}

/** What the steps need of a design. */
export interface ClusterDesign {
    schema: EntityStoreSchema;
    collections: readonly ClusterCollection[];
    functions: ClusterFunctionNames;
}

/** An entity as read from its slot: its hash (null when absent), its version counter, its pending records. */
export interface ReadEntity {
    hash: Record<string, string> | null;
    seq: number;
    records: { seq: number; record: ChangeRecord }[];
}

/** A change record: the entity as it was before the operation. */
export interface ChangeRecord {
    entity: string;
    id: string;
    old: Record<string, string> | null;
}

/** An entity (by its stored id). */
export interface EntityRef {
    entity: string;
    id: string;
}

/** What an operation's check sees: the entity, the entities it named, for a delete the holders of its reverse hashes. */
export interface ClusterState {
    self: ReadEntity;
    /** An entity read (the operation's own, a target it names or holds, a holder); undefined when not read. */
    get(entity: string, id: string): ReadEntity | undefined;
    /** For a delete: per referring reference, the ids its reverse hash names (self-references included). */
    holders: { entity: string; reference: string; ids: string[] }[];
}

/**
 * What the check decides: a refusal (the caller's own type), or the hash fields (without `_v`) each changed entity
 * has after the operation — null when it is gone, undefined when unchanged. Holders first, then the entity.
 */
export type ClusterDecision<R> = { refused: R } | { after(entity: string, id: string): string[] | null | undefined };

/** One operation for `ClusterEntitySteps.run`: which entity, what to read, how to check it. */
export interface ClusterOperation<R> {
    entity: string;
    id: string;
    /** Reads the holders of the entity's reverse hashes (a delete). */
    delete: boolean;
    /** The entities the operation names or the entity holds (read for the check), from the entity as read. */
    targets(self: ReadEntity): EntityRef[];
    check(state: ClusterState): ClusterDecision<R>;
}

/** Thrown by an injected fault: the writer dies between two steps. */
export class WriterKilled extends Error {
    constructor() {
        super('the writer was killed between two steps (injected fault)');
        this.name = 'WriterKilled';
    }
}

/** How many times a step or an operation recomputes after a newer writer got there first. */
const MAX_ATTEMPTS = 50;

/** The steps of a design's entity operations on a cluster (see the module comment). */
export class ClusterEntitySteps {
    /** Asked before each step of an operation's own carry: true kills the writer there (tests inject faults). */
    fault?: () => boolean;
    private armed = false;
    /** Steps run (for the tests and the report). */
    steps = 0;
    /** Rows written and tombstoned by the carry in progress (an operation's `EntityWrite`). */
    private written = 0;
    private deleted = 0;

    constructor(
        private readonly commands: ClusterCommands,
        readonly design: ClusterDesign,
    ) {}

    get schema(): EntityStoreSchema {
        return this.design.schema;
    }

    private get db(): string {
        return this.design.schema.database;
    }

    private call(key: string, argv: readonly string[]): Promise<unknown> {
        return this.commands.call(key, argv);
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
        const reply = (await this.call(key, [
            'FCALL_RO',
            this.design.functions.read,
            '2',
            key,
            key + LOG_SUFFIX,
        ])) as unknown[];
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
        const [, entity, escaped, source, referenceName] = match as unknown as [string, string, string, string, string];
        const id = unescapeId(escaped);
        const reference = this.schema.entities[source]?.references.find((r) => r.name === referenceName);
        if (reference === undefined) return 0;
        let cleared = 0;
        for (const holder of ((await this.call(key, ['HKEYS', key])) as unknown[]).map(String)) {
            await this.completeEntity(source, holder);
            if (await this.clearUnheld(entity, id, source, referenceName, holder)) cleared++;
        }
        return cleared;
    }

    /**
     * Clears the reverse entry of `source` `sourceId` in `target` `targetId` when the referrer does not hold the
     * reference. The entry may be a live writer's, added before its own call: the referrer's counter is raised first
     * (`fence`), so that call is refused and that writer reads again; an entry it adds again from the new counter
     * is kept (the removal, from the same counter, is older). True when cleared.
     */
    private async clearUnheld(
        target: string,
        targetId: string,
        source: string,
        reference: string,
        sourceId: string,
    ): Promise<boolean> {
        const spec = entitySchema(this.schema, source).references.find((r) => r.name === reference)!;
        const holds = (hash: Record<string, string> | null) =>
            storedTargets(spec, hash?.[referenceField(reference)]).includes(targetId);
        if (holds((await this.read(source, sourceId)).hash)) return false;
        const key = entityKey(this.db, source, sourceId);
        const reply = (await this.call(key, [
            'FCALL',
            this.design.functions.fence,
            '2',
            key,
            key + LOG_SUFFIX,
        ])) as unknown[];
        const hash = pairsOf(reply[1]);
        if (holds(Object.keys(hash).length === 0 ? null : hash)) return false;
        await this.reverseStep(target, targetId, source, reference, sourceId, Number(reply[0]), false);
        return true;
    }

    /**
     * Sets one reverse entry (in the target's slot) from the referrer's state at version `seq`. With `mustExist`, a
     * target already deleted refuses the entry: 'gone'.
     */
    private async reverseStep(
        target: string,
        targetId: string,
        source: string,
        reference: string,
        sourceId: string,
        seq: number,
        present: boolean,
        mustExist = false,
    ): Promise<string> {
        await this.step();
        const key = reverseKey(this.db, target, targetId, source, reference);
        const entity = entityKey(this.db, target, targetId);
        const reply = await this.call(key, [
            'FCALL',
            this.design.functions.rev,
            '3',
            key,
            entity + LOG_SUFFIX,
            entity,
            `${source}.${reference}`,
            sourceId,
            String(seq),
            present ? '1' : '0',
            mustExist ? '1' : '0',
        ]);
        return String(reply);
    }

    /** Carries one change record: reverse entries, rows, index entries, then the acknowledgement. */
    async carry(record: ChangeRecord, seq: number): Promise<void> {
        const { entity, id, old } = record;
        const spec = entitySchema(this.schema, entity);
        const now = await this.read(entity, id);
        // Reverse entries before the rows: a carry that walks them later finds this entity's referrers as they are.
        for (const reference of spec.references) {
            const field = referenceField(reference.name);
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
        for (const collection of this.design.collections)
            for (let n = 1; n <= collection.nodes.length; n++) {
                if (collection.nodes[n - 1]!.entity !== entity) continue;
                for (const root of await this.rootsOf(collection, n, id, new Set()))
                    await this.carryRoot(collection, root, n, id, entity, old);
            }
        await this.step();
        const log = entityKey(this.db, entity, id) + LOG_SUFFIX;
        await this.call(log, ['FCALL', this.design.functions.ack, '1', log, String(seq)]);
    }

    /** The roots of the bindings holding `id` at node `n` (the reverse hashes, walked up to the root). */
    private async rootsOf(c: ClusterCollection, n: number, id: string, acc: Set<string>): Promise<Set<string>> {
        if (n === 1) {
            acc.add(id);
            return acc;
        }
        const node = c.nodes[n - 1]!;
        const parent = c.nodes[node.parent - 1]!;
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
        c: ClusterCollection,
        root: string,
        n: number,
        id: string,
        entity: string,
        old: Record<string, string> | null,
    ): Promise<void> {
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
                if (!(await this.rowStep(c, key, { [`${entity}:${id}`]: seq }, null))) stale = true;
            }
            for (const row of rows.values())
                if (!(await this.rowStep(c, row.key, row.versions, row.values))) stale = true;
            if (!stale) return;
        }
        throw new Error(`the rows of ${c.name} rooted at ${root} kept changing under ${MAX_ATTEMPTS} attempts`);
    }

    /** Every binding of a collection rooted at `root` with `id` at node `n`; `as` replaces one entity's state. */
    private async bindings(
        c: ClusterCollection,
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
        const first = await view(c.nodes[0]!.entity, root);
        if (first === null) return [];
        const out: Bound[][] = [];
        const b: Bound[] = [first];
        const bind = async (i: number): Promise<void> => {
            if (i >= c.nodes.length) {
                out.push([...b]);
                return;
            }
            const node = c.nodes[i]!;
            const parent = b[node.parent - 1]!;
            const reference = entitySchema(this.schema, c.nodes[node.parent - 1]!.entity).references.find(
                (r) => r.name === node.ref,
            )!;
            for (const target of storedTargets(reference, parent.hash[referenceField(node.ref)])) {
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

    private rowOf(c: ClusterCollection, binding: Bound[]): Row {
        const key =
            c.prefix + c.key.map((part) => keyPart(binding[part.node - 1]!.hash[part.form]!, part.iso)).join(':');
        const values = c.fields.map((field) => binding[field.node - 1]!.hash[field.form]!);
        const versions: Record<string, number> = {};
        for (const bound of binding) versions[`${bound.entity}:${bound.id}`] = bound.seq;
        return { key, values, versions };
    }

    /**
     * One row (written, or tombstoned when `values` is null) and its index entries: the row's slot, its partition's,
     * each partition it left, then the row's list of stale partitions. False when a newer writer got there first.
     */
    async rowStep(
        collection: ClusterCollection,
        row: string,
        versions: Record<string, number>,
        values: string[] | null,
    ): Promise<boolean> {
        await this.step();
        const map = JSON.stringify(versions);
        const argv = ['FCALL', this.design.functions.row, '1', row, collection.name, map];
        const reply = (await this.call(
            row,
            values === null ? [...argv, 'del'] : [...argv, 'put', ...values],
        )) as unknown[];
        if (String(reply[0]) !== 'ok') return false;
        if (values === null) this.deleted++;
        else this.written++;
        await this.finishRow(collection, row, map, values, String(reply[1]), reply.slice(2).map(String));
        return true;
    }

    /** The index steps of a row whose row step is done: its partition now, then the partitions it left. */
    async finishRow(
        collection: ClusterCollection,
        row: string,
        map: string,
        values: string[] | null,
        tag: string,
        stale: string[],
    ): Promise<void> {
        const index = this.design.functions.index;
        if (values !== null && tag !== '') {
            await this.step();
            const records = rowRecordKey(collection, values);
            await this.call(records, ['FCALL', index, '1', records, collection.name, row, map, 'put', ...values]);
        }
        if (stale.length === 0) return;
        for (const partition of stale) {
            await this.step();
            const records = `${partition}:rec`;
            await this.call(records, ['FCALL', index, '1', records, collection.name, row, map, 'del']);
        }
        await this.step();
        await this.call(row, ['FCALL', this.design.functions.rowAck, '1', row, ...stale]);
    }

    /**
     * Runs one operation: reads the entity and what it names, checks it, carries what earlier writers left of the
     * entity and of its holders, then commits each changed entity (holders first) and carries its record. Read and
     * checked again when another writer changed the entity in between.
     */
    async run<R>(
        operation: ClusterOperation<R>,
    ): Promise<{ refused: R } | { write: EntityWrite } | { gaveUp: string }> {
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            const outcome = await this.attempt(operation);
            if (outcome !== 'retry') return outcome;
        }
        return { gaveUp: `${operation.entity}: the entity kept changing under the operation` };
    }

    private async attempt<R>(
        operation: ClusterOperation<R>,
    ): Promise<{ refused: R } | { write: EntityWrite } | 'retry'> {
        const { entity, id } = operation;
        const spec = entitySchema(this.schema, entity);
        const self = await this.read(entity, id);
        const reads = new Map<string, ReadEntity>([[`${entity}\0${id}`, self]]);
        const targets = operation.targets(self);
        const holders: { entity: string; reference: string; ids: string[] }[] = [];
        if (operation.delete)
            for (const referrer of spec.referrers) {
                const key = reverseKey(this.db, entity, id, referrer.entity, referrer.reference);
                const ids = ((await this.call(key, ['HKEYS', key])) as unknown[]).map(String);
                holders.push({ entity: referrer.entity, reference: referrer.reference, ids });
                for (const h of ids) targets.push({ entity: referrer.entity, id: h });
            }
        for (const t of targets) {
            const k = `${t.entity}\0${t.id}`;
            if (!reads.has(k)) reads.set(k, await this.read(t.entity, t.id));
        }
        const decision = operation.check({ self, holders, get: (e, i) => reads.get(`${e}\0${i}`) });
        if ('refused' in decision) return decision;
        // Done: first whatever an earlier writer left of this entity and of its referrers.
        await this.completeEntity(entity, id);
        for (const holder of holders)
            for (const h of holder.ids) {
                await this.completeEntity(holder.entity, h);
                // A reverse entry left by a writer that died before its own call, or added by one that has not made
                // it yet: cleared behind a fence (that writer's call is then refused, and it reads again).
                await this.clearUnheld(entity, id, holder.entity, holder.reference, h);
            }
        // Detached referrers first (each its own change), then the entity.
        const done = new Set<string>();
        for (const holder of holders)
            for (const h of holder.ids) {
                const k = `${holder.entity}\0${h}`;
                if ((holder.entity === entity && h === id) || done.has(k)) continue;
                done.add(k);
                const before = reads.get(k)!;
                const after = decision.after(holder.entity, h);
                if (after === undefined || after === null || before.hash === null) continue;
                if (sameFields(before.hash, after)) continue;
                if ((await this.commit(holder.entity, h, before, after)) === 'retry') return 'retry';
            }
        const after = decision.after(entity, id);
        this.written = 0;
        this.deleted = 0;
        const version = await this.commit(entity, id, self, after ?? null, true);
        if (version === 'retry') return 'retry';
        return { write: { version, rowsWritten: this.written, rowsDeleted: this.deleted } };
    }

    /** The entity's call (`begin`), then its carry. The entity's version after it (0 when deleted), or 'retry'. */
    private async commit(
        entity: string,
        id: string,
        before: ReadEntity,
        fields: string[] | null,
        own = false,
    ): Promise<'retry' | number> {
        const spec = entitySchema(this.schema, entity);
        const key = entityKey(this.db, entity, id);
        const log = key + LOG_SUFFIX;
        // New reverse entries first (so that a delete of the target sees the referrer), each refused when the target
        // is already gone (its delete saw no referrer): then the operation is read and checked again.
        const added: { target: string; id: string; reference: string }[] = [];
        // Entries added for a call that is refused: cleared (behind a fence), the next attempt adds what it needs.
        const retry = async (): Promise<'retry'> => {
            for (const a of added) await this.clearUnheld(a.target, a.id, entity, a.reference, id);
            return 'retry';
        };
        if (fields !== null) {
            const now: Record<string, string> = {};
            for (let i = 0; i < fields.length; i += 2) now[fields[i]!] = fields[i + 1]!;
            for (const reference of spec.references) {
                const field = referenceField(reference.name);
                const had = storedTargets(reference, before.hash?.[field]);
                for (const t of storedTargets(reference, now[field])) {
                    if (had.includes(t)) continue;
                    const itself = reference.target === entity && t === id;
                    const set = await this.reverseStep(
                        reference.target,
                        t,
                        entity,
                        reference.name,
                        id,
                        before.seq,
                        true,
                        !itself,
                    );
                    if (set === 'gone') return retry();
                    added.push({ target: reference.target, id: t, reference: reference.name });
                }
            }
        }
        const version = Number(before.hash?.[VERSION_FIELD] ?? 0);
        const record: ChangeRecord = { entity, id, old: before.hash };
        const reverse =
            fields === null ? spec.referrers.map((r) => reverseKey(this.db, entity, id, r.entity, r.reference)) : [];
        // A reverse hash of an entity referencing itself is deleted with it (the entity was checked as deletable).
        const selfKeys = spec.referrers
            .filter((r) => r.entity === entity)
            .map((r) => reverseKey(this.db, entity, id, r.entity, r.reference));
        const checked = reverse.filter((k) => !selfKeys.includes(k));
        const argv = [
            'FCALL',
            this.design.functions.begin,
            String(2 + checked.length),
            key,
            log,
            ...checked,
            before.hash === null ? '' : String(before.hash[VERSION_FIELD]),
            String(before.seq),
            fields === null ? 'del' : 'put',
            JSON.stringify(record),
            ...(fields === null ? [] : [...fields, VERSION_FIELD, String(version + 1)]),
        ];
        const reply = await this.call(key, argv);
        if (String(reply) === 'retry') return retry();
        if (fields === null)
            for (const k of selfKeys) {
                await this.call(k, ['DEL', k]);
            }
        this.armed = own;
        try {
            await this.carry(record, Number(reply));
        } finally {
            this.armed = false;
        }
        return fields === null ? 0 : version + 1;
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

/** The record key of the partition a row's values (one per field, in field order) fall in. */
export function rowRecordKey(collection: ClusterCollection, values: readonly string[]): string {
    const partition = collection.partition;
    if (partition === null) return collection.recordKey;
    return partitionRecordKey(
        collection.name,
        partition.map((field) => field.text),
        partition.map((field) => values[field.position - 1]!),
    );
}

/** A key part from its stored form (as the entity Function writes it: a key part no field holds as its identity). */
function keyPart(stored: string, iso: RedisLogicalType | undefined): string {
    return escapeCoreKeyPart(iso === undefined ? stored : isoOf(stored, iso));
}

function isoOf(s: string, type: RedisLogicalType): string {
    if (type === 'boolean') return s === '1' ? 'true' : 'false';
    const width = type === 'date' ? 8 : type === 'time' ? 6 : 14;
    const d = s.padStart(width, '0');
    if (type === 'date') return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
    if (type === 'time') return `${d.slice(0, 2)}:${d.slice(2, 4)}:${d.slice(4, 6)}`;
    return `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T${d.slice(8, 10)}:${d.slice(10, 12)}:${d.slice(12, 14)}`;
}

function sameFields(hash: Record<string, string>, fields: string[]): boolean {
    const own = Object.keys(hash).filter((k) => k !== VERSION_FIELD);
    if (own.length * 2 !== fields.length) return false;
    for (let i = 0; i < fields.length; i += 2) if (hash[fields[i]!] !== fields[i + 1]) return false;
    return true;
}

/** A flat HGETALL-like reply as a record (RESP2: a flat list; RESP3: a map or an object). */
export function pairsOf(reply: unknown): Record<string, string> {
    const hash: Record<string, string> = {};
    if (Array.isArray(reply))
        for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
    else if (reply instanceof Map) for (const [field, value] of reply) hash[String(field)] = String(value);
    else if (reply !== null && typeof reply === 'object')
        for (const [field, value] of Object.entries(reply as Record<string, unknown>)) hash[field] = String(value);
    return hash;
}

/** An id as a key holds it (`%`, `:`, `{`, `}` escaped), as stored. */
export function unescapeId(escaped: string): string {
    return escaped.replace(/%(25|3A|7B|7D)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A refusal of the client's check: the code and sentence the entity Function gives on one server. */
export interface ClusterRefusal {
    code: EntityErrorCode;
    message: string;
    referrers?: EntityReferrer[];
}

const quoted = (s: string): string => `"${s}"`;
const named = (entity: string, id: string): string => `${entity} ${quoted(id)}`;

/**
 * The client's operation on a cluster: what the entity Function checks on one server (existence, targets, list
 * rules, referrers, `ifVersion`), over the stored hashes read from their slots, with its codes and sentences; the
 * client has checked the values before (`entity.bad-value`, `entity.unservable-value`, …). The fields each changed
 * entity has after it.
 */
export function clusterCallOperation(schema: EntityStoreSchema, call: EntityCall): ClusterOperation<ClusterRefusal> {
    const { entity, id } = call;
    const spec = entitySchema(schema, entity);
    const refuse = (code: EntityErrorCode, message: string, referrers?: EntityReferrer[]) => ({
        refused: { code, message, ...(referrers === undefined ? {} : { referrers }) },
    });
    const referenceOf = (name: string) => spec.references.find((r) => r.name === name);
    /** The targets a create's fields or a set/add name. */
    const named_ = (): EntityRef[] => {
        if (call.op === 'create')
            return spec.references.flatMap((reference) => {
                const at = call.fields.indexOf(referenceField(reference.name));
                const stored = at >= 0 && at % 2 === 0 ? call.fields[at + 1] : undefined;
                return storedTargets(reference, stored).map((t) => ({ entity: reference.target, id: t }));
            });
        if (call.op === 'set') return [{ entity: referenceOf(call.reference)?.target ?? entity, id: call.target }];
        if (call.op === 'add')
            return call.targets.map((t) => ({ entity: referenceOf(call.reference)?.target ?? entity, id: t }));
        return [];
    };
    const withoutVersion = (hash: Record<string, string>): Record<string, string> => {
        const copy = { ...hash };
        delete copy[VERSION_FIELD];
        return copy;
    };
    const flat = (hash: Record<string, string>): string[] => Object.entries(hash).flat();
    const missing = (state: ClusterState, reference: string, target: string, ids: readonly string[]) => {
        for (const t of ids)
            if (state.get(target, t)?.hash == null)
                return refuse('entity.missing-target', `${entity}.${reference}: ${named(target, t)} does not exist`);
        return null;
    };
    return {
        entity,
        id,
        delete: call.op === 'delete',
        targets: named_,
        check(state) {
            const old = state.self.hash;
            const mine = (fields: string[] | null) => ({
                after: (e: string, i: string) => (e === entity && i === id ? fields : undefined),
            });
            if (call.op === 'create') {
                if (old !== null) return refuse('entity.exists', `${named(entity, id)} exists already`);
                for (const reference of spec.references) {
                    const at = call.fields.indexOf(referenceField(reference.name));
                    const stored = at >= 0 && at % 2 === 0 ? call.fields[at + 1] : undefined;
                    const gone = missing(state, reference.name, reference.target, storedTargets(reference, stored));
                    if (gone) return gone;
                }
                return mine(call.fields);
            }
            if (old === null) return refuse('entity.not-found', `${named(entity, id)} does not exist`);
            const hash = withoutVersion(old);
            switch (call.op) {
                case 'update': {
                    if (call.ifVersion !== undefined && call.ifVersion !== Number(old[VERSION_FIELD]))
                        return refuse(
                            'entity.conflict',
                            `${named(entity, id)} is at version ${old[VERSION_FIELD]}, not ${call.ifVersion}`,
                        );
                    for (let i = 0; i < call.fields.length; i += 2) hash[call.fields[i]!] = call.fields[i + 1]!;
                    return mine(flat(hash));
                }
                case 'set':
                case 'unset':
                case 'add':
                case 'remove': {
                    const r = referenceOf(call.reference)!;
                    const field = referenceField(r.name);
                    const before = storedTargets(r, old[field]);
                    let list: string[];
                    if (call.op === 'add') {
                        for (const t of call.targets)
                            if (before.includes(t))
                                return refuse(
                                    'entity.bad-value',
                                    `${named(entity, id)}.${r.name} lists ${named(r.target, t)} already (a reference lists a target once)`,
                                );
                        const gone = missing(state, r.name, r.target, call.targets);
                        if (gone) return gone;
                        list = [...before, ...call.targets];
                    } else if (call.op === 'remove') {
                        const seen = new Set<string>();
                        for (const t of call.targets) {
                            if (seen.has(t) || !before.includes(t))
                                return refuse(
                                    'entity.bad-value',
                                    `${named(entity, id)}.${r.name} does not list ${named(r.target, t)}`,
                                );
                            seen.add(t);
                        }
                        list = before.filter((t) => !seen.has(t));
                    } else if (call.op === 'set') {
                        const gone = missing(state, r.name, r.target, [call.target]);
                        if (gone) return gone;
                        list = [call.target];
                    } else {
                        if (r.kind === 'one')
                            return refuse(
                                'entity.required-reference',
                                `${entity}.${r.name} is required ([1]): it cannot be unset, only set to another ${r.target}`,
                            );
                        list = [];
                    }
                    if (r.kind === 'many') {
                        if (list.length < r.minItems)
                            return refuse(
                                'entity.required-reference',
                                `${named(entity, id)}.${r.name} must list at least ${r.minItems} ${r.target}`,
                            );
                        if (r.maxItems !== undefined && list.length > r.maxItems)
                            return refuse(
                                'entity.bad-value',
                                `${named(entity, id)}.${r.name} can list at most ${r.maxItems} ${r.target}`,
                            );
                        hash[field] = JSON.stringify(list);
                    } else if (list.length > 0) hash[field] = list[0]!;
                    else delete hash[field];
                    return mine(flat(hash));
                }
                case 'delete':
                    return deleteDecision(schema, call.detach, entity, id, state, refuse);
            }
        },
    };
}

/** A delete: refused while a referrer holds the id (unless detached from `[*]` and `[0..1]` ones), else who changes. */
function deleteDecision(
    schema: EntityStoreSchema,
    detach: boolean,
    entity: string,
    id: string,
    state: ClusterState,
    refuse: (code: EntityErrorCode, message: string, referrers?: EntityReferrer[]) => { refused: ClusterRefusal },
): ClusterDecision<ClusterRefusal> {
    const blocking: EntityReferrer[] = [];
    const changed = new Map<string, Record<string, string>>();
    for (const holder of state.holders) {
        const reference = entitySchema(schema, holder.entity).references.find((r) => r.name === holder.reference)!;
        const field = referenceField(reference.name);
        // Only referrers that hold the id now (an entry a dead writer left is cleared by the steps).
        const ids = holder.ids.filter(
            (h) =>
                !(holder.entity === entity && h === id) &&
                storedTargets(reference, state.get(holder.entity, h)?.hash?.[field]).includes(id),
        );
        if (ids.length === 0) continue;
        if (!detach || reference.kind === 'one' || reference.minItems > 0) {
            const sorted = [...ids].sort();
            blocking.push({
                entity: holder.entity,
                reference: holder.reference,
                count: ids.length,
                sample: sorted.slice(0, 5),
            });
            continue;
        }
        for (const h of ids) {
            const k = `${holder.entity}\0${h}`;
            let hash = changed.get(k);
            if (hash === undefined) {
                hash = { ...state.get(holder.entity, h)!.hash! };
                delete hash[VERSION_FIELD];
                changed.set(k, hash);
            }
            const left = storedTargets(reference, hash[field]).filter((t) => t !== id);
            if (reference.kind === 'many') hash[field] = JSON.stringify(left);
            else delete hash[field];
        }
    }
    if (blocking.length > 0) {
        const texts = blocking.map(
            (b) =>
                `${b.entity}.${b.reference} (${b.count}: ${b.sample.map(quoted).join(', ')}${b.count > b.sample.length ? ', …' : ''})`,
        );
        return refuse(
            'entity.still-referenced',
            `${named(entity, id)} is still referenced by ${texts.join('; ')}: delete or change the referrers first`,
            blocking,
        );
    }
    return {
        after: (e, i) => {
            if (e === entity && i === id) return null;
            const hash = changed.get(`${e}\0${i}`);
            return hash === undefined ? undefined : Object.entries(hash).flat();
        },
    };
}
