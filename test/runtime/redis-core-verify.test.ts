/**
 * The redis-core design on a plain redis-server with no module: every example, merge safe/none, natural and counter
 * keys, two data seeds, verified against the oracle through the generated function library.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { connectCore, type CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { checkCoreIndexes } from '../../src/runtime/redis-core/core-consistency.js';
import { buildCoreDesign, prepareCore, putCoreRow, writeCoreRows } from '../../src/runtime/redis-core/core-engine.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { EXAMPLES, liveRows, MATRIX, updatesAndDeletesCase, verifyCase } from './redis-core-cases.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startReplyHoldingProxy } from '../support/silent-servers.js';
import { watchSecondBatch } from '../support/watched-rows.js';

let server: RedisTestServer;
let connection: CoreConnection;

beforeAll(async () => {
    server = await startRedis({ search: false });
    connection = await connectCore(server.url);
});

afterAll(async () => {
    await connection?.close();
    await server?.stop();
});

describe('redis-core on a plain redis-server (no module)', () => {
    test.each(MATRIX)(
        '%s, merge %s, %s keys: every query answers like the oracle (2 seeds)',
        (model, merge, keyStrategy) => verifyCase(connection, model, merge, keyStrategy),
    );
});

describe('redis-core writes leave no stale index entry', () => {
    test.each(EXAMPLES)('%s: after random updates and deletes, every index holds exactly the live rows', (model) =>
        updatesAndDeletesCase(connection, model),
    );

    test('the check sees a stale entry: a row deleted behind the library leaves its index entries', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[1], { merge: 'safe', keyStrategy: 'natural' });
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 10, seed: 1 });
        await prepareCore(connection, design, library, true);
        await writeCoreRows(
            connection,
            design,
            materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data)),
        );
        const live = liveRows(runtime, design, data);
        const collection = design.collections.find((c) => c.indexes.length > 0)!;
        const [row] = live.get(collection.name)!.keys();
        await connection.call(row, ['DEL', row]);
        live.get(collection.name)!.delete(row);
        const problems = await checkCoreIndexes(connection, design, live);
        expect(problems.length).toBeGreaterThan(0);
        expect(problems.every((line) => line.includes('has a stale') && line.includes(row))).toBe(true);
    });

    test('an int beyond 2^53 in a scored field is refused and writes nothing', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[1], { merge: 'safe', keyStrategy: 'natural' });
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        await prepareCore(connection, design, library, true);
        const collection = design.collections.find((c) =>
            c.indexes.some((i) => i.kind === 'score' && i.type === 'int'),
        )!;
        const values = collection.fields.map((f) =>
            f.type === 'int' ? '9007199254740993' : f.type === 'float' ? '1.5' : 'x',
        );
        const row = `${collection.rowPrefix}big`;
        await expect(putCoreRow(connection, design, collection, row, values)).rejects.toThrow(
            /field rank = 9007199254740993 is beyond 2\^53/,
        );
        expect(await connection.call(row, ['EXISTS', row])).toBe(0);
        expect(await connection.call(collection.recordKey, ['HLEN', collection.recordKey])).toBe(0);
    });
});

describe('kvmod load and verify --target redis-core', () => {
    test('verify answers like the oracle on a plain server; a second load keeps the library and leaves the same keys', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-core-cli-'));
        try {
            const model = 'examples/book-ratings/book-ratings.pidm';
            const data = join(dir, 'data.json');
            await runDataGenerate({ model, scale: 20, seed: 4, output: data }, memoryIo());
            const verify = memoryIo();
            expect(
                await main(['verify', model, '--data', data, '--redis', server.url, '--target', 'redis-core'], verify),
            ).toBe(0);
            expect(verify.stdout).toContain('all 7 queries match the oracle');
            const load = memoryIo();
            expect(
                await main(['load', model, '--data', data, '--redis', server.url, '--target', 'redis-core'], load),
            ).toBe(0);
            expect(load.stdout + load.stderr).toContain('function library kvmod_book_ratings: kept');
            const keys = async () => ((await connection.call(undefined, ['KEYS', '*'])) as string[]).sort();
            const before = await keys();
            expect(
                await main(
                    ['load', model, '--data', data, '--redis', server.url, '--target', 'redis-core'],
                    memoryIo(),
                ),
            ).toBe(0);
            expect(await keys()).toEqual(before);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });
});

describe('redis-core batched writes', () => {
    test('a value or key part that cannot be encoded stops the load naming the collection, a value before a key part', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[0], {});
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 5, seed: 1 });
        await prepareCore(connection, design, library, true);
        const rows = () => materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
        const collection = design.collections.find(
            (c) => c.key.kind === 'natural' && c.fields.some((field) => field.type === 'text'),
        )!;
        const text = collection.fields.find((field) => field.type === 'text')!.name;
        const spoil = (spoilValue: boolean, spoilKey: boolean) => {
            const all = rows();
            const row = all.find((c) => c.name === collection.name)!.rows[2]!;
            if (spoilValue) row.values[text] = { not: 'text' } as never;
            if (spoilKey) row.keyParts[0] = { not: 'a key' } as never;
            return all;
        };
        const failure = async (collections: ReturnType<typeof rows>) => {
            try {
                await writeCoreRows(connection, design, collections, { batchSize: 2 });
            } catch (error) {
                return error as Error & { code?: string };
            }
            throw new Error('expected the write to fail');
        };
        const value = await failure(spoil(true, true));
        expect(value.message).toBe(`collection ${collection.name}: a text value must be a string, got {"not":"text"}`);
        expect(value.code).toBe('data.unencodable');
        const key = await failure(spoil(false, true));
        expect(key.message).toMatch(new RegExp(`^collection ${collection.name}: an? \\w+ value must be`));
        expect(key.code).toBe('data.unencodable');
    });

    test('a refused write stops the load with the row and the reason', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[0], {});
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 5, seed: 1 });
        await prepareCore(connection, design, library, true);
        await connection.call(undefined, ['FUNCTION', 'FLUSH']);
        await expect(
            writeCoreRows(
                connection,
                design,
                materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data)),
                {
                    batchSize: 3,
                },
            ),
        ).rejects.toThrow(/^the server refused row 1 of collection \S+: .*Function not found/);
    });
});

describe('the redis-core writer writes each batch as soon as it is made', () => {
    test('the first batch is on the server when the writer asks for the second', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[0], { merge: 'safe', keyStrategy: 'natural' });
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 2000, seed: 1 });
        const [first, ...rest] = materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
        await prepareCore(connection, design, library, true);
        // Keys on the server, counted by another process: this one does not turn its event loop between sending a
        // batch and asking for the next.
        const keys = (): number =>
            Number(spawnSync('redis-cli', ['-p', String(server.port), 'DBSIZE'], { encoding: 'utf8' }).stdout.trim());
        const before = keys();
        const { watched, seen } = watchSecondBatch(first!, keys);
        const fresh = await connectCore(server.url);
        try {
            await writeCoreRows(fresh, design, [watched, ...rest], { batchSize: 1000 });
        } finally {
            await fresh.close();
        }
        expect(seen).toHaveLength(1);
        expect(seen[0]).toBeGreaterThan(before);
    }, 60_000);
});

describe('how far ahead of its replies the redis-core writer writes, through a proxy that holds them back', () => {
    test('four batches before the first is acknowledged: the first of 250 rows, then batches of 1,000', async () => {
        const runtime = await loadRuntimeDesign(EXAMPLES[0], { merge: 'safe', keyStrategy: 'natural' });
        const { design, library } = await buildCoreDesign(runtime.kvlm);
        const data = generateInstanceData(runtime.model, { scale: 4000, seed: 1 });
        const rows = materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data));
        expect(rows[0]!.rows.length).toBe(4000);
        const proxy = await startReplyHoldingProxy(server.port, 'FCALL');
        const proxied = await connectCore(`redis://127.0.0.1:${proxy.port}`);
        try {
            await prepareCore(proxied, design, library, true);
            const writing = writeCoreRows(proxied, design, rows, { batchSize: 1000 });
            expect(await proxy.sentBeforeStall()).toBe(250 + 3 * 1000);
            expect((await writing).rows).toBe(rows.reduce((sum, collection) => sum + collection.rows.length, 0));
        } finally {
            await proxied.close();
            await proxy.close();
        }
    }, 60_000);
});
