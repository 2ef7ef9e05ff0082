/**
 * The npm package as a user gets it: `npm pack`, install the tarball into an empty project, then run every
 * command through `npx kvmod` and import the library API (and type-check a use of it). The tarball's
 * dependencies come from npm's cache (filled by the repository's own `npm install`), the registry only for
 * what the cache lacks. Also checks that `engines.node` is true to every installed dependency.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import semver from 'semver';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { modulesResolvedBy, REPO_ROOT, STACK_TRACE } from './run-kvmod.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
    engines: { node: string };
};

let dir: string;
let project: string;
let packed: string[];
let install: SpawnSyncReturns<string>;
let redis: RedisTestServer;

function npm(args: string[], cwd: string): SpawnSyncReturns<string> {
    return spawnSync('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
        cwd,
        encoding: 'utf8',
        timeout: 240_000,
        env: { ...process.env, NO_COLOR: '1' },
    });
}

/** Type-checks a file of the project as a strict TypeScript project using the installed package would. */
function typeCheck(file: string): SpawnSyncReturns<string> {
    return spawnSync(
        process.execPath,
        [
            join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
            '--noEmit',
            '--strict',
            '--module',
            'nodenext',
            '--moduleResolution',
            'nodenext',
            '--target',
            'es2022',
            '--skipLibCheck',
            '--types',
            'node',
            '--typeRoots',
            join(REPO_ROOT, 'node_modules/@types'),
            file,
        ],
        { cwd: project, encoding: 'utf8', timeout: 120_000 },
    );
}

/** `npx --no kvmod <args>` in the project: the installed package's bin, never a download. */
function npx(args: string[]): SpawnSyncReturns<string> {
    return spawnSync('npx', ['--no', '--', 'kvmod', ...args], {
        cwd: project,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
}

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kvmod-package-'));
    project = join(dir, 'project');
    // `out/` is built by `npm test`'s pretest; --ignore-scripts keeps `npm pack` from building it again.
    const pack = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO_ROOT);
    expect(pack.status).toBe(0);
    const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as {
        filename: string;
        files: { path: string }[];
    }[];
    packed = info.files.map((file) => file.path);
    cpSync(join(REPO_ROOT, 'examples/book-ratings/book-ratings.pidm'), join(project, 'ride.pidm'));
    writeFileSync(join(project, 'package.json'), '{ "name": "try-kvmod", "private": true, "type": "module" }\n');
    install = npm(['install', '--prefer-offline', join(dir, info.filename)], project);
    redis = await startRedis();
}, 300_000);

afterAll(async () => {
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
});

describe('the npm package', () => {
    it('ships what the bin and the library load, and no tests, sources or source maps', () => {
        for (const file of [
            'bin/kvmod.js',
            'scripts/polyfills.mjs',
            'lib/index.js',
            'lib/index.d.ts',
            'lib/config.js',
            'lib/config.d.ts',
            'out/src/api/index.js',
            'out/src/api/index.d.ts',
            'out/src/cli/main.js',
            'out/cli/main.js',
            'templates/redis/indexes.redis.hbs',
            'schemas/redis-view-model.schema.json',
        ]) {
            expect(packed).toContain(file);
        }
        expect(packed.filter((file) => /\.map$|^src\/|^test\/|^out\/src\/testing\//.test(file))).toEqual([]);
    });

    it('installs into an empty project', () => {
        expect({ status: install.status, stderr: install.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
        expect(existsSync(join(project, 'node_modules/kvmod/bin/kvmod.js'))).toBe(true);
    });

    it('runs the command line from its bundle, whatever times npm gave the files', () => {
        const { status, urls } = modulesResolvedBy(
            ['--version'],
            process.env,
            join(project, 'node_modules/kvmod/bin/kvmod.js'),
        );
        expect(status).toBe(0);
        expect(urls.filter((url) => url.endsWith('/cli/main.js'))).toEqual([
            pathToFileURL(join(project, 'node_modules/kvmod/out/cli/main.js')).href,
        ]);
    });

    it("claims no Node version that an installed dependency's engines exclude", () => {
        const claims = manifest.engines.node;
        // semver.subset cannot split one range over a union (>=22.12 over ^22.12 || >=23): check the claim's
        // lowest version and the start, middle and end of every major line it admits instead.
        const lines = Array.from({ length: 30 }, (_, i) => 18 + i).flatMap((major) =>
            [0, 12, 99].map((minor) => `${major}.${minor}.0`),
        );
        const admitted = [semver.minVersion(claims)!.version, ...lines].filter((v) => semver.satisfies(v, claims));
        const excluding: string[] = [];
        const visit = (modules: string) => {
            for (const name of readdirSync(modules)) {
                if (name.startsWith('.')) continue;
                if (name.startsWith('@')) {
                    visit(join(modules, name));
                    continue;
                }
                const pkgFile = join(modules, name, 'package.json');
                if (!existsSync(pkgFile)) continue;
                const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name: string; engines?: { node?: string } };
                const wants = pkg.engines?.node;
                if (wants && !admitted.every((version) => semver.satisfies(version, wants)))
                    excluding.push(`${pkg.name} wants node ${wants}`);
                if (existsSync(join(modules, name, 'node_modules'))) visit(join(modules, name, 'node_modules'));
            }
        };
        visit(join(project, 'node_modules'));
        expect(excluding).toEqual([]);
        // On a Node that the claim admits, npm has nothing to warn about.
        if (semver.satisfies(process.version, claims)) expect(install.stderr).not.toContain('EBADENGINE');
    });

    it("claims no engine but Node: the editor's engine belongs to the extension's manifest", () => {
        const installed = JSON.parse(readFileSync(join(project, 'node_modules/kvmod/package.json'), 'utf8')) as {
            engines: Record<string, string>;
        };
        expect(installed.engines).toEqual({ node: manifest.engines.node });
        expect(install.stderr).not.toMatch(/vscode/);
    });

    it('runs every command through npx', () => {
        const runs: [string[], RegExp][] = [
            [['--version'], new RegExp(`^${manifest.version.replace(/\./g, '\\.')}$`, 'm')],
            [['validate', 'ride.pidm'], /1 file checked: 0 errors/],
            [['transform', 'ride.pidm', '-o', 'kvlm'], /wrote kvlm[/\\]ride\.kvlm/],
            [['generate', 'ride.pidm', '-o', 'generated'], /1 model: 1 generated, 0 failed/],
            [['templates', 'list'], /indexes\.redis\.hbs/],
            [['templates', 'eject', 'redis', 'my-templates'], /my-templates/],
            [['data', 'schema', 'ride.pidm'], /"\$schema"/],
            [['data', 'generate', 'ride.pidm', '--scale', '20', '--seed', '3', '-o', 'data.json'], /data\.json/],
            [['data', 'check', 'ride.pidm', '--data', 'data.json'], /data\.json/],
            [['load', 'ride.pidm', '--data', 'data.json', '--redis', redis.url, '--dialect', 'redisearch1'], /rows/],
            [['verify', 'ride.pidm', '--data', 'data.json', '--redis', redis.url], /match the oracle/],
        ];
        for (const [args, expected] of runs) {
            const run = npx(args);
            const output = run.stdout + run.stderr;
            expect({ args, status: run.status }).toEqual({ args, status: 0 });
            expect(output).toMatch(expected);
            expect(output).not.toMatch(STACK_TRACE);
        }
        expect(existsSync(join(project, 'generated/ride/redis/redisearch2/indexes.redis'))).toBe(true);
    });

    it('reads a kvmod.config.ts that imports defineConfig from kvmod/config, typed', () => {
        const config = join(project, 'kvmod.config.ts');
        writeFileSync(
            config,
            [
                "import { defineConfig } from 'kvmod/config';",
                "export default defineConfig({ models: ['ride.pidm'], output: 'from-config', dialect: 'redisearch1' });",
                '',
            ].join('\n'),
        );
        try {
            const run = npx(['generate', '--format', 'json']);
            expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.any(String) });
            expect(run.stderr).not.toContain('kvmod');
            expect(JSON.parse(run.stdout).models[0].outputDir).toBe(
                join('from-config', 'ride', 'redis', 'redisearch1'),
            );
            writeFileSync(
                join(project, 'typed-config.ts'),
                "import { defineConfig } from 'kvmod/config';\nexport default defineConfig({ threshold: 'high' });\n",
            );
            const tsc = typeCheck('typed-config.ts');
            expect(tsc.stdout.trim()).toBe(
                "typed-config.ts(2,31): error TS2322: Type 'string' is not assignable to type 'number'.",
            );
        } finally {
            rmSync(config);
        }
    });

    it('serves the library API to an import, with types', () => {
        const script = [
            "import { generateModels, loadWorkspace, transformFiles } from 'kvmod';",
            "const workspace = await loadWorkspace(['ride.pidm']);",
            "const transformed = await transformFiles(['ride.pidm']);",
            "const [generated] = await generateModels(['ride.pidm'], { target: 'redis', outDir: 'api-out' });",
            'console.log(JSON.stringify({ errors: workspace.hasErrors, kvlm: transformed.kvlmText?.startsWith("database"), files: generated.files }));',
        ].join('\n');
        writeFileSync(join(project, 'use.mjs'), script);
        const run = spawnSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8', timeout: 120_000 });
        expect(run.stderr).toBe('');
        expect(JSON.parse(run.stdout)).toEqual({
            errors: false,
            kvlm: true,
            files: ['indexes.redis', 'writes.redis', 'queries.redis', 'entities.lua', 'README.md'],
        });

        writeFileSync(
            join(project, 'use.ts'),
            [
                "import { generateModels, type ModelGenerationResult } from 'kvmod';",
                "const ok: ModelGenerationResult[] = await generateModels(['ride.pidm'], { target: 'redis', outDir: 'o' });",
                "await generateModels(['ride.pidm'], { target: 1, outDir: 'o' });",
                'console.log(ok);',
            ].join('\n'),
        );
        const tsc = typeCheck('use.ts');
        // The one error is the deliberate misuse on line 3: the declarations resolve and type the API.
        expect(tsc.stdout.trim()).toBe("use.ts(3,39): error TS2322: Type 'number' is not assignable to type 'string'.");
    });
});
