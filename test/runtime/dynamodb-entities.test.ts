/**
 * Entity operations on DynamoDB (dynalite: no transactions), run through the generated client's entity code
 * (`executeDynamoOperation` calls its runtime's `runEntityOperation` with the design data the client embeds): random
 * seeded sequences (invalid operations among them, refused with the oracle's code and sentence), the live check every
 * few operations, the writer killed at random
 * writes (an injected fault after write k: the change item, the head's conditional write, or any step), the change
 * completed by the next operation or by `completePendingChange`, then the live check: every entity, reverse and row
 * item exactly what the oracle's entities imply, and those entities the oracle's. A failing sequence is shrunk (the
 * writers' kill points kept with their operations) and printed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { buildDynamoViewModel } from '../../src/generation/dynamodb/dynamodb-design.js';
import type { DynamoViewModel } from '../../src/generation/dynamodb/dynamodb-view-model.js';
import { dynamoEngine } from '../../src/runtime/dynamodb/dynamo-engine.js';
import {
    checkDynamoEntities,
    completePendingChange,
    executeDynamoOperation,
    getDynamoEntity,
    type DynamoEntityContext,
} from '../../src/runtime/dynamodb/dynamo-entities.js';
import { applyEntityOperation, type EntityOperation } from '../../src/runtime/entities/entity-operations.js';
import { randomEntityOperations } from '../../src/runtime/entities/random-operations.js';
import { entityDifferences, operationsJson } from '../../src/runtime/entities/workload.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import type { InstanceData } from '../../src/runtime/instance-data.js';
import { loadRuntimeDesign, type RuntimeDesign } from '../../src/runtime/runtime-design.js';
import { startDynalite, type DynaliteTestServer } from '../support/dynalite-server.js';

let server: DynaliteTestServer;
let documents: DynamoDBDocumentClient;
let dir: string;

beforeAll(async () => {
    server = await startDynalite();
    documents = DynamoDBDocumentClient.from(
        new DynamoDBClient({
            endpoint: server.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
        }),
    );
    dir = await mkdtemp(join(tmpdir(), 'kvmod-dynamodb-entities-'));
});

afterAll(async () => {
    documents?.destroy();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** Operations per example (a campaign: KVMOD_DYNAMO_OPERATIONS=2000). */
const OPERATIONS = Number(process.env.KVMOD_DYNAMO_OPERATIONS ?? 120);

/** The live check runs after every this many operations. */
const LIVE_CHECK_EVERY = 20;

/** The writer dies here. */
class Killed extends Error {}

/** One operation of a run, and the write after which its writer is killed (0: never). */
interface Planned {
    operation: EntityOperation;
    killAfter: number;
    /** After a kill: complete at once (a command after the crash) or leave it to the next operation. */
    completeAtOnce: boolean;
}

/** mulberry32, as the data generator's. */
function rng(seed: number): () => number {
    let state = seed >>> 0;
    return () => {
        state = (state + 0x6d2b79f5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

async function freshContext(runtime: RuntimeDesign, view: DynamoViewModel): Promise<DynamoEntityContext> {
    const session = await dynamoEngine.connect({ urls: [server.url] });
    try {
        await session.prepareSchema(view, 'fresh');
    } finally {
        await session.close();
    }
    // A short lease: a killed writer's change left to the next operation is taken over after 100 ms.
    return { documents, view, kvlm: runtime.kvlm, model: runtime.model, leaseMs: 100 };
}

async function headSeq(view: DynamoViewModel): Promise<number> {
    const head = await documents.send(
        new GetCommand({ TableName: view.entityTable, Key: { _pk: '#head', _sk: '#' }, ConsistentRead: true }),
    );
    return (head.Item?.seq as number | undefined) ?? 0;
}

/** Runs a plan on emptied tables; the first problem found, or null. */
async function runPlan(
    runtime: RuntimeDesign,
    view: DynamoViewModel,
    plan: readonly Planned[],
    killed = { started: 0 },
): Promise<string | null> {
    const context = await freshContext(runtime, view);
    let oracle: InstanceData = {};
    for (const [at, { operation, killAfter, completeAtOnce }] of plan.entries()) {
        const expected = applyEntityOperation(runtime.model, oracle, operation);
        const before = await headSeq(view);
        try {
            const outcome = await executeDynamoOperation(context, operation, {
                fault: (writes) => {
                    if (writes === killAfter) throw new Killed();
                },
            });
            const want = expected.ok ? 'done' : `refused ${expected.refusal.code}`;
            const got = outcome.ok ? 'done' : `refused ${outcome.code}`;
            if (want !== got) return `operation ${at} (${JSON.stringify(operation)}): ${got}, the oracle ${want}`;
            if (expected.ok) oracle = expected.data;
            // The live check every few operations, where nothing is pending: every item what the entities imply.
            if ((at + 1) % LIVE_CHECK_EVERY === 0) {
                const live = await checkDynamoEntities(context);
                if (live.differences.length > 0)
                    return `live check after operation ${at}: ${live.differences.slice(0, 5).join('; ')}`;
                const entities = entityDifferences(runtime.model, oracle, live.data);
                if (entities.length > 0) return `entities after operation ${at}: ${entities.slice(0, 5).join('; ')}`;
            }
        } catch (error) {
            if (!(error instanceof Killed)) throw error;
            // The head's seq moves only with the atomic start: after it, the change must complete.
            if ((await headSeq(view)) > before) {
                if (!expected.ok) return `operation ${at}: refused by the oracle, yet it started a change`;
                oracle = expected.data;
                killed.started++;
            }
            if (completeAtOnce) await completePendingChange(context);
        }
    }
    await completePendingChange(context);
    const { data, differences } = await checkDynamoEntities(context);
    if (differences.length > 0) return `live check: ${differences.slice(0, 5).join('; ')}`;
    const entities = entityDifferences(runtime.model, oracle, data);
    return entities.length > 0 ? `entities: ${entities.slice(0, 5).join('; ')}` : null;
}

describe('entity operations on DynamoDB (dynalite), writers killed between writes', () => {
    test.each([
        ['examples/airflights/airflights.pidm', 'safe', 11],
        ['examples/airflights/airflights.pidm', 'none', 12],
        ['examples/book-ratings/book-ratings.pidm', 'safe', 13],
    ] as const)(
        '%s, merge %s, seed %i: 0 differences from the oracle after completion',
        async (model, merge, seed) => {
            const runtime = await loadRuntimeDesign(model, { merge });
            const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 2 });
            const random = rng(seed);
            const plan: Planned[] = randomEntityOperations(runtime.model, seed, OPERATIONS, {
                design: runtime.kvlm,
                idsPerEntity: 3,
            }).map(({ operation }) => ({
                operation,
                killAfter: random() < 0.3 ? 1 + Math.floor(random() * 8) : 0,
                completeAtOnce: random() < 0.5,
            }));
            expect(plan.filter((p) => p.killAfter > 0).length).toBeGreaterThan(20);
            const killed = { started: 0 };
            const problem = await runPlan(runtime, view, plan, killed);
            // Kills after the atomic start leave a change for the next operation or the command to complete.
            expect(problem === null ? killed.started : 99).toBeGreaterThan(5);
            if (problem !== null) {
                const smallest = await shrinkAsync(
                    plan,
                    async (candidate) => (await runPlan(runtime, view, candidate)) !== null,
                );
                throw new Error(
                    `${problem}\nshrunk to: ${operationsJson(smallest.map((p) => p.operation))} kills ${JSON.stringify(smallest.map((p) => p.killAfter))}`,
                );
            }
        },
        600_000,
    );

    test('an update with ifVersion other than the entity version is refused as entity.conflict, and writes nothing', async () => {
        const runtime = await loadRuntimeDesign('examples/book-ratings/book-ratings.pidm', { merge: 'safe' });
        const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 2 });
        const context = await freshContext(runtime, view);
        const plan = randomEntityOperations(runtime.model, 3, 60, { design: runtime.kvlm, idsPerEntity: 2 });
        let oracle: InstanceData = {};
        for (const { operation } of plan) {
            const expected = applyEntityOperation(runtime.model, oracle, operation);
            await executeDynamoOperation(context, operation);
            if (expected.ok) oracle = expected.data;
        }
        const entity = runtime.model.entities.get('Book') ?? [...runtime.model.entities.values()][0];
        const object = (oracle[entity.name] ?? [])[0];
        expect(object).toBeDefined();
        const id = object[entity.idName] as string;
        const stored = await getDynamoEntity(context, entity.name, id);
        expect(stored?.object).toEqual(object);
        const seq = await headSeq(view);
        const outcome = await executeDynamoOperation(
            context,
            { kind: 'update', entity: entity.name, id, patch: {} },
            { ifVersion: stored!.version + 1 },
        );
        expect(outcome).toMatchObject({ ok: false, code: 'entity.conflict' });
        expect(await headSeq(view)).toBe(seq);
    }, 300_000);

    test("another writer's started change is left to it for its lease, then taken over and completed", async () => {
        const runtime = await loadRuntimeDesign('examples/book-ratings/book-ratings.pidm', { merge: 'safe' });
        const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 2 });
        const context = { ...(await freshContext(runtime, view)), leaseMs: 1500 };
        const operations = randomEntityOperations(runtime.model, 4, 40, { design: runtime.kvlm, idsPerEntity: 2 });
        let oracle: InstanceData = {};
        let at = 0;
        // Up to the first operation that is done: killed right after its atomic start.
        for (; at < operations.length; at++) {
            const expected = applyEntityOperation(runtime.model, oracle, operations[at].operation);
            if (!expected.ok) continue;
            oracle = expected.data;
            await expect(
                executeDynamoOperation(context, operations[at].operation, {
                    fault: (writes) => {
                        if (writes === 2) throw new Killed();
                    },
                }),
            ).rejects.toBeInstanceOf(Killed);
            break;
        }
        const next = operations[at + 1].operation;
        const expected = applyEntityOperation(runtime.model, oracle, next);
        const started = Date.now();
        const outcome = await executeDynamoOperation(context, next);
        expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
        expect(outcome.ok).toBe(expected.ok);
        const { data, differences } = await checkDynamoEntities(context);
        expect(differences).toEqual([]);
        expect(entityDifferences(runtime.model, expected.ok ? expected.data : oracle, data)).toEqual([]);
    }, 120_000);

    test('the live check names a pending change and a row item no entity implies', async () => {
        const runtime = await loadRuntimeDesign('examples/airflights/airflights.pidm', { merge: 'safe' });
        const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 2 });
        const context = await freshContext(runtime, view);
        const [first] = randomEntityOperations(runtime.model, 1, 1, { design: runtime.kvlm, idsPerEntity: 2 });
        await expect(
            executeDynamoOperation(context, first.operation, {
                fault: (writes) => {
                    if (writes === 2) throw new Killed();
                },
            }),
        ).rejects.toBeInstanceOf(Killed);
        const table = view.tables[0];
        await documents.send(
            new PutCommand({
                TableName: table.name,
                Item: { [table.keys[0].partitionAttribute]: 'stray', [table.keys[0].sortAttribute]: 'stray' },
            }),
        );
        const { differences } = await checkDynamoEntities(context);
        expect(differences).toContainEqual(expect.stringMatching(/^change \d{12}#\w+ is pending/));
        expect(differences).toContainEqual(
            `table ${table.name}: row item {"${table.keys[0].partitionAttribute}":"stray","${table.keys[0].sortAttribute}":"stray"}: no entity implies it`,
        );
    }, 120_000);
});

describe('kvmod load and verify --live --target dynamodb', () => {
    test('load writes the entity items; verify --live finds 0 differences, then names a row changed behind its back', async () => {
        const model = 'examples/airflights/airflights.pidm';
        const runtime = await loadRuntimeDesign(model, { merge: 'safe' });
        const data = generateInstanceData(runtime.model, { scale: 10, seed: 4 });
        const file = join(dir, 'data.json');
        await writeFile(file, JSON.stringify(data));
        // The tables of the tests above are gone: the load creates every table.
        const admin = new DynamoDBClient({
            endpoint: server.url,
            region: 'us-east-1',
            credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
        });
        for (const name of (await admin.send(new ListTablesCommand({}))).TableNames ?? [])
            await admin.send(new DeleteTableCommand({ TableName: name }));
        admin.destroy();
        const common = ['--target', 'dynamodb', '--endpoint', server.url, '--page-size', '2'];
        const loaded = await kvmod(['load', model, '--data', file, '--recreate', ...common]);
        const total = Object.values(data).reduce((sum, objects) => sum + objects.length, 0);
        expect(loaded.stderr).toContain('table airflights_kvmod_entities: created');
        expect(loaded.stderr).toContain(`entity store: ${total} entities written (new or changed)`);
        expect(loaded.code).toBe(0);
        const live = await kvmod(['verify', model, '--live', ...common, '--format', 'json']);
        const report = JSON.parse(live.stdout) as { ok: boolean; differences: string[]; entities: number };
        expect(report.differences).toEqual([]);
        expect(report.ok).toBe(true);
        expect(report.entities).toBe(total);
        const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 2 });
        const table = view.tables[0];
        await documents.send(
            new PutCommand({
                TableName: table.name,
                Item: { [table.keys[0].partitionAttribute]: 'stray', [table.keys[0].sortAttribute]: 'stray' },
            }),
        );
        const after = await kvmod(['verify', model, '--live', ...common, '--format', 'json']);
        expect((JSON.parse(after.stdout) as { differences: string[] }).differences).toEqual([
            `table ${table.name}: row item {"${table.keys[0].partitionAttribute}":"stray","${table.keys[0].sortAttribute}":"stray"}: no entity implies it`,
        ]);
        expect(after.code).toBe(1);
        // A writer killed after its atomic start: kvmod load finishes its change before it compares the entities.
        const entity = [...runtime.model.entities.values()].find(
            (e) => e.idType === 'text' && (data[e.name] ?? []).length > 0,
        )!;
        const copy = { ...data[entity.name][0], [entity.idName]: 'zz-new' };
        for (const reference of entity.references)
            if (reference.kind === 'optional') copy[reference.name] = null;
            else if (reference.kind === 'many' && reference.minItems === 0) copy[reference.name] = [];
        const context: DynamoEntityContext = { documents, view, kvlm: runtime.kvlm, model: runtime.model };
        await expect(
            executeDynamoOperation(
                context,
                { kind: 'create', entity: entity.name, object: copy },
                {
                    fault: (writes) => {
                        if (writes === 2) throw new Killed();
                    },
                },
            ),
        ).rejects.toBeInstanceOf(Killed);
        expect(await getDynamoEntity(context, entity.name, 'zz-new')).toBeNull();
        const again = await kvmod(['load', model, '--data', file, ...common]);
        expect(again.stderr).toContain(`${entity.name} 1 (zz-new)`);
        expect(again.code).toBe(1);
        expect(await getDynamoEntity(context, entity.name, 'zz-new')).toMatchObject({ object: copy, version: 1 });
    }, 300_000);
});

describe('kvmod workload --target dynamodb', () => {
    test.each([
        ['examples/book-ratings/book-ratings.pidm', 'safe', 1],
        ['examples/tournament/tournament.pidm', 'none', 2],
    ] as const)(
        '%s, merge %s, %i writer(s): every outcome as the oracle says, live checks find 0 differences',
        async (model, merge, writers) => {
            const run = await kvmod([
                'workload',
                model,
                '--target',
                'dynamodb',
                '--endpoint',
                server.url,
                '--merge',
                merge,
                '--ops',
                '80',
                '--check-every',
                '40',
                '--ids',
                '3',
                '--writers',
                String(writers),
                '--seed',
                '5',
                '--format',
                'json',
            ]);
            const report = JSON.parse(run.stdout) as {
                ok: boolean;
                target: string;
                checks: number;
                failure?: unknown;
                intents: Record<string, { done: number; refused: number }>;
            };
            expect(report.failure).toBeUndefined();
            expect(report).toMatchObject({ ok: true, target: 'dynamodb', checks: 2 });
            const done = Object.values(report.intents).reduce((sum, counts) => sum + counts.done, 0);
            const refused = Object.values(report.intents).reduce((sum, counts) => sum + counts.refused, 0);
            expect(done).toBeGreaterThan(30);
            expect(refused).toBeGreaterThan(3);
            expect(run.code).toBe(0);
        },
        300_000,
    );
});

async function kvmod(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const io = memoryIo();
    const code = await main(args, io);
    return { code, stdout: io.stdout, stderr: io.stderr };
}

/** `shrinkFailing` with an asynchronous check: the plan minimized by dropping operations while it still fails. */
async function shrinkAsync<T>(items: readonly T[], fails: (candidate: readonly T[]) => Promise<boolean>): Promise<T[]> {
    let current = [...items];
    for (let chunk = Math.ceil(current.length / 2); chunk >= 1; chunk = Math.floor(chunk / 2)) {
        for (let at = 0; at < current.length;) {
            const candidate = [...current.slice(0, at), ...current.slice(at + chunk)];
            if (candidate.length > 0 && (await fails(candidate))) current = candidate;
            else at += chunk;
        }
    }
    return current;
}
