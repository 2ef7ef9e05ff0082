/**
 * `kvmod.config.json` (found upward from the working folder; options override it; REDIS_URL overrides its
 * redis; problems at file:line:col) and `--watch` (runs again on change, never exits on a model error).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const RIDE = 'test/fixtures/pidm/ride-literals.pidm';

let project: string;
let sub: string;

async function kvmod(args: string[], env: Record<string, string | undefined> = {}) {
    const io = memoryIo();
    const status = await main(args, io, { cwd: sub, env });
    return { status, stdout: io.stdout, stderr: io.stderr };
}

async function writeConfig(text: string): Promise<string> {
    const file = join(project, 'kvmod.config.json');
    await writeFile(file, text);
    return relative(process.cwd(), file);
}

/** Waits until `read()` matches, polling (a watch run takes a moment). */
async function until(read: () => string, pattern: RegExp, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!pattern.test(read())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${pattern} in:\n${read()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'kvmod-config-'));
    sub = join(project, 'deep', 'er');
    await mkdir(sub, { recursive: true });
    await mkdir(join(project, 'models'));
    await cp(RIDE, join(project, 'models', 'ride.pidm'));
});

afterAll(async () => {
    await rm(project, { recursive: true, force: true });
});

describe('kvmod.config.json', () => {
    test('found upward: its models, output folder and dialect apply; options override them', async () => {
        await writeConfig(
            '{\n  // the project\n  "models": ["models"],\n  "output": "out",\n  "dialect": "redisearch1",\n}\n',
        );
        const validated = await kvmod(['validate']);
        expect(validated.status).toBe(0);
        expect(validated.stderr).toBe('1 file checked: 0 errors, 0 warnings, 1 info\n');
        expect((await kvmod(['generate'])).status).toBe(0);
        const readme = await readFile(join(project, 'out', 'ride', 'redis', 'redisearch1', 'README.md'), 'utf8');
        expect(readme.split('\n')[0]).toContain('RediSearch 1.2');
        const other = join(project, 'other');
        expect(
            (await kvmod(['generate', join(project, 'models', 'ride.pidm'), '-o', other, '--dialect', 'redisearch2']))
                .status,
        ).toBe(0);
        expect((await readFile(join(other, 'ride', 'redis', 'redisearch2', 'README.md'), 'utf8')).split('\n')[0]).toContain('2.x');
    });

    test('problems are reported at file:line:col, exit 1', async () => {
        const file = await writeConfig('{\n  "models": "models",\n  "merge": "fast",\n  "colour": 1\n}\n');
        const run = await kvmod(['validate']);
        expect(run.status).toBe(1);
        expect(run.stderr).toBe(
            [
                `kvmod: ${file}:2:13: 'models' must be array`,
                `${file}:3:12: 'merge' must be one of "safe", "paper", "none"`,
                `${file}:4:3: unknown property 'colour' in the file`,
                '',
            ].join('\n'),
        );
    });

    describe('with a server', () => {
        let server: RedisTestServer;
        beforeAll(async () => {
            server = await startRedis();
        });
        afterAll(async () => {
            await server?.stop();
        });

        test('REDIS_URL overrides the redis of the config; --redis overrides both', async () => {
            await writeConfig(
                '{ "models": ["models/ride.pidm"], "data": "data.json", "redis": "redis://127.0.0.1:1" }',
            );
            expect(
                (
                    await kvmod([
                        'data',
                        'generate',
                        join(project, 'models/ride.pidm'),
                        '--scale',
                        '10',
                        '-o',
                        join(project, 'data.json'),
                    ])
                ).status,
            ).toBe(0);
            const fromEnv = await kvmod(['load'], { REDIS_URL: server.url });
            expect(fromEnv.status).toBe(0);
            expect(fromEnv.stderr).toContain(server.url);
            const fromConfig = await kvmod(['load']);
            expect(fromConfig.status).toBe(1);
            expect(fromConfig.stderr).toContain('127.0.0.1:1');
            const fromFlag = await kvmod(['load', '--redis', server.url], { REDIS_URL: 'redis://127.0.0.1:1' });
            expect(fromFlag.status).toBe(0);
        });
    });
});

describe('--watch', () => {
    test('generate --watch runs again on change, reports a model error and goes on, ends with exit 0', async () => {
        await writeConfig('{ "models": ["models"], "output": "out" }');
        const model = join(project, 'models', 'ride.pidm');
        const good = await readFile(model, 'utf8');
        const io = memoryIo();
        const controller = new AbortController();
        const finished = main(['generate', '--watch'], io, { cwd: sub, signal: controller.signal });
        const err = () => io.stderr;
        try {
            await until(err, /1 model: 1 generated, 0 failed\nkvmod: watching for changes/);
            await writeFile(model, `${good}query QX: SELECT bad FROM Ride\n`);
            await until(err, /ride\.pidm changed: running again\n[\s\S]*0 generated, 1 failed\nkvmod: watching/);
            expect(io.stdout).toContain("error: Unknown attribute 'bad' of entity Ride. [pidm.unknown-name]");
            await writeFile(model, good);
            await until(
                err,
                /0 generated, 1 failed[\s\S]*running again[\s\S]*1 model: 1 generated, 0 failed\nkvmod: watching/,
            );
        } finally {
            controller.abort();
        }
        expect(await finished).toBe(0);
    });
});
