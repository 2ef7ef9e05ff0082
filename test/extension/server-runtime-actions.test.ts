/**
 * The editor's Load and Verify commands through their action functions (what the language server runs for
 * `kvmod.server.load` / `kvmod.server.verify`), against the real Redis with RediSearch the test support
 * starts: the server from the config file or the setting, synthetic data when no data file is named, the
 * password never printed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URI } from 'langium';
import { loadIntoConfiguredServer, verifyOnConfiguredServer } from '../../src/extension/server-runtime-actions.js';
import { redisCli, startRedis, type RedisTestServer } from '../support/redis-server.js';
import { REPO_ROOT } from '../cli/run-kvmod.js';

let dir: string;
let model: string;
let server: RedisTestServer;

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-editor-runtime-'));
    model = join(dir, 'ride.pidm');
    await copyFile(join(REPO_ROOT, 'test/fixtures/pidm/ride-literals.pidm'), model);
    server = await startRedis();
});

afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
});

const uri = () => URI.file(model).toString();

describe('the editor commands Load and Verify', () => {
    it('without a configured server say where to configure one', async () => {
        const result = await verifyOnConfiguredServer({ uri: uri(), settings: {} }, {});
        expect(result).toEqual({
            ok: false,
            messages: [
                'kvmod: no Redis server is configured: set "redis" in kvmod.config.json (or kvmod.config.ts), the REDIS_URL environment variable, or the kvmod.runtime.redisUrl setting',
            ],
            written: [],
        });
    });

    it("verify with the setting's server and synthetic data: every query matches the oracle", async () => {
        const result = await verifyOnConfiguredServer({ uri: uri(), settings: { redisUrl: server.url } }, {});
        expect(result.ok).toBe(true);
        expect(result.messages[0]).toBe('no data file configured: synthetic data, 100 objects per entity (seed 1)');
        expect(result.messages).toContain(`loaded 200 rows into ${server.url} (redisearch1)`);
        expect(result.messages.at(-1)!.split('\n').at(-1)).toBe('all 3 queries match the oracle');
    });

    it("load takes the config file's server and data over the settings (REDIS_URL over the config)", async () => {
        const config = join(dir, 'kvmod.config.json');
        const data = join(dir, 'data.json');
        await writeFile(
            data,
            JSON.stringify({ Rider: [{ riderId: 'r1', name: 'Ann', city: 'Oslo' }], Driver: [], Ride: [] }),
        );
        await writeFile(config, JSON.stringify({ redis: 'redis://127.0.0.1:1', data: 'data.json' }));
        // The server holds the entities of the verify before, which this data file lacks: load would refuse them.
        expect((await redisCli(server.port, ['FLUSHALL'])).stdout.trim()).toBe('OK');
        try {
            const fromEnv = await loadIntoConfiguredServer(
                { uri: uri(), settings: { redisUrl: 'redis://127.0.0.1:2' } },
                { REDIS_URL: server.url },
            );
            expect(fromEnv.ok).toBe(true);
            expect(fromEnv.messages.at(-1)).toBe(`loaded 0 rows into ${server.url} (redisearch1, detected)`);
            const fromConfig = await loadIntoConfiguredServer({ uri: uri(), settings: { redisUrl: server.url } }, {});
            expect(fromConfig).toEqual({
                ok: false,
                messages: ['kvmod: cannot connect to redis://127.0.0.1:1: connection refused'],
                written: [],
            });
        } finally {
            await rm(config);
        }
    });

    it('a wrong password is reported with the password hidden', async () => {
        const url = server.url.replace('redis://', 'redis://:hunter2@');
        const result = await loadIntoConfiguredServer({ uri: uri(), settings: { redisUrl: url } }, {});
        expect(result.ok).toBe(false);
        expect(result.messages.at(-1)).toMatch(/^kvmod: cannot connect to redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: /);
        expect(result.messages.join('\n')).not.toContain('hunter2');
    });
});
