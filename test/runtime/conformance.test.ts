/**
 * `kvmod conformance` on the RediSearch 1.2 server the tests start: the whole matrix (every example × merge
 * safe/none × key natural/counter × three data seeds) must match, and the table says so line by line.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { exampleModels, formatConformance, type ConformanceRun } from '../../src/runtime/conformance.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

let server: RedisTestServer;

beforeAll(async () => {
    server = await startRedis();
});

afterAll(async () => {
    await server?.stop();
});

describe('kvmod conformance', () => {
    test('every example × merge × key × seed matches the oracle on RediSearch 1.2, in one table', async () => {
        const io = memoryIo();
        const code = await main(['conformance', '--redis', server.url, '--scale', '30'], io);
        const lines = io.stdout.trimEnd().split('\n');
        const examples = exampleModels().length;
        expect(examples).toBeGreaterThanOrEqual(3);
        expect(lines[0]).toMatch(
            /^example\s+merge\s+key\s+seed\s+rows loaded\s+queries\s+rows compared\s+untested\s+result$/,
        );
        const runs = lines.slice(1, -2);
        expect(runs).toHaveLength(examples * 2 * 2 * 3);
        for (const merge of ['safe', 'none'])
            for (const key of ['natural', 'counter'])
                for (const seed of [1, 2, 3])
                    expect(
                        runs.filter((line) => new RegExp(`^\\S+\\s+${merge}\\s+${key}\\s+${seed}\\s`).test(line)),
                    ).toHaveLength(examples);
        expect(runs.every((line) => /\s[1-9]\d*\s+\d+\s+match$/.test(line))).toBe(true);
        expect(lines.at(-1)).toBe(`all ${examples * 12} runs match the oracle on redisearch1`);
        expect(io.stderr).toMatch(/^conformance on redis:\/\/127\.0\.0\.1:\d+ \(redisearch1, detected\), scale 30$/m);
        expect(code).toBe(0);
    }, 240_000);

    test('a run that differs is counted, its first difference printed, and the summary says how many', () => {
        const run = (differ: number): ConformanceRun => ({
            model: '/x/examples/shop/shop.pidm',
            merge: 'safe',
            key: 'natural',
            seed: 2,
            variant: 'redisearch2',
            rowsLoaded: 10,
            queries: 3,
            rowsCompared: 40,
            differ,
            untested: 0,
            firstDifference: differ > 0 ? 'Q1: 0 rows instead of 5' : undefined,
        });
        const text = formatConformance({ variant: 'redisearch2', runs: [run(0), run(1)], ok: false }, () => 'shop');
        expect(text.split('\n')).toEqual([
            'example  merge  key      seed  rows loaded  queries  rows compared  untested  result',
            'shop     safe   natural  2     10           3        40             0         match',
            'shop     safe   natural  2     10           3        40             0         1 differ',
            '',
            'shop safe natural seed 2: Q1: 0 rows instead of 5',
            '',
            '1 of 2 runs differ from the oracle on redisearch2',
        ]);
    });
});
