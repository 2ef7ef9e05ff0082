/**
 * `kvmod doctor`: the server's Redis version, search module and dialect, on the real engine (RediSearch
 * 1.2 here; 2.x is the same code path with a version >= 20000, see redis-link's detectDialect).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startSilentServer } from '../support/silent-servers.js';

let search: RedisTestServer;
let plain: RedisTestServer;

beforeAll(async () => {
    [search, plain] = await Promise.all([startRedis(), startRedis({ search: false })]);
});

afterAll(async () => {
    await Promise.all([search?.stop(), plain?.stop()]);
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
        });
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
