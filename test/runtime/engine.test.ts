/**
 * The engine contract (src/runtime/engine.ts), on the real engine: what `load`, `verify`, `doctor` and
 * `conformance` rely on from every engine runtime — the probe, typed failures, schema preparation in its three
 * modes, pipelined writes with progress, served queries with bound parameters whose rows the oracle, in the
 * engine's collation, agrees with. Written against the registry (the engine a target names), one case per
 * engine: an engine added to the registry adds its case here.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { buildViewModel } from '../../src/generation/generation-engine.js';
import { getGenerationTarget } from '../../src/generation/generation-targets.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { EngineError, type EngineProbe, type SchemaOutcome } from '../../src/runtime/engine.js';
import { engineOf } from '../../src/runtime/engine-registry.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { inMemoryExecutor, verifyQueries } from '../../src/runtime/verify.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const MODEL = 'examples/airflights/airflights.pidm';

let server: RedisTestServer;
let bare: RedisTestServer;

beforeAll(async () => {
    [server, bare] = await Promise.all([startRedis(), startRedis({ search: false })]);
});

afterAll(async () => {
    await Promise.all([server?.stop(), bare?.stop()]);
});

/** Runs `body` with the typed engine runtime of a target, on a design of MODEL and generated data. */
async function withEngine(
    target: string,
    body: (run: {
        connect: (urls: string[]) => Promise<{ probe: EngineProbe; close: () => Promise<void> }>;
        prepare: (url: string, modes: ('keep' | 'recreate' | 'fresh')[]) => Promise<SchemaOutcome[][]>;
        loadAndVerify: (
            url: string,
        ) => Promise<{ progress: number[][]; rows: number; mismatches: number; commands: string[] }>;
        collation: string;
    }) => Promise<void>,
): Promise<void> {
    const engine = await engineOf(getGenerationTarget(target));
    const design = await loadRuntimeDesign(MODEL);
    const data = generateInstanceData(design.model, { scale: 12, seed: 3 });
    await engine.use(async (typed) => {
        const open = async (url: string) => {
            const session = await typed.connect({ urls: [url], timeoutSeconds: 10 });
            const view = await buildViewModel(typed.target, design, session.probe.options);
            return { session, view };
        };
        await body({
            collation: typed.collation.name,
            connect: async (urls) => {
                const session = await typed.connect({ urls, timeoutSeconds: 10 });
                return { probe: session.probe, close: () => session.close() };
            },
            prepare: async (url, modes) => {
                const { session, view } = await open(url);
                try {
                    const outcomes: SchemaOutcome[][] = [];
                    for (const mode of modes) outcomes.push(await session.prepareSchema(view, mode));
                    return outcomes;
                } finally {
                    await session.close();
                }
            },
            loadAndVerify: async (url) => {
                const { session, view } = await open(url);
                try {
                    const collections = materializeModel(design.kvlm, data, indexInstanceData(design.model, data));
                    await session.prepareSchema(view, 'fresh');
                    const progress: number[][] = [];
                    const written = await session.writeRows(view, collections, {
                        batchSize: 50,
                        onProgress: (done, total) => void progress.push([done, total]),
                    });
                    const commands: string[] = [];
                    const settings = { samples: 4, seed: 1, collation: typed.collation };
                    const verdicts = await verifyQueries(
                        design.pidm,
                        design.kvlm,
                        design.model,
                        data,
                        async (collection, query, parameters) => {
                            const answer = await session.runQuery(view, collection.name, query.name, parameters);
                            if (answer.command) commands.push(answer.command);
                            return answer;
                        },
                        settings,
                    );
                    // The design in memory, in the same collation, agrees too: the engine is not compared with a
                    // collation it does not have.
                    const inMemory = await verifyQueries(
                        design.pidm,
                        design.kvlm,
                        design.model,
                        data,
                        inMemoryExecutor(design.model, data, typed.collation),
                        settings,
                    );
                    expect(inMemory.filter((v) => v.mismatches > 0)).toEqual([]);
                    return {
                        progress,
                        rows: written.rows,
                        mismatches: verdicts.reduce((sum, v) => sum + v.mismatches, 0),
                        commands,
                    };
                } finally {
                    await session.close();
                }
            },
        });
    });
}

/** The failure a promise rejects with, as `failure: message`. */
async function failure(promise: Promise<unknown>): Promise<string> {
    try {
        await promise;
    } catch (error) {
        expect(error).toBeInstanceOf(EngineError);
        return `${(error as EngineError).failure}: ${(error as Error).message}`;
    }
    throw new Error('expected a failure');
}

describe('the RediSearch engine (target redis) behind the engine interface', () => {
    test('the probe says what the server is and which option values it implies', async () => {
        await withEngine('redis', async ({ connect, collation }) => {
            const { probe, close } = await connect([server.url]);
            await close();
            await close(); // idempotent
            expect(probe).toEqual({
                server: server.url,
                product: 'Redis',
                serverVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/),
                module: { name: 'RediSearch', version: expect.any(Number) },
                variant: 'redisearch1',
                options: { dialect: 'redisearch1' },
                warnings: [],
            });
            expect(probe.module!.version).toBeGreaterThanOrEqual(10200);
            expect(collation).toBe('redisearch');
        });
    });

    test('a refused connection, a server without the module and a cluster URL list are typed failures', async () => {
        await withEngine('redis', async ({ connect }) => {
            expect(await failure(connect(['redis://127.0.0.1:1']))).toBe(
                'connect: cannot connect to redis://127.0.0.1:1: connection refused',
            );
            expect(await failure(connect([bare.url]))).toBe(
                `missing-module: ${bare.url} has no RediSearch module (MODULE LIST shows none); load redisearch.so or use Redis Stack / Redis 8, or use the design for Redis without a module: --target redis-core (Redis 7 or later)`,
            );
            expect(await failure(connect([server.url, bare.url]))).toBe(
                'url: RediSearch runs on one server: give one URL, not 2',
            );
        });
    });

    test('the schema is created, kept when identical, recreated when fresh; a different one stops `keep`', async () => {
        await withEngine('redis', async ({ prepare }) => {
            const [created, kept, fresh, recreate] = await prepare(server.url, ['keep', 'keep', 'fresh', 'recreate']);
            expect(created.length).toBeGreaterThan(0);
            expect(created.every((o) => o.object === 'index' && o.action === 'created')).toBe(true);
            expect(kept.map((o) => [o.name, o.action])).toEqual(created.map((o) => [o.name, 'kept']));
            expect(fresh.map((o) => o.action)).toEqual(created.map(() => 'recreated'));
            expect(recreate.map((o) => o.action)).toEqual(created.map(() => 'kept'));
            // Another schema under one of the design's index names.
            const index = created[0].name;
            const link = await connectRedis(server.url);
            try {
                await link.send(['FT.DROP', index]);
                await link.send(['FT.CREATE', index, 'SCHEMA', 'other', 'TEXT']);
            } finally {
                await link.close();
            }
            const stopped = prepare(server.url, ['keep']);
            expect(await failure(stopped)).toMatch(
                new RegExp(`^schema-differs: index ${index} on .* exists with another schema \\(it has: other TEXT; `),
            );
            const [[replaced]] = await prepare(server.url, ['recreate']);
            expect(replaced).toEqual({ object: 'index', name: index, action: 'recreated' });
        });
    });

    test('rows are written in batches with progress; served queries run with bound parameters and agree with the oracle', async () => {
        await withEngine('redis', async ({ loadAndVerify }) => {
            const { progress, rows, mismatches, commands } = await loadAndVerify(server.url);
            expect(rows).toBeGreaterThan(100);
            expect(progress.length).toBeGreaterThan(2);
            expect(progress.at(-1)).toEqual([rows, rows]);
            expect(progress.every(([done, total], i) => total === rows && (i === 0 || done > progress[i - 1][0]))).toBe(
                true,
            );
            expect(mismatches).toBe(0);
            expect(commands.length).toBeGreaterThan(0);
            // On 1.2 a query resolves its stable name's pointer key inside one EVAL (redis-naming.ts).
            expect(
                commands.every((command) => /^(EVAL .* 1 kvmod:index:\S+ )?FT\.(SEARCH|AGGREGATE) /.test(command)),
            ).toBe(true);
        });
    });
});
