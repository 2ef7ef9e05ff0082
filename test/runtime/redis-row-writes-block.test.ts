/**
 * Whether RediSearch 1.2's FT.ADD may block its connection (the module started without SAFEMODE) is read from MODULE
 * LIST's `args`, and decides how far ahead of its replies the loader's bulk pipe writes (redis-link.ts `PIPE_WINDOW`).
 * Real servers: one started as REDIS.md says (SAFEMODE), one with 1.2's default indexing threads — the only test
 * server without SAFEMODE, so the blocking write path is loaded here end to end.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadIntoRedis } from '../../src/runtime/redisearch/redis-loader.js';
import { connectRedis, detectDialect, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { redisEngine } from '../../src/runtime/redisearch/redis-engine.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startReplyHoldingProxy } from '../support/silent-servers.js';
import { watchSecondBatch } from '../support/watched-rows.js';

let safe: RedisTestServer;
let threaded: RedisTestServer;

beforeAll(async () => {
    [safe, threaded] = await Promise.all([startRedis(), startRedis({ safeMode: false })]);
});

afterAll(async () => {
    await Promise.all([safe?.stop(), threaded?.stop()]);
});

/** The airflights design for 1.2 (FT.ADD rows) and its rows. */
async function design(scale = 30) {
    const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale, seed: 5 });
    const kvlm = transformPidmToKvlm(pidm, { merge: 'safe' }).model;
    const view = buildRedisViewModel(kvlm, { dialect: 'redisearch1' });
    const collections = materializeModel(kvlm, data, indexInstanceData(model, data));
    const counts = new Map(collections.map((c) => [c.name, c.rows.length]));
    return { view, collections, counts };
}

/** How many documents each collection's index holds (`indexes` in the design's order of collections). */
async function indexedDocs(link: RedisLink, names: string[], indexes: string[]) {
    const docs = new Map<string, number>();
    for (const [position, name] of names.entries()) {
        const info = (await link.send(['FT.INFO', indexes[position]!])) as unknown[];
        docs.set(name, Number(info[info.indexOf('num_docs') + 1]));
    }
    return docs;
}

async function withLink<T>(url: string, use: (link: RedisLink) => Promise<T>): Promise<T> {
    const link = await connectRedis(url);
    try {
        return await use(link);
    } finally {
        await link.close();
    }
}

describe('detecting whether row writes block', () => {
    test('a module started with SAFEMODE does not block; one without it does', async () => {
        expect(await withLink(safe.url, detectDialect)).toEqual({
            dialect: 'redisearch1',
            version: 10200,
            rowWritesBlock: false,
            args: ['SAFEMODE', 'TIMEOUT', '0'],
        });
        expect(await withLink(threaded.url, detectDialect)).toEqual({
            dialect: 'redisearch1',
            version: 10200,
            rowWritesBlock: true,
            args: ['TIMEOUT', '0'],
        });
    });

    test('a user who may not run MODULE LIST gets the dialect probed and the writes taken as blocking', async () => {
        await withLink(safe.url, (link) =>
            link.send(['ACL', 'SETUSER', 'nomodules', 'on', '>secret', '~*', '&*', '+@all', '-module']),
        );
        const url = safe.url.replace('redis://', 'redis://nomodules:secret@');
        expect(await withLink(url, detectDialect)).toEqual({
            dialect: 'redisearch1',
            version: 0,
            rowWritesBlock: true,
        });
    });
});

describe('the bulk pipe', () => {
    /** Loads the design through a link that records each batch's `blocking` flag. */
    async function recordedLoad(rowWritesBlock: boolean | undefined) {
        const { view, collections, counts } = await design();
        return withLink(safe.url, async (link) => {
            const flags = new Set<boolean | undefined>();
            const recording: RedisLink = {
                url: link.url,
                send: (argv) => link.send(argv),
                sendBatch: (batch) => {
                    flags.add(batch.blocking);
                    return link.sendBatch!(batch);
                },
                close: () => link.close(),
            };
            const result = await loadIntoRedis(recording, view, collections, {
                fresh: true,
                batchSize: 50,
                ...(rowWritesBlock === undefined ? {} : { rowWritesBlock }),
            });
            const names = view.collections.map((c) => c.name);
            const docs = await indexedDocs(
                link,
                names,
                result.indexes.map((outcome) => outcome.index),
            );
            return { flags: [...flags], rows: result.rows, docs, counts };
        });
    }

    test('writes FT.ADD as blocking unless told the server does not block; the server holds every row either way', async () => {
        const unknown = await recordedLoad(undefined);
        expect(unknown.flags).toEqual([true]);
        const safeMode = await recordedLoad(false);
        expect(safeMode.flags).toEqual([false]);
        for (const run of [unknown, safeMode]) {
            expect(run.docs).toEqual(run.counts);
            expect(run.rows).toBe([...run.counts.values()].reduce((a, b) => a + b, 0));
        }
    });
});

describe('loading through the engine', () => {
    test.each([
        ['with SAFEMODE', () => safe],
        ['without SAFEMODE (every FT.ADD waits for its indexing thread)', () => threaded],
    ])('every row is indexed on a server %s', async (_, server) => {
        const { view, collections, counts } = await design();
        const session = await redisEngine.connect({ urls: [server().url], timeoutSeconds: 30 });
        let indexes: string[];
        try {
            indexes = (await session.prepareSchema(view, 'fresh')).map((outcome) => outcome.name);
            const written = await session.writeRows(view, collections);
            expect(written.rows).toBe([...counts.values()].reduce((a, b) => a + b, 0));
        } finally {
            await session.close();
        }
        const names = view.collections.map((c) => c.name);
        const docs = await withLink(server().url, (link) => indexedDocs(link, names, indexes));
        expect(docs).toEqual(counts);
    });
});

describe('a load writes each batch as soon as it is made', () => {
    test('the first batch is on the server when the loader asks for the second', async () => {
        const { view, collections } = await design(2000);
        const [first, ...rest] = collections;
        const index = view.collections[0]!.physicalIndex;
        // How many documents the first index holds, read by another process: this one does not turn its event loop
        // between sending a batch and asking for the next.
        const docs = (): number => {
            const info = spawnSync('redis-cli', ['-p', String(safe.port), 'FT.INFO', index], { encoding: 'utf8' });
            const lines = info.stdout.split('\n').map((line) => line.trim());
            return Number(lines[lines.indexOf('num_docs') + 1]);
        };
        const { watched, seen } = watchSecondBatch(first!, docs);
        const result = await withLink(safe.url, (link) =>
            loadIntoRedis(link, view, [watched, ...rest], { fresh: true, batchSize: 1000, rowWritesBlock: false }),
        );
        expect(result.rows).toBe(collections.reduce((sum, c) => sum + c.rows.length, 0));
        // The first batch has 250 rows; the server has had the time of starting redis-cli to index some of them.
        expect(seen).toHaveLength(1);
        expect(seen[0]).toBeGreaterThan(0);
        expect(seen[0]).toBeLessThanOrEqual(250);
    }, 60_000);
});

describe('how far ahead of its replies a load writes, through a proxy that holds them back', () => {
    // The engine reads SAFEMODE from its probe and passes it to the loader: with it, four batches go out before the
    // first is acknowledged (the first of 250 rows, then batches of 1,000: 3,250 FT.ADD); without it, the pipe stops
    // 256 KB ahead (fewer than the first two batches). The first collection (Q1) has 4,000 rows.
    test.each([
        ['with SAFEMODE', () => safe, (sent: number) => expect(sent).toBe(250 + 3 * 1000)],
        ['without SAFEMODE', () => threaded, (sent: number) => expect(sent).toBeLessThan(250 + 1000)],
    ])(
        'on a server %s',
        async (_, server, expectSent) => {
            const { view, collections, counts } = await design(4000);
            expect(counts.get(view.collections[0]!.name)).toBe(4000);
            const proxy = await startReplyHoldingProxy(server().port, 'FT.ADD');
            try {
                const session = await redisEngine.connect({
                    urls: [`redis://127.0.0.1:${proxy.port}`],
                    timeoutSeconds: 30,
                });
                try {
                    await session.prepareSchema(view, 'fresh');
                    const writing = session.writeRows(view, collections, { batchSize: 1000 });
                    const sent = await proxy.sentBeforeStall();
                    expect(sent).toBeGreaterThan(0);
                    expectSent(sent);
                    expect((await writing).rows).toBe([...counts.values()].reduce((a, b) => a + b, 0));
                } finally {
                    await session.close();
                }
            } finally {
                await proxy.close();
            }
        },
        60_000,
    );
});
