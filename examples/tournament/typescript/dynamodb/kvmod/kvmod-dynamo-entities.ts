// Copied by kvmod from its src/generation/typescript/client-runtime/kvmod-dynamo-entities.ts: the rules of the DynamoDB design have one source. Do not edit.
/**
 * Entity operations on DynamoDB without transactions: the protocol every writer of a DynamoDB design runs (`kvmod
 * workload --target dynamodb` and the tool's tests through src/runtime/dynamodb/dynamo-entities.ts, which imports
 * this file). `TransactWriteItems` is never used (it takes at most 100 items, fewer than one entity change may touch,
 * and dynalite has none). Everything lives in the design's entity table (`<db>_kvmod_entities`, key `_pk`/`_sk`):
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
 * consistent reads, and has the planner apply the operation in memory — a refusal writes nothing; (3) writes its
 * change item; (4) the atomic start: one conditional write of the head (`seq` still the one read, nothing pending)
 * that sets `seq` and `pending`; (5) carries out the steps, each an idempotent conditional write that never puts an
 * older change over a newer one (`_kv <= :seq`); (6) clears `pending` (conditional on it) and deletes the change item.
 *
 * Why one head item rather than one version per entity item: an operation writes several entity items (a delete
 * with `detach` changes its referrers; references change the reverse items of their targets) and rows that copy
 * other entities; without transactions only a single item's conditional write is atomic, so one item orders every
 * change of the design. Operations of one design are therefore serialized (a lost race on the head is retried).
 *
 * A writer that stops after (4) leaves `pending` (and `since`, when it started): the next operation once the lease
 * (`leaseMs`, 5 s) has passed, `kvmod load`, or `completePendingChange` carries the change out (its steps are
 * idempotent). Within the lease other operations wait: a writer paused longer than it and then resuming its steps
 * could put back a row that a newer change deleted (a delete leaves no `_kv` behind). A writer that stops before (4)
 * leaves only an unreferenced change item. Between (4) and (6) a reader of the row tables may see some rows of the
 * new state and some of the old (never a torn item); a row whose key changes may be missing or seen twice for that
 * time. The live check reports a pending change.
 *
 * What an operation does to the entities and the rows is the planner's (`DynamoChangePlanner`): this file knows the
 * items and the order of the writes, not the semantics of the operations. It imports nothing of kvmod's runtime.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
    DeleteCommand,
    GetCommand,
    PutCommand,
    QueryCommand,
    UpdateCommand,
    type DynamoDBDocumentClient,
    type QueryCommandInput,
    type ScanCommandInput,
    ScanCommand,
} from '@aws-sdk/lib-dynamodb';
import type { EntityErrorCode } from './entity-error-codes.js';

/** The attribute of every item the steps write: the number of the change that wrote it. */
export const CHANGE_ATTRIBUTE = '_kv';

/** The head item's key. */
export const HEAD = { _pk: '#head', _sk: '#' };

/** A change item holds at most this much JSON (DynamoDB's items hold 400 KB). */
const CHANGE_BYTES = 350 * 1024;

/** The default lease of a started change (`DynamoEntityProtocol.leaseMs`). */
export const LEASE_MS = 5000;

/** How long an operation keeps trying to start (other writers' changes, lost races on the head), past a lease. */
const PATIENCE_MS = 30_000;

/** An object as the entity item holds it (its attributes and references, by their targets' identifiers). */
export type EntityObject = Record<string, unknown>;

/** Objects by entity name (the shape of kvmod's instance data). */
export type EntityData = Record<string, EntityObject[]>;

/** One object, by its entity and stored identifier. */
export interface EntityRef {
    entity: string;
    id: string;
}

/** One idempotent step of a change: an item of a table to put, or a key to delete. */
export type ChangeStep =
    { table: string; put: Record<string, unknown> } | { table: string; delete: Record<string, unknown> };

/**
 * What an operation came to: done (with the row items it put and deleted), or refused with a stable code and a plain
 * sentence (nothing written).
 */
export type DynamoOutcome =
    { ok: true; rowsWritten: number; rowsDeleted: number } | { ok: false; code: EntityErrorCode; message: string };

/** A change the planner made of an operation: the entities after it, or its refusal. */
export type PlannedChange = { ok: true; data: EntityData } | { ok: false; code: EntityErrorCode; message: string };

/** What an operation means, given the objects it reads: the semantics the protocol carries to the items. */
export interface DynamoChangePlanner<Operation> {
    /** An entity's identifier attribute. */
    idName(entity: string): string;
    /** An entity's references (the reverse items follow them). */
    references(entity: string): readonly { name: string; target: string }[];
    /** The objects an operation starts from: its own and the targets it names. */
    startOf(operation: Operation): EntityRef[];
    /** The object whose version `ifVersion` compares (an update's), or null. */
    versioned(operation: Operation): EntityRef | null;
    /** The entities after the operation, or its refusal. `before` holds every object the operation's rows bind. */
    apply(before: EntityData, operation: Operation): PlannedChange;
    /** The row items to put and delete, every table, to take the rows from `before`'s to `after`'s. */
    rowSteps(before: EntityData, after: EntityData): ChangeStep[];
    /** How a message names the operation: `the update of Book`. */
    describe(operation: Operation): string;
}

/** What a writer needs: the document client, the entity table, the planner. */
export interface DynamoEntityProtocol<Operation> {
    documents: DynamoDBDocumentClient;
    /** The design's entity table (`<db>_kvmod_entities`). */
    entityTable: string;
    planner: DynamoChangePlanner<Operation>;
    /** How long another writer's pending change is left to it before an operation takes it over (default 5 s). */
    leaseMs?: number;
}

/** An operation that could not run (not a refusal): too large a change, or a head kept busy. */
export class DynamoProtocolError extends Error {
    readonly code: 'dynamodb.change-too-large' | 'dynamodb.contention';

    constructor(code: DynamoProtocolError['code'], message: string) {
        super(message);
        this.name = 'DynamoProtocolError';
        this.code = code;
    }
}

/** An identifier as the items name it (a numeric one as its text). */
export function storedIdentity(value: unknown): string {
    return typeof value === 'string' ? value : String(value);
}

/** The entity item key of an object. */
export function entityItemKey(entity: string, id: unknown): { _pk: string; _sk: string } {
    return { _pk: `E#${entity}#${storedIdentity(id)}`, _sk: '#' };
}

function reverseItemKey(target: string, targetId: string, source: string, reference: string, sourceId: string) {
    return { _pk: `R#${target}#${targetId}`, _sk: `${source}.${reference}#${sourceId}` };
}

/** The targets of a reference value (one id, a list, or none). */
function targetsOf(value: unknown): string[] {
    if (value === null || value === undefined) return [];
    return Array.isArray(value) ? value.map(storedIdentity) : [storedIdentity(value)];
}

/** The reverse item keys an object's references imply. */
export function reverseKeys(
    planner: Pick<DynamoChangePlanner<unknown>, 'idName' | 'references'>,
    entity: string,
    object: EntityObject,
): { _pk: string; _sk: string }[] {
    const id = storedIdentity(object[planner.idName(entity)]);
    return planner
        .references(entity)
        .flatMap((reference) =>
            targetsOf(object[reference.name]).map((target) =>
                reverseItemKey(reference.target, target, entity, reference.name, id),
            ),
        );
}

/** An item key as one comparable text. */
export const keyText = (key: Record<string, unknown>) => `${String(key._pk)}\u0000${String(key._sk)}`;

/** Reads every page of a query or scan. */
export async function readAll(
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

/** A consistent scan of a table, every page. */
export function scanTable(documents: DynamoDBDocumentClient, table: string): Promise<Record<string, unknown>[]> {
    return readAll(
        documents,
        (start) =>
            new ScanCommand({
                TableName: table,
                ConsistentRead: true,
                ExclusiveStartKey: start,
            } satisfies ScanCommandInput),
    );
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
    protocol: Omit<DynamoEntityProtocol<unknown>, 'planner'>,
    options: CompletionOptions = {},
): Promise<'none' | 'done' | 'busy'> {
    const { documents, entityTable } = protocol;
    const fault = options.fault;
    const head = (await documents.send(new GetCommand({ TableName: entityTable, Key: HEAD, ConsistentRead: true })))
        .Item;
    const pending = head?.pending as string | undefined;
    if (pending === undefined) return 'none';
    // A writer still carrying its change out is left to it: two writers stepping one change could let the slower
    // one put back a row that a newer change deleted after the faster one finished.
    const since = (head?.since as number | undefined) ?? 0;
    if (pending !== options.own && options.takeOver === false && Date.now() - since < (protocol.leaseMs ?? LEASE_MS))
        return 'busy';
    const change = (
        await documents.send(
            new GetCommand({ TableName: entityTable, Key: { _pk: '#change', _sk: pending }, ConsistentRead: true }),
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
                TableName: entityTable,
                Key: HEAD,
                UpdateExpression: 'REMOVE pending',
                ConditionExpression: 'pending = :pending',
                ExpressionAttributeValues: { ':pending': pending },
            }),
        );
    } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    await documents.send(new DeleteCommand({ TableName: entityTable, Key: { _pk: '#change', _sk: pending } }));
    return 'done';
}

/** An object read from its entity item. */
interface ReadObject {
    entity: string;
    id: string;
    object: EntityObject;
    version: number;
}

/** Reads objects and their referrers with consistent reads, caching what it read. */
class Neighbourhood {
    readonly objects = new Map<string, ReadObject | null>();
    private readonly referrers = new Map<string, EntityRef[]>();

    constructor(private readonly protocol: DynamoEntityProtocol<unknown>) {}

    async object(entity: string, id: string): Promise<ReadObject | null> {
        const key = `${entity}\u0000${id}`;
        if (this.objects.has(key)) return this.objects.get(key)!;
        const item = (
            await this.protocol.documents.send(
                new GetCommand({
                    TableName: this.protocol.entityTable,
                    Key: entityItemKey(entity, id),
                    ConsistentRead: true,
                }),
            )
        ).Item;
        const read =
            item === undefined
                ? null
                : { entity, id, object: JSON.parse(item.object as string) as EntityObject, version: item._v as number };
        this.objects.set(key, read);
        return read;
    }

    async referrersOf(entity: string, id: string): Promise<EntityRef[]> {
        const key = `${entity}\u0000${id}`;
        const known = this.referrers.get(key);
        if (known !== undefined) return known;
        const items = await readAll(
            this.protocol.documents,
            (start) =>
                new QueryCommand({
                    TableName: this.protocol.entityTable,
                    KeyConditionExpression: '#pk = :pk',
                    ExpressionAttributeNames: { '#pk': '_pk' },
                    ExpressionAttributeValues: { ':pk': `R#${entity}#${id}` },
                    ConsistentRead: true,
                    ExclusiveStartKey: start,
                } satisfies QueryCommandInput),
        );
        const found = items.map((item) => {
            const sk = item._sk as string;
            return { entity: sk.slice(0, sk.indexOf('.')), id: sk.slice(sk.indexOf('#') + 1) };
        });
        this.referrers.set(key, found);
        return found;
    }

    /**
     * The data an operation on `start` needs: every referrer back from `start` (the roots of the rows that copy
     * it), then everything those reference (the rows' other nodes). Rows of objects outside are not changed by it.
     */
    async dataAround(start: EntityRef[]): Promise<EntityData> {
        const seen = new Set<string>();
        const backward = [...start];
        const all: EntityRef[] = [];
        while (backward.length > 0) {
            const next = backward.pop()!;
            const key = `${next.entity}\u0000${next.id}`;
            if (seen.has(key)) continue;
            seen.add(key);
            all.push(next);
            backward.push(...(await this.referrersOf(next.entity, next.id)));
        }
        const forward = [...all];
        const data: EntityData = {};
        const placed = new Set<string>();
        while (forward.length > 0) {
            const next = forward.pop()!;
            const key = `${next.entity}\u0000${next.id}`;
            if (placed.has(key)) continue;
            placed.add(key);
            const read = await this.object(next.entity, next.id);
            if (read === null) continue;
            (data[next.entity] ??= []).push(read.object);
            for (const reference of this.protocol.planner.references(next.entity))
                for (const target of targetsOf(read.object[reference.name]))
                    forward.push({ entity: reference.target, id: target });
        }
        return data;
    }
}

/** The objects of entity data by `<Entity>\0<id>`. */
export function objectsByKey(
    planner: Pick<DynamoChangePlanner<unknown>, 'idName'>,
    data: EntityData,
): Map<string, { entity: string; object: EntityObject }> {
    const objects = new Map<string, { entity: string; object: EntityObject }>();
    for (const [entity, list] of Object.entries(data)) {
        const idName = planner.idName(entity);
        for (const object of list) objects.set(`${entity}\u0000${storedIdentity(object[idName])}`, { entity, object });
    }
    return objects;
}

/** The steps that take the stored entities, reverse items and rows from `before` to `after`. */
export function changeSteps(
    protocol: Pick<DynamoEntityProtocol<unknown>, 'entityTable' | 'planner'>,
    before: EntityData,
    after: EntityData,
    versions: ReadonlyMap<string, number>,
): ChangeStep[] {
    const { planner, entityTable } = protocol;
    const steps: ChangeStep[] = [];
    const old = objectsByKey(planner, before);
    const now = objectsByKey(planner, after);
    const reverse = new Map<string, { key: Record<string, unknown>; put: boolean }>();
    for (const [key, { entity, object }] of now) {
        const was = old.get(key);
        if (was !== undefined && JSON.stringify(was.object) === JSON.stringify(object)) continue;
        const id = storedIdentity(object[planner.idName(entity)]);
        steps.push({
            table: entityTable,
            put: { ...entityItemKey(entity, id), object: JSON.stringify(object), _v: (versions.get(key) ?? 0) + 1 },
        });
        for (const k of reverseKeys(planner, entity, was?.object ?? {}))
            reverse.set(keyText(k), { key: k, put: false });
        for (const k of reverseKeys(planner, entity, object)) {
            const text = keyText(k);
            if (reverse.has(text)) reverse.delete(text);
            else reverse.set(text, { key: k, put: true });
        }
    }
    for (const [key, { entity, object }] of old) {
        if (now.has(key)) continue;
        steps.push({ table: entityTable, delete: entityItemKey(entity, key.slice(key.indexOf('\u0000') + 1)) });
        for (const k of reverseKeys(planner, entity, object)) reverse.set(keyText(k), { key: k, put: false });
    }
    for (const { key, put } of reverse.values())
        steps.push(put ? { table: entityTable, put: key } : { table: entityTable, delete: key });
    steps.push(...planner.rowSteps(before, after));
    return steps;
}

/** Options of one operation. */
export interface DynamoOperationOptions {
    /** An update is refused (`entity.conflict`) unless the entity's version is this. */
    ifVersion?: number;
    /** Called after each write (tests kill the writer here by throwing). */
    fault?: FaultHook;
}

/**
 * Runs one entity operation (see the module comment): done, or refused with the planner's code and sentence. An
 * error of the server (or a fault) is thrown; the change then completes later if it started.
 */
export async function executeEntityOperation<Operation>(
    protocol: DynamoEntityProtocol<Operation>,
    operation: Operation,
    options: DynamoOperationOptions = {},
): Promise<DynamoOutcome> {
    const { documents, entityTable, planner } = protocol;
    let writes = 0;
    const fault = () => options.fault?.(++writes);
    const hook = options.fault === undefined ? {} : { fault: () => fault() };
    const lease = protocol.leaseMs ?? LEASE_MS;
    const deadline = Date.now() + PATIENCE_MS + 2 * lease;
    while (Date.now() < deadline) {
        if ((await completePendingChange(protocol, { ...hook, takeOver: false })) === 'busy') {
            await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
            continue;
        }
        const head = (await documents.send(new GetCommand({ TableName: entityTable, Key: HEAD, ConsistentRead: true })))
            .Item;
        if (head?.pending !== undefined) continue;
        const seq = (head?.seq as number | undefined) ?? 0;
        const around = new Neighbourhood(protocol as DynamoEntityProtocol<unknown>);
        const before = await around.dataAround(planner.startOf(operation));
        const versioned = planner.versioned(operation);
        if (versioned !== null && options.ifVersion !== undefined) {
            const read = await around.object(versioned.entity, versioned.id);
            if (read !== null && read.version !== options.ifVersion)
                return {
                    ok: false,
                    code: 'entity.conflict',
                    message: `${versioned.entity} ${JSON.stringify(versioned.id)} is at version ${read.version}, not ${options.ifVersion}`,
                };
        }
        const outcome = planner.apply(before, operation);
        if (!outcome.ok) return { ok: false, code: outcome.code, message: outcome.message };
        const versions = new Map<string, number>();
        for (const [key, read] of around.objects) if (read !== null) versions.set(key, read.version);
        const steps = changeSteps(protocol as DynamoEntityProtocol<unknown>, before, outcome.data, versions);
        const next = seq + 1;
        const changeKey = `${String(next).padStart(12, '0')}#${Math.random().toString(36).slice(2, 10)}`;
        const text = JSON.stringify(steps);
        const bytes = new TextEncoder().encode(text).length;
        if (bytes > CHANGE_BYTES)
            throw new DynamoProtocolError(
                'dynamodb.change-too-large',
                `${planner.describe(operation)} changes ${steps.length} items (${bytes} bytes of steps), more than one change item holds`,
            );
        await documents.send(
            new PutCommand({
                TableName: entityTable,
                Item: { _pk: '#change', _sk: changeKey, seq: next, steps: text },
            }),
        );
        fault();
        try {
            // The atomic start: nobody changed anything since the reads above, and the change is now the pending one.
            await documents.send(
                new UpdateCommand({
                    TableName: entityTable,
                    Key: HEAD,
                    UpdateExpression: 'SET seq = :next, pending = :change, since = :now',
                    ConditionExpression: '(attribute_not_exists(seq) OR seq = :seq) AND attribute_not_exists(pending)',
                    ExpressionAttributeValues: { ':next': next, ':seq': seq, ':change': changeKey, ':now': Date.now() },
                }),
            );
        } catch (error) {
            if (!(error instanceof ConditionalCheckFailedException)) throw error;
            await documents.send(
                new DeleteCommand({ TableName: entityTable, Key: { _pk: '#change', _sk: changeKey } }),
            );
            continue;
        }
        fault();
        await completePendingChange(protocol, { ...hook, own: changeKey });
        const rows = steps.filter((step) => step.table !== entityTable);
        const rowsWritten = rows.filter((step) => 'put' in step).length;
        return { ok: true, rowsWritten, rowsDeleted: rows.length - rowsWritten };
    }
    throw new DynamoProtocolError(
        'dynamodb.contention',
        `${planner.describe(operation)} could not start within ${Math.round((PATIENCE_MS + 2 * lease) / 1000)} s: other writers kept the head item busy`,
    );
}

/** One object and its version (a consistent read), or null. */
export async function readEntity(
    protocol: Omit<DynamoEntityProtocol<unknown>, 'planner'>,
    entity: string,
    id: unknown,
): Promise<{ object: EntityObject; version: number } | null> {
    const item = (
        await protocol.documents.send(
            new GetCommand({ TableName: protocol.entityTable, Key: entityItemKey(entity, id), ConsistentRead: true }),
        )
    ).Item;
    return item === undefined
        ? null
        : { object: JSON.parse(item.object as string) as EntityObject, version: item._v as number };
}
