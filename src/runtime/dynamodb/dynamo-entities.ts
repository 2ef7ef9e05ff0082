/**
 * Entity operations on DynamoDB (issue 31, item 4): the semantics of `applyEntityOperation`, carried to every row
 * item without `TransactWriteItems` (dynalite has none, and on AWS it takes at most 100 items, fewer than one entity
 * change may touch). Everything lives in the design's entity table (`<db>_kvmod_entities`, key `_pk`/`_sk`):
 *
 * - entity item   `E#<Entity>#<stored id>` / `#`: `object` (the object as JSON), `_v` (its version: 1 at creation,
 *                 +1 per operation that changes it), `_kv` (the sequence number of the change that wrote it);
 * - reverse item  `R#<Target>#<target id>` / `<Source>.<reference>#<source id>`: who references whom (the
 *                 referrers a delete must name, and the way back from an entity to the rows that copy it);
 * - head item     `#head` / `#`: `seq` (the last change's number) and `pending` (the change not yet carried out);
 * - change item   `#change` / `<seq>#<nonce>`: the steps of one change: every entity, reverse and row item to put or
 *                 delete, each with the change's number.
 *
 * An operation: (1) completes the pending change, if any; (2) reads the objects its rows bind (the entity, the
 * targets it names, every referrer back to the roots of the rows that copy it, and everything those reference) with
 * consistent reads, and applies the operation in memory — a refusal writes nothing; (3) writes its change item; (4)
 * the atomic start: one conditional write of the head (`seq` still the one read, nothing pending) that sets `seq`
 * and `pending`; (5) carries out the steps, each an idempotent conditional write that never puts an older change
 * over a newer one (`_kv <= :seq`); (6) clears `pending` (conditional on it) and deletes the change item.
 *
 * Why one head item rather than one version per entity item: an operation writes several entity items (a delete
 * with `detach` changes its referrers; references change the reverse items of their targets) and rows that copy
 * other entities; without transactions only a single item's conditional write is atomic, so one item orders every
 * change of the design. Operations of one design are therefore serialized (a lost race on the head is retried).
 *
 * A writer that stops after (4) leaves `pending` (and `since`, when it started): the next operation once the lease
 * (`leaseMs`, 5 s) has passed, `kvmod load`, or `completePendingChange` carries the change out (its steps are
 * idempotent). Within the lease other operations wait: a writer paused longer than it and then resuming its steps
 * could put back a row that a newer change deleted (a delete leaves no `_kv` behind). A writer that stops before (4) leaves only an unreferenced
 * change item. Between (4) and (6) a reader of the row tables may see some rows of the new state and some of the
 * old (never a torn item); a row whose key changes may be missing or seen twice for that time. The live check
 * reports a pending change.
 */
import { ConditionalCheckFailedException, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import {
    BatchWriteCommand,
    DeleteCommand,
    GetCommand,
    PutCommand,
    QueryCommand,
    ScanCommand,
    UpdateCommand,
    type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isNaturalKey, type KvlmModel } from '../../language/generated/ast.js';
import type { DynamoTable, DynamoViewModel } from '../../generation/dynamodb/dynamodb-design.js';
import { KvmodError } from '../../pipeline/errors.js';
import { compareCodePoints } from '../collation.js';
import type { EngineEntityStore, EntityIds, EntityLoadPlan, EntityLoadResult, LiveCheckResult } from '../engine.js';
import { identityOf, indexInstanceData, type InstanceData, type InstanceObject } from '../instance-data.js';
import { materializeCollection, type MaterializedRow } from '../materialize.js';
import type { RuntimeDesign } from '../runtime-design.js';
import type { RuntimeModel } from '../runtime-model.js';
import { applyEntityOperation, type EntityErrorCode, type EntityOperation } from '../entities/entity-operations.js';
import { rowEffects } from '../entities/row-effects.js';
import type { ExecutedOutcome } from '../entities/workload.js';
import { itemOf } from './dynamo-row-items.js';

/** The attribute of every item the steps write: the number of the change that wrote it. */
export const CHANGE_ATTRIBUTE = '_kv';

const HEAD = { _pk: '#head', _sk: '#' };

/** A change item holds at most this much JSON (DynamoDB's items hold 400 KB). */
const CHANGE_BYTES = 350 * 1024;

/** One idempotent step of a change: an item of a table to put, or a key to delete. */
export type ChangeStep =
    { table: string; put: Record<string, unknown> } | { table: string; delete: Record<string, unknown> };

/** What an entity writer needs: the document client, the design, the entities. */
export interface DynamoEntityContext {
    documents: DynamoDBDocumentClient;
    view: DynamoViewModel;
    kvlm: KvlmModel;
    model: RuntimeModel;
    /** How long another writer's pending change is left to it before an operation takes it over (default 5 s). */
    leaseMs?: number;
}

/** The default lease of a started change (`DynamoEntityContext.leaseMs`). */
export const LEASE_MS = 5000;

/** The entity item key of an object. */
export function entityItemKey(entity: string, id: unknown): { _pk: string; _sk: string } {
    return { _pk: `E#${entity}#${identityOf(id)}`, _sk: '#' };
}

function reverseItemKey(target: string, targetId: string, source: string, reference: string, sourceId: string) {
    return { _pk: `R#${target}#${targetId}`, _sk: `${source}.${reference}#${sourceId}` };
}

/** Why a design keeps no entity store on DynamoDB, or null. */
export function dynamoEntitiesUnsupported(kvlm: KvlmModel): string | null {
    const counter = kvlm.collections.find((collection) => !isNaturalKey(collection.strategy));
    return counter === undefined
        ? null
        : `collection ${counter.name} has a counter key, whose numbers shift when entities change (use --key natural)`;
}

/** The targets of a reference value (one id, a list, or none). */
function targetsOf(value: unknown): string[] {
    if (value === null || value === undefined) return [];
    return Array.isArray(value) ? value.map(identityOf) : [identityOf(value)];
}

/** The reverse item keys an object's references imply. */
function reverseKeys(model: RuntimeModel, entity: string, object: InstanceObject) {
    const described = model.entities.get(entity)!;
    const id = identityOf(object[described.idName]);
    return described.references.flatMap((reference) =>
        targetsOf(object[reference.name]).map((target) =>
            reverseItemKey(reference.target, target, entity, reference.name, id),
        ),
    );
}

const keyText = (key: Record<string, unknown>) => `${String(key._pk)}\u0000${String(key._sk)}`;

/** The base-table key of a row item. */
function rowItemKey(table: DynamoTable, item: Record<string, unknown>): Record<string, unknown> {
    const key = table.keys[0];
    return { [key.partitionAttribute]: item[key.partitionAttribute], [key.sortAttribute]: item[key.sortAttribute] };
}

/** Reads every page of a query or scan. */
async function readAll(
    documents: DynamoDBDocumentClient,
    command: (start: Record<string, unknown> | undefined) => QueryCommand | ScanCommand,
): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
        const page = await documents.send(command(start) as QueryCommand);
        items.push(...((page.Items ?? []) as Record<string, unknown>[]));
        start = page.LastEvaluatedKey as Record<string, unknown> | undefined;
    } while (start !== undefined);
    return items;
}

/** Carries out one step; a step that a newer change already passed is skipped. */
async function applyStep(documents: DynamoDBDocumentClient, step: ChangeStep, seq: number): Promise<void> {
    const condition = {
        ConditionExpression: 'attribute_not_exists(#kv) OR #kv <= :seq',
        ExpressionAttributeNames: { '#kv': CHANGE_ATTRIBUTE },
        ExpressionAttributeValues: { ':seq': seq },
    };
    try {
        if ('put' in step)
            await documents.send(
                new PutCommand({ TableName: step.table, Item: { ...step.put, [CHANGE_ATTRIBUTE]: seq }, ...condition }),
            );
        else await documents.send(new DeleteCommand({ TableName: step.table, Key: step.delete, ...condition }));
    } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
}

/** A fault injected between two writes of an operation (tests): called with the number of writes done so far. */
export type FaultHook = (writesDone: number) => void;

/** Who completes a pending change. */
export interface CompletionOptions {
    fault?: FaultHook;
    /** The change this writer started itself (it carries its own change out at once). */
    own?: string;
    /**
     * Take another writer's change over even within its lease (default true: a command after a crash, when the
     * writer is known to be gone). Operations pass false: they leave a live writer its change for the lease.
     */
    takeOver?: boolean;
}

/**
 * Carries out the pending change, if any: its steps, then the head's `pending` cleared. Idempotent. `none`: nothing
 * was pending; `done`: it was carried out; `busy`: another writer's change, within its lease (`takeOver` false).
 */
export async function completePendingChange(
    context: DynamoEntityContext,
    options: CompletionOptions = {},
): Promise<'none' | 'done' | 'busy'> {
    const { documents, view } = context;
    const fault = options.fault;
    const head = (
        await documents.send(new GetCommand({ TableName: view.entityTable, Key: HEAD, ConsistentRead: true }))
    ).Item;
    const pending = head?.pending as string | undefined;
    if (pending === undefined) return 'none';
    // A writer still carrying its change out is left to it: two writers stepping one change could let the slower
    // one put back a row that a newer change deleted after the faster one finished.
    const since = (head?.since as number | undefined) ?? 0;
    if (pending !== options.own && options.takeOver === false && Date.now() - since < (context.leaseMs ?? LEASE_MS))
        return 'busy';
    const change = (
        await documents.send(
            new GetCommand({
                TableName: view.entityTable,
                Key: { _pk: '#change', _sk: pending },
                ConsistentRead: true,
            }),
        )
    ).Item;
    let writes = 0;
    if (change !== undefined) {
        const seq = change.seq as number;
        for (const step of JSON.parse(change.steps as string) as ChangeStep[]) {
            await applyStep(documents, step, seq);
            fault?.(++writes);
        }
    }
    try {
        await documents.send(
            new UpdateCommand({
                TableName: view.entityTable,
                Key: HEAD,
                UpdateExpression: 'REMOVE pending',
                ConditionExpression: 'pending = :pending',
                ExpressionAttributeValues: { ':pending': pending },
            }),
        );
    } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    await documents.send(new DeleteCommand({ TableName: view.entityTable, Key: { _pk: '#change', _sk: pending } }));
    return 'done';
}

/** An object read from its entity item. */
interface ReadObject {
    entity: string;
    id: string;
    object: InstanceObject;
    version: number;
}

/** Reads objects and their referrers with consistent reads, caching what it read. */
class Neighbourhood {
    readonly objects = new Map<string, ReadObject | null>();
    private readonly referrers = new Map<string, { entity: string; id: string }[]>();

    constructor(private readonly context: DynamoEntityContext) {}

    async object(entity: string, id: string): Promise<ReadObject | null> {
        const key = `${entity}\u0000${id}`;
        if (this.objects.has(key)) return this.objects.get(key)!;
        const item = (
            await this.context.documents.send(
                new GetCommand({
                    TableName: this.context.view.entityTable,
                    Key: entityItemKey(entity, id),
                    ConsistentRead: true,
                }),
            )
        ).Item;
        const read =
            item === undefined
                ? null
                : {
                      entity,
                      id,
                      object: JSON.parse(item.object as string) as InstanceObject,
                      version: item._v as number,
                  };
        this.objects.set(key, read);
        return read;
    }

    async referrersOf(entity: string, id: string): Promise<{ entity: string; id: string }[]> {
        const key = `${entity}\u0000${id}`;
        const known = this.referrers.get(key);
        if (known !== undefined) return known;
        const items = await readAll(
            this.context.documents,
            (start) =>
                new QueryCommand({
                    TableName: this.context.view.entityTable,
                    KeyConditionExpression: '#pk = :pk',
                    ExpressionAttributeNames: { '#pk': '_pk' },
                    ExpressionAttributeValues: { ':pk': `R#${entity}#${id}` },
                    ConsistentRead: true,
                    ExclusiveStartKey: start,
                }),
        );
        const found = items.map((item) => {
            const sk = item._sk as string;
            const hash = sk.indexOf('#');
            return { entity: sk.slice(0, sk.indexOf('.')), id: sk.slice(hash + 1) };
        });
        this.referrers.set(key, found);
        return found;
    }

    /**
     * The data an operation on `start` needs: every referrer back from `start` (the roots of the rows that copy
     * it), then everything those reference (the rows' other nodes). Rows of objects outside are not changed by it.
     */
    async dataAround(start: { entity: string; id: string }[]): Promise<InstanceData> {
        const seen = new Set<string>();
        const backward = [...start];
        const all: { entity: string; id: string }[] = [];
        while (backward.length > 0) {
            const next = backward.pop()!;
            const key = `${next.entity}\u0000${next.id}`;
            if (seen.has(key)) continue;
            seen.add(key);
            all.push(next);
            backward.push(...(await this.referrersOf(next.entity, next.id)));
        }
        const forward = [...all];
        const data: InstanceData = {};
        const placed = new Set<string>();
        while (forward.length > 0) {
            const next = forward.pop()!;
            const key = `${next.entity}\u0000${next.id}`;
            if (placed.has(key)) continue;
            placed.add(key);
            const read = await this.object(next.entity, next.id);
            if (read === null) continue;
            (data[next.entity] ??= []).push(read.object);
            for (const reference of this.context.model.entities.get(next.entity)!.references)
                for (const target of targetsOf(read.object[reference.name]))
                    forward.push({ entity: reference.target, id: target });
        }
        sortById(this.context.model, data);
        return data;
    }
}

/** Objects in identifier order, whatever order they were read in. */
function sortById(model: RuntimeModel, data: InstanceData): void {
    for (const [entity, objects] of Object.entries(data)) {
        const idName = model.entities.get(entity)!.idName;
        objects.sort((a, b) => compareCodePoints(identityOf(a[idName]), identityOf(b[idName])));
    }
}

/** The objects an operation starts from: its own and the targets it names. */
function startOf(model: RuntimeModel, operation: EntityOperation): { entity: string; id: string }[] {
    const entity = model.entities.get(operation.entity);
    if (entity === undefined) return [];
    const start: { entity: string; id: string }[] = [];
    if (operation.kind === 'create') {
        const id = operation.object[entity.idName];
        if (id !== undefined && id !== null) start.push({ entity: entity.name, id: identityOf(id) });
        for (const reference of entity.references)
            for (const target of targetsOf(operation.object[reference.name]))
                start.push({ entity: reference.target, id: target });
        return start;
    }
    start.push({ entity: entity.name, id: identityOf(operation.id) });
    const named = (name: string) => entity.references.find((reference) => reference.name === name)?.target;
    if (operation.kind === 'set') {
        const target = named(operation.reference);
        if (target !== undefined) start.push({ entity: target, id: identityOf(operation.target) });
    }
    if (operation.kind === 'add' || operation.kind === 'remove') {
        const target = named(operation.reference);
        if (target !== undefined)
            for (const id of operation.targets) start.push({ entity: target, id: identityOf(id) });
    }
    return start;
}

/** The objects of instance data by `<Entity>\0<id>`. */
function objectsByKey(
    model: RuntimeModel,
    data: InstanceData,
): Map<string, { entity: string; object: InstanceObject }> {
    const objects = new Map<string, { entity: string; object: InstanceObject }>();
    for (const [entity, list] of Object.entries(data)) {
        const idName = model.entities.get(entity)?.idName ?? 'id';
        for (const object of list) objects.set(`${entity}\u0000${identityOf(object[idName])}`, { entity, object });
    }
    return objects;
}

/** The steps that take the stored entities, reverse items and rows from `before` to `after`. */
export function changeSteps(
    context: DynamoEntityContext,
    before: InstanceData,
    after: InstanceData,
    versions: ReadonlyMap<string, number>,
): ChangeStep[] {
    const { model, view } = context;
    const steps: ChangeStep[] = [];
    const old = objectsByKey(model, before);
    const now = objectsByKey(model, after);
    const reverse = new Map<string, { key: Record<string, unknown>; put: boolean }>();
    for (const [key, { entity, object }] of now) {
        const was = old.get(key);
        if (was !== undefined && JSON.stringify(was.object) === JSON.stringify(object)) continue;
        const id = identityOf(object[model.entities.get(entity)!.idName]);
        steps.push({
            table: view.entityTable,
            put: {
                ...entityItemKey(entity, id),
                object: JSON.stringify(object),
                _v: (versions.get(key) ?? 0) + 1,
            },
        });
        for (const k of reverseKeys(model, entity, was?.object ?? {})) reverse.set(keyText(k), { key: k, put: false });
        for (const k of reverseKeys(model, entity, object)) {
            const text = keyText(k);
            if (reverse.has(text)) reverse.delete(text);
            else reverse.set(text, { key: k, put: true });
        }
    }
    for (const [key, { entity, object }] of old) {
        if (now.has(key)) continue;
        steps.push({ table: view.entityTable, delete: entityItemKey(entity, key.slice(key.indexOf('\u0000') + 1)) });
        for (const k of reverseKeys(model, entity, object)) reverse.set(keyText(k), { key: k, put: false });
    }
    for (const { key, put } of reverse.values())
        steps.push(put ? { table: view.entityTable, put: key } : { table: view.entityTable, delete: key });
    for (const effect of rowEffects(model, context.kvlm, before, after)) {
        const table = view.tables.find((t) => t.collection === effect.collection)!;
        const rows = new Map<string, ChangeStep>();
        const keyOf = (item: Record<string, unknown>) => JSON.stringify(rowItemKey(table, item));
        const remove = (row: MaterializedRow) => {
            const item = itemOf(table, row);
            const text = keyOf(item);
            if (!rows.has(text)) rows.set(text, { table: table.name, delete: rowItemKey(table, item) });
        };
        const write = (row: MaterializedRow) => {
            const item = itemOf(table, row);
            rows.set(keyOf(item), { table: table.name, put: item });
        };
        effect.deleted.forEach(remove);
        effect.changed.forEach(({ before: was }) => remove(was));
        effect.written.forEach(write);
        effect.changed.forEach(({ after: now }) => write(now));
        steps.push(...rows.values());
    }
    return steps;
}

/** Options of one operation. */
export interface DynamoOperationOptions {
    /** An update is refused (`entity.conflict`) unless the entity's version is this. */
    ifVersion?: number;
    /** Called after each write (tests kill the writer here by throwing). */
    fault?: FaultHook;
}

/** How long an operation keeps trying to start (other writers' changes, lost races on the head), past a lease. */
const PATIENCE_MS = 30_000;

/**
 * Runs one entity operation on DynamoDB (see the module comment): done, or refused with the code and sentence of
 * `applyEntityOperation`. An error of the server (or a fault) is thrown; the change then completes later if it
 * started.
 */
export async function executeDynamoOperation(
    context: DynamoEntityContext,
    operation: EntityOperation,
    options: DynamoOperationOptions = {},
): Promise<ExecutedOutcome> {
    const { documents, view, model } = context;
    let writes = 0;
    const fault = () => options.fault?.(++writes);
    const hook = options.fault === undefined ? undefined : () => fault();
    const deadline = Date.now() + PATIENCE_MS + 2 * (context.leaseMs ?? LEASE_MS);
    while (Date.now() < deadline) {
        if ((await completePendingChange(context, { fault: hook, takeOver: false })) === 'busy') {
            await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
            continue;
        }
        const head = (
            await documents.send(new GetCommand({ TableName: view.entityTable, Key: HEAD, ConsistentRead: true }))
        ).Item;
        if (head?.pending !== undefined) continue;
        const seq = (head?.seq as number | undefined) ?? 0;
        const around = new Neighbourhood(context);
        const before = await around.dataAround(startOf(model, operation));
        if (operation.kind === 'update' && options.ifVersion !== undefined) {
            const read = await around.object(operation.entity, identityOf(operation.id));
            if (read !== null && read.version !== options.ifVersion)
                return refused(
                    'entity.conflict',
                    `${operation.entity} ${JSON.stringify(identityOf(operation.id))} is at version ${read.version}, not ${options.ifVersion}`,
                );
        }
        const outcome = applyEntityOperation(model, before, operation);
        if (!outcome.ok) return refused(outcome.refusal.code, outcome.refusal.message);
        const versions = new Map<string, number>();
        for (const [key, read] of around.objects) if (read !== null) versions.set(key, read.version);
        const steps = changeSteps(context, before, outcome.data, versions);
        const next = seq + 1;
        const changeKey = `${String(next).padStart(12, '0')}#${Math.random().toString(36).slice(2, 10)}`;
        const text = JSON.stringify(steps);
        if (Buffer.byteLength(text, 'utf8') > CHANGE_BYTES)
            throw new KvmodError(
                `the ${operation.kind} of ${operation.entity} changes ${steps.length} items (${Buffer.byteLength(text, 'utf8')} bytes of steps), more than one change item holds`,
                { code: 'dynamodb.change-too-large' },
            );
        await documents.send(
            new PutCommand({
                TableName: view.entityTable,
                Item: { _pk: '#change', _sk: changeKey, seq: next, steps: text },
            }),
        );
        fault();
        try {
            // The atomic start: nobody changed anything since the reads above, and the change is now the pending one.
            await documents.send(
                new UpdateCommand({
                    TableName: view.entityTable,
                    Key: HEAD,
                    UpdateExpression: 'SET seq = :next, pending = :change, since = :now',
                    ConditionExpression: '(attribute_not_exists(seq) OR seq = :seq) AND attribute_not_exists(pending)',
                    ExpressionAttributeValues: { ':next': next, ':seq': seq, ':change': changeKey, ':now': Date.now() },
                }),
            );
        } catch (error) {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
            await documents.send(
                new DeleteCommand({ TableName: view.entityTable, Key: { _pk: '#change', _sk: changeKey } }),
            );
            continue;
        }
        fault();
        await completePendingChange(context, { fault: hook, own: changeKey });
        return { ok: true };
    }
    throw new KvmodError(
        `the ${operation.kind} of ${operation.entity} could not start within ${Math.round((PATIENCE_MS + 2 * (context.leaseMs ?? LEASE_MS)) / 1000)} s: other writers kept the head item busy`,
        { code: 'dynamodb.contention' },
    );
}

function refused(code: EntityErrorCode, message: string): ExecutedOutcome {
    return { ok: false, code, message };
}

/** One object and its version, or null. */
export async function getDynamoEntity(
    context: DynamoEntityContext,
    entity: string,
    id: unknown,
): Promise<{ object: InstanceObject; version: number } | null> {
    const read = await new Neighbourhood(context).object(entity, identityOf(id));
    return read === null ? null : { object: read.object, version: read.version };
}

/** Everything the entity table holds, read with consistent scans (an absent table holds nothing). */
async function scanEntityTable(context: Omit<DynamoEntityContext, 'kvlm'>): Promise<{
    data: InstanceData;
    versions: Map<string, number>;
    reverse: Map<string, Record<string, unknown>>;
    pending: string | undefined;
    seq: number;
    undecodable: string[];
}> {
    const { documents, view, model } = context;
    let items: Record<string, unknown>[] = [];
    try {
        items = await readAll(
            documents,
            (start) => new ScanCommand({ TableName: view.entityTable, ConsistentRead: true, ExclusiveStartKey: start }),
        );
    } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    const data: InstanceData = {};
    const versions = new Map<string, number>();
    const reverse = new Map<string, Record<string, unknown>>();
    const undecodable: string[] = [];
    let pending: string | undefined;
    let seq = 0;
    for (const item of items) {
        const pk = item._pk as string;
        if (pk === '#head') {
            pending = item.pending as string | undefined;
            seq = (item.seq as number | undefined) ?? 0;
        } else if (pk.startsWith('R#')) reverse.set(keyText(item), { _pk: item._pk, _sk: item._sk });
        else if (pk.startsWith('E#')) {
            const entity = pk.slice(2, pk.indexOf('#', 2));
            let object: InstanceObject | undefined;
            try {
                object = JSON.parse(item.object as string) as InstanceObject;
            } catch {
                object = undefined;
            }
            const described = model.entities.get(entity);
            if (object === undefined || described === undefined) {
                undecodable.push(`entity item ${pk} does not decode as an object of the model`);
                continue;
            }
            (data[entity] ??= []).push(object);
            versions.set(`${entity}\u0000${identityOf(object[described.idName])}`, item._v as number);
        }
    }
    sortById(model, data);
    return { data, versions, reverse, pending, seq, undecodable };
}

/** The row items the entities imply, per table name, by base key. */
function expectedRowItems(
    context: DynamoEntityContext,
    data: InstanceData,
): Map<string, Map<string, Record<string, unknown>>> {
    const index = indexInstanceData(context.model, data);
    const tables = new Map<string, Map<string, Record<string, unknown>>>();
    for (const collection of context.kvlm.collections) {
        const table = context.view.tables.find((t) => t.collection === collection.name)!;
        const items = tables.get(table.name) ?? new Map<string, Record<string, unknown>>();
        tables.set(table.name, items);
        for (const row of materializeCollection(collection, data, index).rows) {
            const item = itemOf(table, row);
            items.set(JSON.stringify(rowItemKey(table, item)), item);
        }
    }
    return tables;
}

/** The base key of an item of a table, as `expectedRowItems` names it. */
function storedRowKey(view: DynamoViewModel, tableName: string, item: Record<string, unknown>): string {
    const table = view.tables.find((t) => t.name === tableName)!;
    return JSON.stringify(rowItemKey(table, item));
}

/** An item's attributes in name order, without the change number, as comparable text. */
function itemText(item: Record<string, unknown>): string {
    return JSON.stringify(
        Object.keys(item)
            .filter((name) => name !== CHANGE_ATTRIBUTE)
            .sort()
            .map((name) => [name, item[name]]),
    );
}

/**
 * Read-only: the entities read back, and every entity, reverse and row item compared, key for key and attribute for
 * attribute, with what the entities imply; a pending change is a difference (the store is between two states).
 */
export async function checkDynamoEntities(context: DynamoEntityContext): Promise<LiveCheckResult> {
    const { documents, view, model } = context;
    const stored = await scanEntityTable(context);
    const differences = [...stored.undecodable];
    if (stored.pending !== undefined)
        differences.push(
            `change ${stored.pending} is pending (a writer stopped before carrying it out): the next operation or kvmod load completes it`,
        );
    const expectedReverse = new Map<string, Record<string, unknown>>();
    for (const [entity, objects] of Object.entries(stored.data))
        for (const object of objects)
            for (const key of reverseKeys(model, entity, object)) expectedReverse.set(keyText(key), key);
    for (const [text, key] of expectedReverse)
        if (!stored.reverse.has(text)) differences.push(`reverse item ${key._pk} / ${key._sk} is missing`);
    for (const [text, key] of stored.reverse)
        if (!expectedReverse.has(text))
            differences.push(`reverse item ${key._pk} / ${key._sk}: no reference implies it`);
    for (const [tableName, expected] of expectedRowItems(context, stored.data)) {
        const actual = new Map<string, Record<string, unknown>>();
        for (const item of await readAll(
            documents,
            (start) => new ScanCommand({ TableName: tableName, ConsistentRead: true, ExclusiveStartKey: start }),
        ))
            actual.set(storedRowKey(view, tableName, item), item);
        for (const [key, item] of expected) {
            const found = actual.get(key);
            if (found === undefined) differences.push(`table ${tableName}: row item ${key} is missing`);
            else if (itemText(found) !== itemText(item))
                differences.push(
                    `table ${tableName}: row item ${key} is ${itemText(found)}; the entities imply ${itemText(item)}`,
                );
        }
        for (const key of actual.keys())
            if (!expected.has(key)) differences.push(`table ${tableName}: row item ${key}: no entity implies it`);
    }
    return { data: stored.data, differences };
}

/** Writes items 25 a `BatchWriteItem` (puts and deletes), unprocessed ones again. */
async function batchWrite(
    documents: DynamoDBDocumentClient,
    table: string,
    requests: (
        { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } }
    )[],
): Promise<void> {
    for (let at = 0; at < requests.length; at += 25) {
        let batch = requests.slice(at, at + 25);
        for (let attempt = 0; batch.length > 0; attempt++) {
            const reply = await documents.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
            batch = (reply.UnprocessedItems?.[table] ?? []) as typeof batch;
            if (batch.length > 0)
                await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt)));
        }
    }
}

/** The entity store of the DynamoDB design (`kvmod load` and `verify --live`). */
export function dynamoEntityStore(documents: DynamoDBDocumentClient): EngineEntityStore<DynamoViewModel> {
    const contextOf = (view: DynamoViewModel, runtime: RuntimeDesign): DynamoEntityContext => ({
        documents,
        view,
        kvlm: runtime.kvlm,
        model: runtime.model,
    });
    return {
        unsupported: (_view, runtime) => dynamoEntitiesUnsupported(runtime.kvlm),
        async planLoad(view, runtime, data, { fresh, sync }): Promise<EntityLoadPlan> {
            const context = contextOf(view, runtime);
            // A change a writer left pending is finished first: the entities it writes are the server's.
            if (!fresh)
                try {
                    await completePendingChange(context);
                } catch (error) {
                    if (!(error instanceof ResourceNotFoundException)) throw error;
                }
            const stored = fresh
                ? {
                      data: {} as InstanceData,
                      versions: new Map<string, number>(),
                      reverse: new Map(),
                      pending: undefined,
                  }
                : await scanEntityTable(context);
            const wanted = objectsByKey(runtime.model, data);
            const held = objectsByKey(runtime.model, stored.data);
            const extra: EntityIds[] = [];
            for (const entity of runtime.model.entities.keys()) {
                const ids = [...held.keys()]
                    .filter((key) => key.startsWith(`${entity}\u0000`) && !wanted.has(key))
                    .map((key) => key.slice(entity.length + 1))
                    .sort();
                if (ids.length > 0) extra.push({ entity, ids });
            }
            if (extra.length > 0 && !sync)
                throw new KvmodError(
                    `the server holds entities of design ${view.database} that the data lacks: ${extra.map((e) => `${e.entity} ${e.ids.length} (${e.ids.slice(0, 10).join(', ')})`).join('; ')}; nothing was written: run with --sync to remove them and their rows, or load data that holds them`,
                    { code: 'load.entities-not-in-data' },
                );
            return {
                extra,
                async write(): Promise<EntityLoadResult> {
                    const table = view.entityTable;
                    const requests: Parameters<typeof batchWrite>[2] = [];
                    let written = 0;
                    for (const [key, { entity, object }] of wanted) {
                        const was = held.get(key);
                        if (was !== undefined && JSON.stringify(was.object) === JSON.stringify(object)) continue;
                        written++;
                        requests.push({
                            PutRequest: {
                                Item: {
                                    ...entityItemKey(entity, key.slice(entity.length + 1)),
                                    object: JSON.stringify(object),
                                    _v: (stored.versions.get(key) ?? 0) + 1,
                                },
                            },
                        });
                    }
                    for (const [key, { entity }] of held)
                        if (!wanted.has(key))
                            requests.push({
                                DeleteRequest: { Key: entityItemKey(entity, key.slice(entity.length + 1)) },
                            });
                    const reverse = new Map<string, Record<string, unknown>>();
                    for (const { entity, object } of wanted.values())
                        for (const k of reverseKeys(runtime.model, entity, object)) reverse.set(keyText(k), k);
                    for (const [text, key] of reverse)
                        if (!stored.reverse.has(text)) requests.push({ PutRequest: { Item: key } });
                    for (const [text, key] of stored.reverse as Map<string, Record<string, unknown>>)
                        if (!reverse.has(text)) requests.push({ DeleteRequest: { Key: key } });
                    await batchWrite(documents, table, requests);
                    // The rows the old entities implied and the data's do not.
                    let rowsDeleted = 0;
                    if (held.size > 0) {
                        const old = expectedRowItems(context, stored.data);
                        const now = expectedRowItems(context, data);
                        for (const [tableName, items] of old) {
                            const stale = [...items.entries()].filter(([key]) => !now.get(tableName)?.has(key));
                            const rowTable = view.tables.find((t) => t.name === tableName)!;
                            await batchWrite(
                                documents,
                                tableName,
                                stale.map(([, item]) => ({ DeleteRequest: { Key: rowItemKey(rowTable, item) } })),
                            );
                            rowsDeleted += stale.length;
                        }
                    }
                    return { written, removed: extra, rowsDeleted };
                },
            };
        },
        check: (view, runtime) => checkDynamoEntities(contextOf(view, runtime)),
    };
}
