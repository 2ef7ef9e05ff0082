/**
 * The workload of issue 28 on real engines (RediSearch 1.2 with the redis target's redisearch1 design, and a plain
 * redis-server with the redis-core design), through the generated client's entity functions: every example and
 * several random models, one writer (every outcome against the oracle, every refusal's digest, the live check every
 * 50 operations) and two writers on the same small pools of identifiers (the live check only); 0 differences, and at
 * least 10,000 operations in all. And the check can fail: an executor that writes a row behind the Function's back
 * is caught by the live check and shrunk, by replays on the emptied server, to a short sequence.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { printPidm } from '../../../src/language/pidm/pidm-printer.js';
import { connectRedis } from '../../../src/runtime/redis-connection/redis-link.js';
import type { EntityExecutor } from '../../../src/runtime/entities/workload.js';
import { clientExecutor } from '../../../src/runtime/redis-entities/workload-client.js';
import {
    runWorkloadOnEngine,
    type EngineWorkloadOptions,
} from '../../../src/runtime/redis-entities/workload-engine.js';
import { generateRandomPidm } from '../../../src/testing/random-pidm.js';
import { startRedis, type RedisTestServer } from '../../support/redis-server.js';

/** Operations per one-writer run, per two-writer run, and between live checks. */
const OPS = 700;
const OPS_TWO_WRITERS = 1000;
const CHECK_EVERY = 50;

const EXAMPLES = ['airflights', 'book-ratings', 'tournament'].map((name) => ({
    name,
    path: `examples/${name}/${name}.pidm`,
}));
const RANDOM_SEEDS = [11, 12, 13];

interface Engine {
    name: string;
    target: string;
    targetOptions: Record<string, string>;
    server?: RedisTestServer;
}

const ENGINES: Engine[] = [
    { name: 'RediSearch 1.2 (redis, redisearch1)', target: 'redis', targetOptions: { dialect: 'redisearch1' } },
    { name: 'redis-server (redis-core)', target: 'redis-core', targetOptions: {} },
];

/** The random models are written here before the tests run (the test names are made before that). */
const dir = join(tmpdir(), `kvmod-workload-${process.pid}`);
const models = [
    ...EXAMPLES,
    ...RANDOM_SEEDS.map((seed) => ({ name: `random model ${seed}`, path: join(dir, `random-${seed}.pidm`) })),
];

/**
 * The model an engine runs: RediSearch cannot range over text, and random models do, so the redis target runs a
 * random model with its texts made integers (identifiers stay texts).
 */
function modelFor(engine: Engine, path: string): string {
    return engine.target === 'redis' && path.startsWith(dir) ? path.replace(/\.pidm$/, '-numeric.pidm') : path;
}
/** Operations run, over every test of the file. */
let total = 0;

beforeAll(async () => {
    await mkdir(dir, { recursive: true });
    for (const seed of RANDOM_SEEDS) {
        const pidm = generateRandomPidm({
            queries: 6,
            fieldsPerQuery: 4,
            seed,
            familySize: 2,
            familiesPerRoot: 2,
            grainNoise: 0.5,
        });
        const text = printPidm(pidm);
        await writeFile(join(dir, `random-${seed}.pidm`), text);
        await writeFile(join(dir, `random-${seed}-numeric.pidm`), text.replace(/^( {2}a\d+) text$/gm, '$1 int'));
    }
    const [search, core] = await Promise.all([startRedis(), startRedis({ search: false })]);
    ENGINES[0].server = search;
    ENGINES[1].server = core;
}, 60_000);

afterAll(async () => {
    await Promise.all(ENGINES.map((engine) => engine.server?.stop()));
    await rm(dir, { recursive: true, force: true });
});

function options(engine: Engine, path: string, overrides: Partial<EngineWorkloadOptions> = {}): EngineWorkloadOptions {
    return {
        modelPath: path,
        server: engine.server!.url,
        target: engine.target,
        targetOptions: engine.targetOptions,
        operations: OPS,
        seed: 1,
        writers: 1,
        checkEvery: CHECK_EVERY,
        ...overrides,
    };
}

describe.each(ENGINES)('the workload on $name', (engine) => {
    const kinds = new Set<string>();

    test.each(models.map((model, index) => ({ ...model, index })))(
        'one writer, $name: every outcome as the oracle says, 0 differences',
        async ({ path, index }) => {
            const { report } = await runWorkloadOnEngine(
                options(engine, modelFor(engine, path), { seed: 100 + index }),
            );
            expect(report.failure).toBeUndefined();
            expect(report.operations).toBe(OPS);
            expect(report.checks).toBe(OPS / CHECK_EVERY);
            const refused = Object.values(report.intents).reduce((sum, tally) => sum + tally.refused, 0);
            expect(report.refusalsDigested).toBe(refused);
            expect(refused).toBeGreaterThan(OPS / 20);
            for (const [intent, tally] of Object.entries(report.intents)) if (tally.done > 0) kinds.add(intent);
            total += report.operations;
        },
        120_000,
    );

    test.each(EXAMPLES.slice(1).map((model, index) => ({ ...model, index })))(
        'counter keys, one writer, $name: every outcome as the oracle says, the row maps kept, 0 differences',
        async ({ path, index }) => {
            const { report } = await runWorkloadOnEngine(
                options(engine, path, { seed: 200 + index, keyStrategy: 'counter' }),
            );
            expect(report.failure).toBeUndefined();
            expect(report.operations).toBe(OPS);
            expect(report.checks).toBe(OPS / CHECK_EVERY);
            for (const intent of ['create', 'delete', 'add', 'remove'])
                expect([intent, (report.intents[intent]?.done ?? 0) > 0]).toEqual([intent, true]);
            total += report.operations;
        },
        120_000,
    );

    test('counter keys, two writers on the same entities: no torn row, no row map entry astray', async () => {
        const { report } = await runWorkloadOnEngine(
            options(engine, EXAMPLES[0].path, {
                writers: 2,
                operations: OPS_TWO_WRITERS / 2,
                seed: 6,
                keyStrategy: 'counter',
            }),
        );
        expect(report.failure).toBeUndefined();
        expect(report.operations).toBe(OPS_TWO_WRITERS / 2);
        total += report.operations;
    }, 120_000);

    test('two writers on the same entities: the live check finds no torn row', async () => {
        const { report } = await runWorkloadOnEngine(
            options(engine, EXAMPLES[0].path, { writers: 2, operations: OPS_TWO_WRITERS, seed: 5 }),
        );
        expect(report.failure).toBeUndefined();
        expect(report.operations).toBe(OPS_TWO_WRITERS);
        expect(report.checks).toBe(OPS_TWO_WRITERS / CHECK_EVERY);
        // The writers collide: the other's creates and deletes refuse some of each one's operations.
        expect(report.codes['entity.exists'] ?? 0).toBeGreaterThan(0);
        expect(report.codes['entity.not-found'] ?? 0).toBeGreaterThan(0);
        total += report.operations;
    }, 120_000);

    test('every kind of operation was done, and every role of attribute patched', () => {
        for (const intent of [
            // No `patch:key`: natural keys are made of identifiers, which never change.
            'create',
            'patch:filtered',
            'patch:ranged',
            'patch:sorted',
            'patch:projected',
            'set',
            'unset',
            'add',
            'remove',
            'delete',
            'delete:detach',
        ])
            expect([intent, kinds.has(intent)]).toEqual([intent, true]);
    });

    test('a write behind the Function (a row changed by a raw HSET after an update) is caught and shrunk', async () => {
        // After each update that succeeds, one row of a collection gets a field the entities do not imply.
        const behindTheFunction = (
            client: Parameters<typeof clientExecutor>[0],
            store: Parameters<typeof clientExecutor>[1],
        ): EntityExecutor => {
            const real = clientExecutor(client, store);
            return {
                execute: async (operation) => {
                    const outcome = await real.execute(operation);
                    if (!outcome.ok || operation.kind !== 'update') return outcome;
                    const [, keys] = (await client.sendCommand(['SCAN', '0', 'MATCH', '*', 'COUNT', '10000'])) as [
                        string,
                        string[],
                    ];
                    const rows: string[] = [];
                    for (const key of keys.sort())
                        if (!key.startsWith('kvmod:') && String(await client.sendCommand(['TYPE', key])) === 'hash')
                            rows.push(key);
                    if (rows.length > 0) await client.sendCommand(['HSET', rows[0], 'behind', 'the Function']);
                    return outcome;
                },
            };
        };
        const { report } = await runWorkloadOnEngine(
            options(engine, EXAMPLES[1].path, {
                operations: 300,
                checkEvery: 10,
                seed: 3,
                executor: behindTheFunction,
            }),
        );
        const failure = report.failure!;
        expect(failure.kind).toBe('live');
        expect(failure.shrinking).toBe('shrunk');
        expect(failure.details.join('\n')).toContain('behind');
        expect(failure.shrunk.length).toBeLessThanOrEqual(6);
        expect(failure.shrunk.at(-1)?.kind).toBe('update');
        // The server is left as the shrunk sequence leaves it: the stray field is there.
        const link = await connectRedis(engine.server!.url);
        try {
            const keys = (await link.send(['KEYS', '*'])) as string[];
            const fields = await Promise.all(
                keys.map(async (key) =>
                    String(await link.send(['TYPE', key])) === 'hash' ? await link.send(['HGET', key, 'behind']) : null,
                ),
            );
            expect(fields).toContain('the Function');
        } finally {
            await link.close();
        }
    }, 120_000);
});

test('at least 10,000 operations ran in all', () => {
    expect(total).toBeGreaterThanOrEqual(10_000);
});
