/**
 * The workload runner (src/runtime/entities/workload.ts) over an in-memory store: a store that does what the
 * semantics say passes with one and two writers; stores that are wrong in each way the runner checks (an outcome,
 * a refused operation that writes, entities that differ, a live difference, an error that is no refusal) are caught
 * and shrunk to a short sequence that still fails the same way. The real engines: workload-engine.test.ts.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { applyEntityOperation, type EntityOperation } from '../../../src/runtime/entities/entity-operations.js';
import {
    entityDifferences,
    operationsJson,
    parseOperations,
    runWorkload,
    type EntityExecutor,
    type ExecutedOutcome,
    type WorkloadOptions,
    type WorkloadStore,
} from '../../../src/runtime/entities/workload.js';
import type { InstanceData } from '../../../src/runtime/instance-data.js';
import { RS1_RULES, shopCase, type EntityCase } from './entity-fixtures.js';

let shop: EntityCase;

beforeAll(async () => {
    shop = await shopCase();
});

interface Faults {
    /** Rewrites an operation before it is applied (what a wrong writer writes). */
    rewrite?: (operation: EntityOperation) => EntityOperation;
    /** Applies the operation even when the semantics refuse it, and still reports the refusal. */
    refusedWrites?: (operation: EntityOperation) => boolean;
    /** Live differences the store reports of its data. */
    live?: (data: InstanceData) => string[];
    /** Fails an operation with an error that is no refusal. */
    error?: (operation: EntityOperation) => boolean;
}

/** A store in memory that does what `applyEntityOperation` says, but for the faults given. */
class MemoryStore implements WorkloadStore {
    data: InstanceData = {};
    resets = 0;
    constructor(private readonly faults: Faults = {}) {}
    async reset(): Promise<void> {
        this.data = {};
        this.resets++;
    }
    async writer(): Promise<EntityExecutor> {
        return {
            execute: async (operation): Promise<ExecutedOutcome> => {
                // A turn of the event loop, so that two writers interleave.
                await new Promise((resolve) => setImmediate(resolve));
                if (this.faults.error?.(operation)) return { ok: false, code: null, message: 'ERR Lua runtime error' };
                const outcome = applyEntityOperation(shop.model, this.data, operation, { rules: RS1_RULES });
                if (outcome.ok) {
                    const written = this.faults.rewrite?.(operation) ?? operation;
                    this.data = applyEntityOperation(shop.model, this.data, written, { rules: RS1_RULES }).data;
                    return { ok: true };
                }
                if (this.faults.refusedWrites?.(operation))
                    this.data = { ...this.data, Tag: [...(this.data.Tag ?? []), { name: 'stray', label: 'x' }] };
                return { ok: false, code: outcome.refusal.code, message: outcome.refusal.message };
            },
        };
    }
    async check() {
        return { data: this.data, differences: this.faults.live?.(this.data) ?? [] };
    }
    async digest(): Promise<string> {
        return JSON.stringify(this.data);
    }
}

function options(overrides: Partial<WorkloadOptions> = {}): WorkloadOptions {
    return {
        model: shop.model,
        design: shop.design,
        rules: RS1_RULES,
        operations: 600,
        seed: 7,
        writers: 1,
        checkEvery: 25,
        ...overrides,
    };
}

describe('runWorkload on a store that does what the semantics say', () => {
    test('one writer: 0 differences, every refusal digested, every role of attribute patched', async () => {
        const report = await runWorkload(new MemoryStore(), options());
        expect(report.failure).toBeUndefined();
        expect(report.operations).toBe(600);
        expect(report.checks).toBe(24);
        const refused = Object.values(report.intents).reduce((sum, tally) => sum + tally.refused, 0);
        expect(report.refusalsDigested).toBe(refused);
        expect(refused).toBeGreaterThan(50);
        // The shop design has no key part but identifiers: every other role is patched.
        for (const intent of [
            'create',
            'patch:filtered',
            'patch:ranged',
            'patch:sorted',
            'patch:projected',
            'add',
            'remove',
            'set',
            'unset',
            'delete',
            'delete:detach',
        ])
            expect(report.intents[intent]?.done ?? 0).toBeGreaterThan(0);
        expect(report.intents['delete:referenced'].refused).toBeGreaterThan(0);
        expect(report.codes['entity.still-referenced']).toBeGreaterThan(0);
    });

    test('two writers: their operations interleave, the live check passes', async () => {
        const report = await runWorkload(new MemoryStore(), options({ writers: 2 }));
        expect(report.failure).toBeUndefined();
        expect(report.operations).toBe(600);
        expect(report.refusalsDigested).toBe(0);
    });

    test('the same seed draws the same run', async () => {
        const first = await runWorkload(new MemoryStore(), options({ seed: 3, operations: 200 }));
        const second = await runWorkload(new MemoryStore(), options({ seed: 3, operations: 200 }));
        expect(second).toEqual(first);
        const other = await runWorkload(new MemoryStore(), options({ seed: 4, operations: 200 }));
        expect(other.intents).not.toEqual(first.intents);
    });
});

describe('runWorkload catches a wrong store and shrinks the sequence', () => {
    test('a patch of Book.title written nowhere: entities differ, shrunk to a create and the patch', async () => {
        const store = new MemoryStore({
            rewrite: (operation) =>
                operation.kind === 'update' && operation.entity === 'Book' && operation.patch.title !== undefined
                    ? { ...operation, patch: { ...operation.patch, title: undefined } }
                    : operation,
        });
        const report = await runWorkload(store, options());
        const failure = report.failure!;
        expect(failure.kind).toBe('entities');
        expect(failure.shrinking).toBe('shrunk');
        expect(failure.details[0]).toMatch(/^Book "[^"]+" is \[.*\] on the server, \[.*\] in the oracle$/);
        // A Book needs its Publisher: publisher, book (maybe a tag it lists), the patch of its title.
        expect(failure.shrunk.length).toBeLessThanOrEqual(4);
        expect(failure.shrunk.slice(0, -1).every((operation) => operation.kind === 'create')).toBe(true);
        const patch = failure.shrunk.at(-1) as Extract<EntityOperation, { kind: 'update' }>;
        expect(patch.patch.title).toBeDefined();
        expect(failure.ran).toBe(failure.after);
        expect(store.resets).toBeGreaterThan(3);
    });

    test('a refused operation that writes: caught by the digest, shrunk to that operation', async () => {
        const report = await runWorkload(
            new MemoryStore({ refusedWrites: (operation) => operation.kind === 'delete' }),
            options(),
        );
        expect(report.failure?.kind).toBe('refused-wrote');
        expect(report.failure?.details[0]).toMatch(
            /^\{"kind":"delete".* was refused \(entity\.(not-found|still-referenced)\) but changed the server's keys$/,
        );
        expect(report.failure!.shrunk.length).toBeLessThanOrEqual(3);
        expect(report.failure!.shrunk.at(-1)?.kind).toBe('delete');
    });

    test('an outcome that differs: a store that refuses every delete of a Tag', async () => {
        const store = new MemoryStore();
        const writer = store.writer.bind(store);
        store.writer = async () => {
            const inner = await writer();
            return {
                execute: (operation) =>
                    operation.kind === 'delete' && operation.entity === 'Tag'
                        ? Promise.resolve({ ok: false, code: 'entity.still-referenced', message: 'no' })
                        : inner.execute(operation),
            };
        };
        const report = await runWorkload(store, options());
        expect(report.failure?.kind).toBe('outcome');
        expect(report.failure?.details[0]).toMatch(/the server refused entity\.still-referenced: no; the oracle/);
        // Either the delete alone (the oracle refuses: not found) or a create of a Tag and its delete.
        expect(report.failure!.shrunk.length).toBeLessThanOrEqual(2);
    });

    test('a live difference: shrunk with two writers too, replayed by one', async () => {
        const store = new MemoryStore({
            live: (data) =>
                (data.Book ?? []).some((book) => (book.tags as unknown[]).length >= 2)
                    ? ['kvmod:shop:{Book:b}: a row the entities do not imply']
                    : [],
        });
        for (const writers of [1, 2] as const) {
            const report = await runWorkload(store, options({ writers }));
            expect(report.failure?.kind).toBe('live');
            expect(report.failure?.shrinking).toBe('shrunk');
            // A publisher, two tags, a book listing both (created so, or added to).
            expect(report.failure!.shrunk.length).toBeLessThanOrEqual(5);
            const shrunk = report.failure!.shrunk;
            let data: InstanceData = {};
            for (const operation of shrunk) data = applyEntityOperation(shop.model, data, operation).data;
            expect((data.Book ?? []).some((book) => (book.tags as unknown[]).length >= 2)).toBe(true);
        }
    });

    test('an error that is no refusal fails the run, with one or two writers', async () => {
        for (const writers of [1, 2] as const) {
            const report = await runWorkload(
                new MemoryStore({ error: (operation) => operation.kind === 'remove' }),
                options({ writers }),
            );
            expect(report.failure?.kind).toBe('error');
            expect(report.failure?.details[0]).toContain('ERR Lua runtime error');
            expect(report.failure!.shrunk.at(-1)?.kind).toBe('remove');
        }
    });

    test('shrink: false reports every operation that ran', async () => {
        const report = await runWorkload(
            new MemoryStore({ error: (operation) => operation.kind === 'remove' }),
            options({ shrink: false }),
        );
        expect(report.failure?.shrunk).toHaveLength(report.failure!.after);
        expect(report.failure?.shrinking).toBe('off');
    });
});

describe('the sequence as JSON', () => {
    test('non-finite numbers survive the round trip', () => {
        const operations: EntityOperation[] = [
            { kind: 'update', entity: 'Book', id: 'b1', patch: { rank: Number.NaN, price: Infinity } },
            { kind: 'delete', entity: 'Tag', id: 't1', detach: true },
        ];
        const text = operationsJson(operations);
        expect(text).toBe(
            '[\n  {"kind":"update","entity":"Book","id":"b1","patch":{"rank":{"$number":"NaN"},"price":{"$number":"Infinity"}}},\n  {"kind":"delete","entity":"Tag","id":"t1","detach":true}\n]',
        );
        expect(parseOperations(text)).toEqual(operations);
    });
});

describe('entityDifferences', () => {
    test('numbers and texts of one identity are equal; a changed, missing or extra object is named', () => {
        const expected: InstanceData = {
            Tag: [{ name: 't1', label: 'SF' }],
            Publisher: [{ code: 'ace', pname: 'Ace' }],
        };
        expect(
            entityDifferences(shop.model, expected, {
                Publisher: [{ code: 'ace', pname: 'Ace' }],
                Tag: [{ name: 't1', label: 'SF' }],
            }),
        ).toEqual([]);
        expect(
            entityDifferences(shop.model, expected, {
                Tag: [{ name: 't1', label: 'Sf' }],
                Publisher: [{ code: 'tor', pname: 'Tor' }],
            }),
        ).toEqual([
            'Tag "t1" is ["t1","Sf"] on the server, ["t1","SF"] in the oracle',
            'Publisher "ace" is missing on the server',
            'Publisher "tor" is on the server, not in the oracle',
        ]);
    });
});
