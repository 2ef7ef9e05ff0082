/**
 * `kvmod.config.json` (found upward from the working folder; options override it; REDIS_URL overrides its
 * redis; problems at file:line:col) and `--watch` (runs again on change, never exits on a model error).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import type { GenerateReport } from '../../src/cli/generate-actions.js';
import { REPORT_DESIGNS } from '../../src/generation/report/report-designs.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { startSilentServer } from '../support/silent-servers.js';
import { REPO_ROOT } from './run-kvmod.js';

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
        expect(
            (await readFile(join(other, 'ride', 'redis', 'redisearch2', 'README.md'), 'utf8')).split('\n')[0],
        ).toContain('2.x');
    });

    test('problems are reported at file:line:col, exit 1', async () => {
        const file = await writeConfig('{\n  "models": "models",\n  "merge": "fast",\n  "colour": 1\n}\n');
        const run = await kvmod(['validate']);
        expect(run.status).toBe(1);
        expect(run.stderr).toBe(
            [
                `kvmod: ${file}:2:13: 'models' must be array`,
                `${file}:3:12: 'merge' must be one of "safe", "paper", "none", "cost"`,
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

        test('generate --redis generates for the dialect the server speaks; a --dialect that differs is an error', async () => {
            const model = join(project, 'models/ride.pidm');
            const out = join(project, 'probed');
            const probed = await kvmod(['generate', model, '-o', out, '--redis', server.url]);
            expect(probed.status).toBe(0);
            expect(probed.stderr.split('\n')[0]).toBe(
                `kvmod: ${server.url} runs RediSearch 1.2.0: generating for dialect redisearch1`,
            );
            const json = await kvmod(['generate', model, '-o', out, '--redis', server.url, '--format', 'json']);
            const report = JSON.parse(json.stdout) as GenerateReport;
            expect(report.server).toEqual({
                url: server.url,
                searchVersion: 10200,
                module: 'RediSearch 1.2.0',
                dialect: 'redisearch1',
                options: { dialect: 'redisearch1' },
            });
            expect(report.models[0].outputDir).toBe(join(out, 'ride', 'redis', 'redisearch1'));
            const refused = await kvmod([
                'generate',
                model,
                '-o',
                join(project, 'refused'),
                '--redis',
                server.url,
                '--dialect',
                'redisearch2',
            ]);
            expect(refused).toEqual({
                status: 1,
                stdout: '',
                stderr: `kvmod: ${server.url} runs dialect redisearch1, but dialect redisearch2 was asked for (--dialect or the config's dialect): its scripts would be accepted there and do nothing; drop it to generate for the server, or drop --redis to generate for another one\n`,
            });
            expect(existsSync(join(project, 'refused'))).toBe(false);
            // A target without an engine of its own is asked through the default engine for what it shares.
            const client = await kvmod(['generate', model, '-o', out, '-t', 'typescript', '--redis', server.url]);
            expect(client.status).toBe(0);
            expect(existsSync(join(out, 'ride', 'typescript', 'redisearch1'))).toBe(true);
            // The report shows the access paths of the dialect it is given, so the server decides it too.
            const forServer = await kvmod(['generate', model, '-o', out, '-t', 'report', '--redis', server.url]);
            expect(forServer.status).toBe(0);
            expect(await readFile(join(out, 'ride', 'report', REPORT_DESIGNS[0], 'report.md'), 'utf8')).toContain(
                'RediSearch 1.2',
            );
            const secret = server.url.replace('redis://', 'redis://:hunter2@');
            const wrong = await kvmod(['generate', model, '-o', out, '--redis', secret]);
            expect(wrong.status).toBe(1);
            expect(wrong.stderr).toMatch(/^kvmod: cannot connect to redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: /);
            expect(wrong.stderr).not.toContain('hunter2');
        });

        test('load, verify and doctor take the models folder of the config, and a target that runs on the engine of the Redis design', async () => {
            const data = join(project, 'folder-data.json');
            expect(
                (await kvmod(['data', 'generate', join(project, 'models/ride.pidm'), '--scale', '10', '-o', data]))
                    .status,
            ).toBe(0);
            await writeConfig(
                `{ "models": ["models"], "data": "folder-data.json", "target": "typescript", "redis": "${server.url}" }`,
            );
            const loaded = await kvmod(['load']);
            expect(loaded.stderr).toMatch(
                new RegExp(`^loaded \\d+ rows into ${server.url} \\(redisearch1, detected\\)$`, 'm'),
            );
            expect(loaded.status).toBe(0);
            const verified = await kvmod(['verify', '--format', 'json']);
            expect(verified.status).toBe(0);
            // The config's paths are relative to its folder; the commands see them from the working folder.
            const models = relative(process.cwd(), join(project, 'models'));
            expect(JSON.parse(verified.stdout)).toMatchObject({
                model: `${models}/ride.pidm`,
                target: 'typescript',
                ok: true,
            });
            const doctor = await kvmod(['doctor']);
            expect(doctor.status).toBe(0);
            expect(doctor.stdout).toContain('-> dialect redisearch1');
            await cp(RIDE, join(project, 'models', 'second.pidm'));
            try {
                const two = await kvmod(['load']);
                expect(two.status).toBe(2);
                expect(two.stderr.split('\n')[0]).toBe(
                    `kvmod: '${models}' holds 2 models (${models}/ride.pidm, ${models}/second.pidm): name the one to use`,
                );
            } finally {
                await rm(join(project, 'models', 'second.pidm'));
            }
        });

        test("the config's redis is used by generate only when --redis is given without a URL", async () => {
            await writeConfig('{ "models": ["models"], "output": "out-probe", "redis": "redis://127.0.0.1:1" }');
            const plain = await kvmod(['generate']);
            expect(plain.status).toBe(0);
            expect(existsSync(join(project, 'out-probe', 'ride', 'redis', 'redisearch2'))).toBe(true);
            const unreachable = await kvmod(['generate', '--redis']);
            expect(unreachable.stderr).toBe('kvmod: cannot connect to redis://127.0.0.1:1: connection refused\n');
            const fromEnv = await kvmod(['generate', '--redis'], { REDIS_URL: server.url });
            expect(fromEnv.status).toBe(0);
            expect(existsSync(join(project, 'out-probe', 'ride', 'redis', 'redisearch1'))).toBe(true);
            await writeConfig('{ "models": ["models"], "output": "out-probe" }');
            const none = await kvmod(['generate', '--redis']);
            expect(none.status).toBe(2);
            expect(none.stderr.split('\n')[0]).toBe(
                'kvmod: --redis without a URL uses the redis of the config file or REDIS_URL, and neither is set: give --redis redis://host:port',
            );
        });
    });
});

describe('kvmod.config.ts', () => {
    const tsConfig = () => join(project, 'kvmod.config.ts');
    afterEach(async () => {
        await rm(tsConfig(), { force: true });
        await rm(join(project, 'kvmod.config.json'), { force: true });
    });

    /** The compiled `kvmod/config` module (a project imports it from the package; see package-install.test.ts). */
    const defineConfigModule = join(REPO_ROOT, 'out/src/api/config.js');

    test('found upward, TypeScript stripped, typed with defineConfig; a setting that is undefined is absent', async () => {
        await rm(join(project, 'kvmod.config.json'), { force: true });
        await writeFile(
            tsConfig(),
            [
                `import { defineConfig, type KvmodConfig } from ${JSON.stringify(defineConfigModule)};`,
                "const dialect: KvmodConfig['dialect'] = 'redisearch1';",
                "export default defineConfig({ models: ['models'], output: 'out-ts', dialect, redis: process.env.KVMOD_TEST_UNSET });",
                '',
            ].join('\n'),
        );
        const run = await kvmod(['generate', '--format', 'json']);
        expect(run.status).toBe(0);
        expect((JSON.parse(run.stdout) as GenerateReport).models[0].outputDir).toBe(
            relative(process.cwd(), join(project, 'out-ts', 'ride', 'redis', 'redisearch1')),
        );
    });

    test('schema problems name the property path; a syntax error its line and column; no default export says what to write', async () => {
        const shown = relative(process.cwd(), tsConfig());
        await writeFile(tsConfig(), "export default { models: 'models', merge: 'fast', colour: 1, timeout: 0 };\n");
        const invalid = await kvmod(['validate']);
        expect(invalid.status).toBe(1);
        expect(invalid.stderr).toBe(
            [
                `kvmod: ${shown}: unknown property 'colour' in the file`,
                `${shown}: 'models' must be array`,
                `${shown}: 'merge' must be one of "safe", "paper", "none", "cost"`,
                `${shown}: 'timeout' must be > 0`,
                '',
            ].join('\n'),
        );
        await writeFile(tsConfig(), 'const x: number = 1;\nexport default { models: [\n');
        expect((await kvmod(['validate'])).stderr).toBe(`kvmod: ${shown}:3:1: syntax error: Unexpected token\n`);
        await writeFile(tsConfig(), 'export const models = ["models"];\n');
        expect((await kvmod(['validate'])).stderr).toBe(
            `kvmod: ${shown}: no default export: write \`export default defineConfig({ … })\` (defineConfig from 'kvmod/config')\n`,
        );
        await writeFile(tsConfig(), "throw new Error('set KVMOD_HOME first');\n");
        expect((await kvmod(['validate'])).stderr).toBe(
            `kvmod: ${shown}: the config failed to load: set KVMOD_HOME first\n`,
        );
        await writeFile(join(project, 'kvmod.config.json'), '{}');
        const both = await kvmod(['validate']);
        expect(both.status).toBe(1);
        expect(both.stderr).toBe(
            `kvmod: 2 config files in ${relative(process.cwd(), project)} (kvmod.config.ts, kvmod.config.json): keep one\n`,
        );
    });

    test("what a script throws is printed without a URL's password", async () => {
        const shown = relative(process.cwd(), tsConfig());
        await writeFile(
            tsConfig(),
            "throw new Error('cannot reach redis://admin:hunter2@db:6379 nor redis://db:6380/0?password=hunter2');\n",
        );
        expect((await kvmod(['validate'])).stderr).toBe(
            `kvmod: ${shown}: the config failed to load: cannot reach redis://admin:***@db:6379 nor redis://db:6380/0?password=***\n`,
        );
    });

    test('the search stops at the project root; --config names a file, --no-config reads none', async () => {
        const model = join(project, 'models', 'ride.pidm');
        // A script above the project (here: above the folder with package.json) is code the project does not hold.
        await writeFile(tsConfig(), "throw new Error('the config above the project ran');\n");
        await writeFile(join(project, 'deep', 'package.json'), '{ "name": "inner", "private": true }\n');
        try {
            const inside = await kvmod(['validate', model]);
            expect([inside.status, inside.stderr]).toEqual([0, '1 file checked: 0 errors, 0 warnings, 1 info\n']);
        } finally {
            await rm(join(project, 'deep', 'package.json'));
        }
        const found = await kvmod(['validate', model]);
        expect(found.status).toBe(1);
        expect(found.stderr).toContain('the config above the project ran');
        const none = await kvmod(['validate', model, '--no-config']);
        expect([none.status, none.stderr]).toEqual([0, '1 file checked: 0 errors, 0 warnings, 1 info\n']);
        const other = join(project, 'other.config.json');
        await writeFile(other, '{ "models": ["models"], "output": "out-named" }\n');
        try {
            const named = await kvmod(['generate', '--config', other]);
            expect(named.status).toBe(0);
            expect(existsSync(join(project, 'out-named', 'ride', 'redis', 'redisearch2'))).toBe(true);
        } finally {
            await rm(other);
        }
        const missing = await kvmod(['validate', model, '--config', join(project, 'nowhere.json')]);
        expect(missing).toEqual({
            status: 1,
            stdout: '',
            stderr: `kvmod: ${relative(process.cwd(), join(project, 'nowhere.json'))}: no such config file\n`,
        });
        const both = await kvmod(['validate', model, '--no-config', '--config', other]);
        expect(both.status).toBe(2);
        expect(both.stderr.split('\n')[0]).toBe('kvmod: give --config <file> or --no-config, once and not both');
    });

    test('its timeout is the --timeout of load (a server that never answers is given up after it)', async () => {
        const silent = await startSilentServer();
        try {
            const data = join(project, 'ts-data.json');
            expect(
                (await kvmod(['data', 'generate', join(project, 'models/ride.pidm'), '--scale', '5', '-o', data]))
                    .status,
            ).toBe(0);
            await writeFile(
                tsConfig(),
                `export default { models: ['models/ride.pidm'], data: 'ts-data.json', redis: 'redis://127.0.0.1:${silent.port}', timeout: 0.5 };\n`,
            );
            const run = await kvmod(['load']);
            expect(run.status).toBe(1);
            expect(run.stderr).toContain('did not answer the handshake within 0.5 s');
        } finally {
            await silent.close();
        }
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

    test('generate --watch reads a changed config file again: its new settings apply to the next run', async () => {
        await writeConfig('{ "models": ["models"], "output": "out-config" }');
        const io = memoryIo();
        const controller = new AbortController();
        const finished = main(['generate', '--watch'], io, { cwd: sub, signal: controller.signal });
        const err = () => io.stderr;
        const readme = (dialect: string) => join(project, 'out-config', 'ride', 'redis', dialect, 'README.md');
        try {
            await until(err, /1 model: 1 generated, 0 failed\nkvmod: watching for changes/);
            expect(existsSync(readme('redisearch2'))).toBe(true);
            expect(existsSync(readme('redisearch1'))).toBe(false);
            await writeConfig('{ "models": ["models"], "output": "out-config", "dialect": "redisearch1" }');
            await until(
                err,
                /kvmod\.config\.json changed: running again\n[\s\S]*1 generated, 0 failed\nkvmod: watching/,
            );
            expect((await readFile(readme('redisearch1'), 'utf8')).split('\n')[0]).toContain('RediSearch 1.2');
        } finally {
            controller.abort();
        }
        expect(await finished).toBe(0);
    });

    test('validate --watch on the models folder sees every kind of save: rename-saves, in-place saves, new and deleted files and folders', async () => {
        const folder = join(project, 'watched');
        await rm(folder, { recursive: true, force: true });
        await mkdir(folder);
        const model = join(folder, 'ride.pidm');
        await cp(RIDE, model);
        const good = await readFile(model, 'utf8');
        const bad = `${good}query QX: SELECT bad FROM Ride\n`;
        await writeConfig('{ "models": ["watched"], "output": "out" }');
        const io = memoryIo();
        const controller = new AbortController();
        const finished = main(['validate', '--watch'], io, { cwd: sub, signal: controller.signal });
        // The summary of the n-th run (each run ends with the line saying the watch goes on).
        const runs = () => io.stderr.split('kvmod: watching for changes (Ctrl-C to stop)\n');
        const run = async (n: number) => {
            const end = Date.now() + 20_000;
            while (runs().length - 1 < n) {
                if (Date.now() > end) throw new Error(`timed out waiting for run ${n} in:\n${io.stderr}`);
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            const summary = runs()[n - 1].trim().split('\n');
            return summary[summary.length - 1];
        };
        /** Writes a new file and renames it over the old one, as `sed -i` and many editors save. */
        const renameSave = async (text: string) => {
            await writeFile(`${model}.tmp`, text);
            await rename(`${model}.tmp`, model);
        };
        try {
            expect(await run(1)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            await renameSave(bad);
            expect(await run(2)).toBe('1 file checked: 1 error, 0 warnings, 1 info');
            await writeFile(model, good); // in place, after a rename-save: the save that went unseen
            expect(await run(3)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            await renameSave(bad);
            expect(await run(4)).toBe('1 file checked: 1 error, 0 warnings, 1 info');
            await renameSave(good);
            expect(await run(5)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            await writeFile(join(folder, 'second.pidm'), good);
            expect(await run(6)).toBe('2 files checked: 0 errors, 0 warnings, 2 infos');
            await rm(join(folder, 'second.pidm'));
            expect(await run(7)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            await mkdir(join(folder, 'later')); // a folder made is a run too, and is watched from then on
            expect(await run(8)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            await writeFile(join(folder, 'later', 'third.pidm'), good);
            expect(await run(9)).toBe('2 files checked: 0 errors, 0 warnings, 2 infos');
            await writeFile(join(folder, 'later', 'third.pidm'), bad);
            expect(await run(10)).toBe('2 files checked: 1 error, 0 warnings, 2 infos');
            await rm(join(folder, 'later'), { recursive: true });
            expect(await run(11)).toBe('1 file checked: 0 errors, 0 warnings, 1 info');
            // A folder with a model moved in (made elsewhere, then renamed into the watched folder).
            const outside = join(project, 'moving');
            await rm(outside, { recursive: true, force: true });
            await mkdir(outside);
            await writeFile(join(outside, 'fourth.pidm'), good);
            await rename(outside, join(folder, 'later'));
            expect(await run(12)).toBe('2 files checked: 0 errors, 0 warnings, 2 infos');
            await writeFile(join(folder, 'later', 'fourth.pidm'), bad);
            expect(await run(13)).toBe('2 files checked: 1 error, 0 warnings, 2 infos');
        } finally {
            controller.abort();
        }
        expect(await finished).toBe(0);
    });
});
