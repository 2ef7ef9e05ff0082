/**
 * `kvmod workload` through the real command line: bad usage exits 2 before anything connects; a run on a private
 * RediSearch 1.2 server prints its summary and `0 differences` (exit 0), or, as JSON, the report; and the server it
 * ran on holds the entities the run left (it is a scratch server: the run empties it first).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { runKvmodAsync, runKvmod, STACK_TRACE } from './run-kvmod.js';

const MODEL = 'examples/book-ratings/book-ratings.pidm';

describe('kvmod workload: usage', () => {
    test.each([
        [[MODEL], 'Missing required argument: redis'],
        [
            [MODEL, '--redis', 'redis://127.0.0.1:1', '--writers', '3'],
            'Invalid values:\n  Argument: writers, Given: 3, Choices: 1, 2',
        ],
        [[MODEL, '--redis', 'redis://127.0.0.1:1', '--ops', '0'], '--ops must be a whole number from 1, got 0'],
        [
            [MODEL, '--redis', 'redis://127.0.0.1:1', '--check-every', '2.5'],
            '--check-every must be a whole number from 1, got 2.5',
        ],
        [[MODEL, '--redis', 'redis://127.0.0.1:1', '--ids', '10'], '--ids must be a whole number from 1 to 9, got 10'],
    ])('%j: exit 2, %s', (args, message) => {
        const run = runKvmod(['workload', ...args]);
        expect(run.status).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr.startsWith(`kvmod: ${message}\nusage: kvmod workload <model>`)).toBe(true);
    });
});

describe('kvmod workload on RediSearch 1.2', () => {
    let server: RedisTestServer;

    beforeAll(async () => {
        server = await startRedis();
    }, 30_000);

    afterAll(async () => {
        await server?.stop();
    });

    test('a run: its summary on standard error, 0 differences, exit 0; the entities stay on the server', async () => {
        const run = await runKvmodAsync([
            'workload',
            MODEL,
            '--redis',
            server.url,
            '--ops',
            '200',
            '--seed',
            '4',
            '--check-every',
            '40',
        ]);
        expect(run.stderr).not.toMatch(STACK_TRACE);
        expect(run.stderr).toMatch(
            new RegExp(
                `^200 operations \\(\\d+ refused\\) by 1 writer on ${server.url.replace(/\./g, '\\.')} \\(redisearch1\\), seed 4; 5 live checks, \\d+ refusals digested\\n$`,
            ),
        );
        expect(run.stdout).toBe('0 differences\n');
        expect(run.status).toBe(0);
        const link = await connectRedis(server.url);
        try {
            const keys = (await link.send(['KEYS', 'kvmod:*'])) as string[];
            expect(keys.length).toBeGreaterThan(0);
        } finally {
            await link.close();
        }
    }, 120_000);

    test('--format json --writers 2: the report as one object', async () => {
        const run = await runKvmodAsync([
            'workload',
            MODEL,
            '--redis',
            server.url,
            '--ops',
            '200',
            '--writers',
            '2',
            '--format',
            'json',
        ]);
        expect(run.status).toBe(0);
        const report = JSON.parse(run.stdout) as Record<string, unknown>;
        expect(report).toMatchObject({
            model: MODEL,
            target: 'redis',
            engine: 'redisearch1',
            seed: 1,
            writers: 2,
            operations: 200,
            checks: 4,
            refusalsDigested: 0,
            ok: true,
        });
        expect(report.failure).toBeUndefined();
    }, 120_000);
});
