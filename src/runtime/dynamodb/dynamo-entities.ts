/**
 * Entity operations on DynamoDB (issue 31, item 4): the protocol of the generated client's runtime
 * (`client-runtime/kvmod-dynamo-entities.ts`: head item, change item, versioned idempotent steps, lease; read its
 * module comment), with the semantics of `applyEntityOperation` and the rows of `rowEffects` as its planner. Beside
 * it, what only the tool does: the live check (every entity, reverse and row item compared with what the entities
 * imply) and `kvmod load`'s entity items.
 */
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isNaturalKey, type KvlmModel } from '../../language/generated/ast.js';
import type { DynamoTable, DynamoViewModel } from '../../generation/dynamodb/dynamodb-design.js';
import {
    CHANGE_ATTRIBUTE,
    changeSteps as protocolChangeSteps,
    completePendingChange as completeChange,
    DynamoProtocolError,
    entityItemKey,
    keyText,
    LEASE_MS,
    objectsByKey as protocolObjectsByKey,
    readEntity,
    reverseKeys as protocolReverseKeys,
    scanTable,
    type ChangeStep,
    type CompletionOptions,
    type DynamoChangePlanner,
    type DynamoEntityProtocol,
    type DynamoOperationOptions,
} from '../../generation/typescript/client-runtime/kvmod-dynamo-entities.js';
import {
    designPlanner,
    DynamoRowError,
    EntityError,
    runEntityOperation,
    type DynamoEntityDesign,
    type DynamoEntityOperation,
} from '../../generation/typescript/client-runtime/kvmod-dynamo-operations.js';
import { dynamoEntityDesign } from '../../generation/dynamodb/dynamodb-entity-design.js';
import { KvmodError } from '../../pipeline/errors.js';
import { compareCodePoints } from '../collation.js';
import type { EngineEntityStore, EntityIds, EntityLoadPlan, EntityLoadResult, LiveCheckResult } from '../engine.js';
import { identityOf, indexInstanceData, type InstanceData, type InstanceObject } from '../instance-data.js';
import { materializeCollection, type MaterializedRow } from '../materialize.js';
import type { RuntimeDesign } from '../runtime-design.js';
import type { RuntimeModel } from '../runtime-model.js';
import { applyEntityOperation, type EntityOperation } from '../entities/entity-operations.js';
import { rowEffects } from '../entities/row-effects.js';
import type { ExecutedOutcome } from '../entities/workload.js';
import { itemOf } from './dynamo-row-items.js';

export { CHANGE_ATTRIBUTE, entityItemKey, LEASE_MS };
export type { ChangeStep, CompletionOptions, DynamoOperationOptions };
export type { FaultHook } from '../../generation/typescript/client-runtime/kvmod-dynamo-entities.js';

/** What an entity writer needs: the document client, the design, the entities. */
export interface DynamoEntityContext {
    documents: DynamoDBDocumentClient;
    view: DynamoViewModel;
    kvlm: KvlmModel;
    model: RuntimeModel;
    /** How long another writer's pending change is left to it before an operation takes it over (default 5 s). */
    leaseMs?: number;
}

/** Why a design keeps no entity store on DynamoDB, or null. */
export function dynamoEntitiesUnsupported(kvlm: KvlmModel): string | null {
    const counter = kvlm.collections.find((collection) => !isNaturalKey(collection.strategy));
    return counter === undefined
        ? null
        : `collection ${counter.name} has a counter key, whose numbers shift when entities change (use --key natural)`;
}

/** The base-table key of a row item. */
function rowItemKey(table: DynamoTable, item: Record<string, unknown>): Record<string, unknown> {
    const key = table.keys[0];
    return { [key.partitionAttribute]: item[key.partitionAttribute], [key.sortAttribute]: item[key.sortAttribute] };
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

/** The targets of a reference value (one id, a list, or none). */
function targetsOf(value: unknown): string[] {
    if (value === null || value === undefined) return [];
    return Array.isArray(value) ? value.map(identityOf) : [identityOf(value)];
}

/** The row items to put and delete for the row changes from `before` to `after`. */
function rowSteps(context: DynamoEntityContext, before: InstanceData, after: InstanceData): ChangeStep[] {
    const steps: ChangeStep[] = [];
    for (const effect of rowEffects(context.model, context.kvlm, before, after)) {
        const table = context.view.tables.find((t) => t.collection === effect.collection)!;
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

/**
 * The oracle planner: the in-memory semantics of `applyEntityOperation` and the rows of `rowEffects`, which the
 * design planner (`designPlanner`, what the generated client and the tool's writers run) is tested against.
 */
export function oraclePlanner(context: DynamoEntityContext): DynamoChangePlanner<EntityOperation> {
    const { model } = context;
    return {
        idName: (entity) => model.entities.get(entity)?.idName ?? 'id',
        references: (entity) => model.entities.get(entity)?.references ?? [],
        startOf: (operation) => startOf(model, operation),
        versioned: (operation) =>
            operation.kind === 'update' ? { entity: operation.entity, id: identityOf(operation.id) } : null,
        apply(before, operation) {
            const data = before as InstanceData;
            sortById(model, data);
            const outcome = applyEntityOperation(model, data, operation);
            return outcome.ok
                ? { ok: true, data: outcome.data }
                : { ok: false, code: outcome.refusal.code, message: outcome.refusal.message };
        },
        rowSteps: (before, after) => rowSteps(context, before as InstanceData, after as InstanceData),
        describe: (operation) => `the ${operation.kind} of ${operation.entity}`,
    };
}

/** The entity design of a context: what the generated client of the same design embeds. */
export function contextDesign(context: Omit<DynamoEntityContext, 'documents'>): DynamoEntityDesign {
    const design = dynamoEntityDesign(context.view, context.kvlm, context.model.entities.values());
    if (design === null)
        throw new KvmodError(`the design keeps no entity store: ${dynamoEntitiesUnsupported(context.kvlm)}`, {
            code: 'entity-store.unsupported',
        });
    return design;
}

/** The protocol of a context (the client runtime's writer and planner, from the design data the client embeds). */
export function dynamoProtocol(context: DynamoEntityContext): DynamoEntityProtocol<EntityOperation> {
    return {
        documents: context.documents,
        entityTable: context.view.entityTable,
        planner: designPlanner(contextDesign(context)) as DynamoChangePlanner<EntityOperation>,
        ...(context.leaseMs === undefined ? {} : { leaseMs: context.leaseMs }),
    };
}

/** The reverse item keys an object's references imply. */
function reverseKeys(model: RuntimeModel, entity: string, object: InstanceObject) {
    return protocolReverseKeys(
        { idName: (e) => model.entities.get(e)!.idName, references: (e) => model.entities.get(e)!.references },
        entity,
        object,
    );
}

/** The objects of instance data by `<Entity>\0<id>`. */
function objectsByKey(model: RuntimeModel, data: InstanceData) {
    return protocolObjectsByKey({ idName: (entity) => model.entities.get(entity)?.idName ?? 'id' }, data) as Map<
        string,
        { entity: string; object: InstanceObject }
    >;
}

/** The steps that take the stored entities, reverse items and rows from `before` to `after`. */
export function changeSteps(
    context: DynamoEntityContext,
    before: InstanceData,
    after: InstanceData,
    versions: ReadonlyMap<string, number>,
): ChangeStep[] {
    return protocolChangeSteps(dynamoProtocol(context), before, after, versions);
}

/**
 * Carries out the pending change, if any (the client runtime's `completePendingChange`). `none`: nothing was pending;
 * `done`: it was carried out; `busy`: another writer's change, within its lease (`takeOver` false).
 */
export function completePendingChange(
    context: DynamoEntityContext,
    options: CompletionOptions = {},
): Promise<'none' | 'done' | 'busy'> {
    return completeChange(dynamoProtocol(context), options);
}

/**
 * Runs one entity operation on DynamoDB through the generated client's entity API (`runEntityOperation`, with the
 * design data its client embeds): done, or refused with its code and sentence (those of `applyEntityOperation`). An
 * error of the server (or a fault) is thrown; the change then completes later if it started.
 */
export async function executeDynamoOperation(
    context: DynamoEntityContext,
    operation: EntityOperation,
    options: DynamoOperationOptions = {},
): Promise<ExecutedOutcome> {
    try {
        await runEntityOperation(context.documents, contextDesign(context), operation as DynamoEntityOperation, {
            ...options,
            ...(context.leaseMs === undefined ? {} : { leaseMs: context.leaseMs }),
        });
        return { ok: true };
    } catch (error) {
        if (error instanceof EntityError) return { ok: false, code: error.code, message: error.message };
        if (error instanceof DynamoProtocolError || error instanceof DynamoRowError)
            throw new KvmodError(error.message, { code: error.code });
        throw error;
    }
}

/** One object and its version, or null. */
export async function getDynamoEntity(
    context: DynamoEntityContext,
    entity: string,
    id: unknown,
): Promise<{ object: InstanceObject; version: number } | null> {
    const read = await readEntity(dynamoProtocol(context), entity, identityOf(id));
    return read === null ? null : { object: read.object as InstanceObject, version: read.version };
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
        items = await scanTable(documents, view.entityTable);
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
        for (const item of await scanTable(documents, tableName)) actual.set(storedRowKey(view, tableName, item), item);
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
