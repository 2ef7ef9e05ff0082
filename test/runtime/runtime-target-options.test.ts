/**
 * `kvmod load` and `kvmod verify` take the target and its options exactly as `generate` does: a design
 * generated with `--db-prefix` loads under the generated names and verifies, on the real engine.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const MODEL = 'examples/airflights/airflights.pidm';

let server: RedisTestServer;
let dir: string;

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-target-options-'));
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

describe('load and verify with the target options of generate', () => {
    test('a design generated with --db-prefix --limit loads under the generated index names and key prefixes, and verifies', async () => {
        const data = join(dir, 'data.json');
        expect((await kvmod(['data', 'generate', MODEL, '--scale', '30', '--seed', '2', '-o', data])).code).toBe(0);
        const out = join(dir, 'out');
        expect(
            (await kvmod(['generate', MODEL, '-o', out, '--dialect', 'redisearch1', '--db-prefix', '--limit', '500']))
                .code,
        ).toBe(0);
        const script = await readFile(join(out, 'airflights', 'redis', 'redisearch1', 'indexes.redis'), 'utf8');
        const generatedIndexes = [...script.matchAll(/^FT\.CREATE (\S+) /gm)].map((m) => m[1]).sort();
        expect(generatedIndexes.every((name) => name.startsWith('airflights_'))).toBe(true);

        const load = await kvmod([
            'load',
            MODEL,
            '--data',
            data,
            '--redis',
            server.url,
            '--db-prefix',
            '--limit',
            '500',
        ]);
        expect(load.stderr).toContain('(redisearch1, detected)');
        expect(load.code).toBe(0);
        const link = await connectRedis(server.url);
        try {
            // RediSearch 1.2 has no FT._LIST: every generated name answers FT.INFO, the unprefixed ones do not.
            for (const index of generatedIndexes) {
                const info = (await link.send(['FT.INFO', index])) as unknown[];
                expect(info[info.indexOf('num_docs') + 1]).not.toBe('0');
                await expect(link.send(['FT.INFO', index.slice('airflights_'.length)])).rejects.toThrow(
                    /Unknown Index/i,
                );
            }
            const [, keys] = (await link.send(['SCAN', '0', 'COUNT', '10000'])) as [string, string[]];
            expect(keys.length).toBeGreaterThan(0);
            // Row keys start with the prefix; RediSearch 1.2's own keys (idx:, nm:, tag:…) and the pointer keys
            // (kvmod:index:…) name the prefixed index; the design record and the entity store (kvmod:airflights:{…})
            // are named after the database.
            expect(keys.filter((key) => key.startsWith('airflights_')).length).toBeGreaterThan(0);
            expect(keys.filter((key) => key.startsWith('kvmod:airflights:{')).length).toBeGreaterThan(0);
            expect(keys.filter((key) => !/^((\w+:|kvmod:index:)?airflights_|kvmod:airflights:\{)/.test(key))).toEqual([
                'kvmod:design:airflights',
            ]);
        } finally {
            await link.close();
        }

        const verify = await kvmod([
            'verify',
            MODEL,
            '--data',
            data,
            '--redis',
            server.url,
            '--db-prefix',
            '--samples',
            '4',
        ]);
        expect(verify.stdout).toContain('queries match the oracle');
        expect(verify.code).toBe(0);
    });

    test('a bad target option value is a usage error naming the valid ones (exit 2), before any connection', async () => {
        const result = await kvmod([
            'load',
            MODEL,
            '--data',
            'x.json',
            '--redis',
            'redis://127.0.0.1:1',
            '--limit',
            'many',
        ]);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain('--limit');
    });
});
