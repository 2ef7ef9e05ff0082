/**
 * The DynamoDB design on dynalite: every example (and the core-shapes fixture: `!=`, `or`, text ranges, mixed
 * directions, literals), merge safe/none (and safe in one table), two data seeds, loaded and verified against the oracle through the CLI
 * with pages of 2 items, so that every answer longer than 2 rows is read over several `LastEvaluatedKey` pages.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { buildDynamoViewModel } from '../../src/generation/dynamodb/dynamodb-design.js';
import { dynamoEngine, queryInput } from '../../src/runtime/dynamodb/dynamo-engine.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { startDynalite, type DynaliteTestServer } from '../support/dynalite-server.js';

const EXAMPLES = [
    'examples/airflights/airflights.pidm',
    'examples/book-ratings/book-ratings.pidm',
    'examples/tournament/tournament.pidm',
    'test/fixtures/pidm/core-shapes.pidm',
];

/** Every example × merge, a table per collection; and merge safe in one table (`--single-table`). */
const MATRIX = [
    ...EXAMPLES.flatMap((model) => (['safe', 'none'] as const).map((merge) => [model, merge, 'tables'] as const)),
    ...EXAMPLES.map((model) => [model, 'safe', 'single-table'] as const),
];

let server: DynaliteTestServer;
let dir: string;

beforeAll(async () => {
    server = await startDynalite();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-dynamodb-'));
});

afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

async function kvmod(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const io = memoryIo();
    const code = await main(args, io);
    return { code, stdout: io.stdout, stderr: io.stderr };
}

interface VerifyJson {
    ok: boolean;
    rowsLoaded: number;
    queries: { query: string; status: string; rowsCompared: number; firstDifference?: string; firstCommand?: string }[];
}

describe('verify --target dynamodb on dynalite', () => {
    test.each(MATRIX)(
        '%s, merge %s, %s: every query answers like the oracle, read 2 items a page (2 seeds)',
        async (model, merge, layout) => {
            for (const seed of [1, 2]) {
                const data = join(dir, `data-${seed}.json`);
                const generated = await kvmod([
                    'data',
                    'generate',
                    model,
                    '--scale',
                    '30',
                    '--seed',
                    String(seed),
                    '-o',
                    data,
                ]);
                expect(generated.code).toBe(0);
                const verified = await kvmod([
                    'verify',
                    model,
                    '--target',
                    'dynamodb',
                    '--endpoint',
                    server.url,
                    '--data',
                    data,
                    '--merge',
                    merge,
                    '--page-size',
                    '2',
                    '--samples',
                    '6',
                    '--seed',
                    String(seed),
                    '--format',
                    'json',
                    ...(layout === 'single-table' ? ['--single-table'] : []),
                ]);
                const result = JSON.parse(verified.stdout) as VerifyJson;
                expect(result.queries.filter((q) => q.status === 'differ')).toEqual([]);
                expect(result.ok).toBe(true);
                expect(verified.code).toBe(0);
                expect(result.queries.some((q) => q.rowsCompared > 2)).toBe(true);
            }
        },
    );
});

describe('the DynamoDB engine', () => {
    test('a query whose answer is longer than a page is read over several pages, and each page holds at most Limit items', async () => {
        const runtime = await loadRuntimeDesign('examples/airflights/airflights.pidm', { merge: 'safe' });
        const view = buildDynamoViewModel(runtime.kvlm, { pageSize: 3 });
        const data = generateInstanceData(runtime.model, { scale: 30, seed: 3 });
        const session = await dynamoEngine.connect({ urls: [server.url] });
        try {
            await session.prepareSchema(view, 'fresh');
            await session.writeRows(view, materializeModel(runtime.kvlm, data, indexInstanceData(runtime.model, data)));
            const table = view.tables.find((t) => t.collection === 'Q1_aircraftsCapacityWithin')!;
            const query = table.queries[0];
            const parameters = { capacity: -Number.MAX_SAFE_INTEGER, capacity_2: Number.MAX_SAFE_INTEGER };
            const answer = await session.runQuery(view, table.collection, query.name, parameters);
            expect(answer.rows.length).toBe((data.Aircraft as unknown[]).length);
            expect(answer.rows.length).toBeGreaterThan(3);
            const client = DynamoDBDocumentClient.from(
                new DynamoDBClient({
                    endpoint: server.url,
                    region: 'us-east-1',
                    credentials: { accessKeyId: 'kvmod', secretAccessKey: 'kvmod' },
                }),
            );
            const first = await client.send(new QueryCommand(queryInput(view, table, query, parameters)));
            expect(first.Items).toHaveLength(3);
            expect(first.LastEvaluatedKey).toBeDefined();
            client.destroy();
            // Capacity ascending, as the sort key orders it.
            const capacities = answer.rows.map((row) => row[1] as number);
            expect(capacities).toEqual([...capacities].sort((a, b) => a - b));
        } finally {
            await session.close();
        }
    });

    test('an unreachable endpoint is a connect failure naming it', async () => {
        await expect(dynamoEngine.connect({ urls: ['http://127.0.0.1:1'], timeoutSeconds: 2 })).rejects.toMatchObject({
            failure: 'connect',
            message: expect.stringContaining('http://127.0.0.1:1'),
        });
    });
});
