/**
 * `kvmod doctor`: the server's Redis version, search module and dialect, on the real engine (RediSearch
 * 1.2 here; 2.x is the same code path with a version >= 20000, see redis-link's detectDialect).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';
import { queryTimeoutWarning, timeoutFromLoadArgs } from '../../src/runtime/redisearch/redis-query-timeout.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startSilentServer } from '../support/silent-servers.js';

let search: RedisTestServer;
let plain: RedisTestServer;
let stock: RedisTestServer;

beforeAll(async () => {
    [search, plain, stock] = await Promise.all([
        startRedis(),
        startRedis({ search: false }),
        startRedis({ queryTimeout: null }),
    ]);
});

afterAll(async () => {
    await Promise.all([search?.stop(), plain?.stop(), stock?.stop()]);
});

async function kvmod(args: string[], env: Record<string, string | undefined> = {}) {
    const io = memoryIo();
    const status = await main(args, io, { env });
    return { status, stdout: io.stdout, stderr: io.stderr };
}

describe('kvmod doctor', () => {
    test('names the module and the dialect to generate for', async () => {
        const run = await kvmod(['doctor', '--redis', search.url]);
        expect(run.status).toBe(0);
        expect(run.stdout).toMatch(
            new RegExp(
                `^server: ${search.url.replace(/\./g, '\\.')} \\(Redis \\d+\\.\\d+\\.\\d+\\)\\n` +
                    'search module: RediSearch 1\\.2\\.\\d+ -> dialect redisearch1\\n' +
                    'generate with: kvmod generate <model> --dialect redisearch1 \\(scripts for 2\\.x would create indexes that never index a row here\\)\\n$',
            ),
        );
        const json = await kvmod(['doctor', '--format', 'json'], { REDIS_URL: search.url });
        expect(json.status).toBe(0);
        expect(JSON.parse(json.stdout)).toEqual({
            server: search.url,
            redisVersion: expect.stringMatching(/^\d+\.\d+\.\d+$/),
            searchVersion: expect.any(Number),
            dialect: 'redisearch1',
            warnings: [],
        });
    });

    test('a 1.2 module loaded with its stock TIMEOUT (500 ms, ON_TIMEOUT return) is a warning with the fix', async () => {
        const warning =
            `${stock.url} runs RediSearch 1.2 with TIMEOUT 500 and ON_TIMEOUT return: a query that runs longer ` +
            'answers part of its rows with no error, its total cut too, and 1.2 has no per-query TIMEOUT and no ' +
            'FT.CONFIG. Load the module with TIMEOUT 0 and restart the server: redis-server --loadmodule ' +
            '<path>/redisearch.so TIMEOUT 0 (in redis.conf: loadmodule <path>/redisearch.so TIMEOUT 0)';
        const run = await kvmod(['doctor', '--redis', stock.url]);
        expect(run.status).toBe(0);
        expect(run.stdout.split('\n').slice(-2)).toEqual([`warning: ${warning}`, '']);
        const json = await kvmod(['doctor', '--format', 'json', '--redis', stock.url]);
        expect(JSON.parse(json.stdout).warnings).toEqual([warning]);
    });

    test('verify refuses a 1.2 server whose timeout cuts answers; load says so and goes on', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'kvmod-doctor-'));
        try {
            const model = 'examples/tournament/tournament.pidm';
            const workspace = await loadWorkspace([model]);
            const runtime = buildRuntimeModel(workspace.pidm.map((entry) => entry.model));
            const data = join(dir, 'data.json');
            await writeFile(data, JSON.stringify(generateInstanceData(runtime, { scale: 10, seed: 1 })));
            const verify = await kvmod(['verify', model, '--data', data, '--redis', stock.url]);
            expect(verify.status).toBe(1);
            expect(verify.stderr).toMatch(
                /^kvmod: verify cannot trust an answer: redis:\/\/127\.0\.0\.1:\d+ runs RediSearch 1\.2 with TIMEOUT 500 and ON_TIMEOUT return: /,
            );
            const load = await kvmod(['load', model, '--data', data, '--redis', stock.url]);
            expect(load.status).toBe(0);
            expect(load.stderr).toContain('kvmod: warning: redis://');
            expect(load.stderr).toContain('Load the module with TIMEOUT 0 and restart the server');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    test('the settings a module reads: load arguments of 1.2 (defaults where absent), and when each dialect warns', () => {
        expect(timeoutFromLoadArgs(['SAFEMODE', 'TIMEOUT', '0'])).toEqual({ timeoutMs: 0, onTimeout: 'return' });
        expect(timeoutFromLoadArgs([])).toEqual({ timeoutMs: 500, onTimeout: 'return' });
        expect(timeoutFromLoadArgs(['on_timeout', 'FAIL', 'timeout', '20'])).toEqual({
            timeoutMs: 20,
            onTimeout: 'fail',
        });
        expect(queryTimeoutWarning('s', 'redisearch1', { timeoutMs: 20, onTimeout: 'fail' })).toBeNull();
        expect(queryTimeoutWarning('s', 'redisearch1', null)).toContain('MODULE LIST would not say');
        expect(queryTimeoutWarning('s', 'redisearch2', null)).toBeNull();
        expect(queryTimeoutWarning('s', 'redisearch2', { timeoutMs: 0, onTimeout: 'return' })).toBeNull();
        expect(queryTimeoutWarning('s', 'redisearch2', { timeoutMs: 500, onTimeout: 'return' })).toBe(
            's runs its search queries with TIMEOUT 500 and ON_TIMEOUT return: a query that runs longer answers part ' +
                "of its rows with no error, its total cut too. The redisearch2 design's queries (scripts, generated " +
                'client, verify) pass TIMEOUT 0 for themselves; for other clients run FT.CONFIG SET ON_TIMEOUT FAIL (an ' +
                'error instead of a part; Redis 8: CONFIG SET search-on-timeout fail)',
        );
    });

    test('a server without the module and a server that is not there are clear errors, exit 1', async () => {
        const bare = await kvmod(['doctor', '--redis', plain.url]);
        expect(bare.status).toBe(1);
        expect(bare.stderr).toBe(
            `kvmod: ${plain.url} has no RediSearch module (MODULE LIST shows none); load redisearch.so or use Redis Stack / Redis 8, or use the design for Redis without a module: --target redis-core (Redis 7 or later)\n`,
        );
        const gone = await kvmod(['doctor', '--redis', 'redis://127.0.0.1:1']);
        expect(gone.status).toBe(1);
        expect(gone.stderr).toMatch(/^kvmod: cannot connect to redis:\/\/127\.0\.0\.1:1/);
        const secret = await kvmod(['doctor', '--redis', 'redis://127.0.0.1:1/?password=hunter2']);
        expect(secret.stderr).toBe('kvmod: cannot connect to redis://127.0.0.1:1/?password=***: connection refused\n');
    });

    test('a server that never answers is given up after --timeout, with one line naming it', async () => {
        const silent = await startSilentServer();
        try {
            const run = await kvmod(['doctor', '--redis', `redis://127.0.0.1:${silent.port}`, '--timeout', '0.5']);
            expect(run).toEqual({
                status: 1,
                stdout: '',
                stderr: `kvmod: cannot connect to redis://127.0.0.1:${silent.port}: it accepted the connection but did not answer the handshake within 0.5 s (is it a Redis server, and not paused?)\n`,
            });
        } finally {
            await silent.close();
        }
    });
});
