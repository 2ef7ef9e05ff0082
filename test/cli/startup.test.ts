/**
 * `kvmod --help` and `kvmod --version` start fast because they load only yargs and the light command
 * modules: the heavy dependencies load inside a command's handler. Checked by what the process loads (a
 * module resolution trace), not by timing.
 */
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modulesResolvedBy, REPO_ROOT } from './run-kvmod.js';
import { generationTargets } from '../../src/generation/generation-targets.js';

const HEAVY = ['langium', 'chevrotain', 'handlebars', 'redis', '@redis', 'ajv', 'cli-progress', 'tinyglobby'];

/**
 * The only modules of the language layer and the runtime the command metadata may load: pure rules without
 * imports (the calendar-date rule, which the value encoder the command metadata reaches uses; the default timeout
 * and URL redaction that `load --help` and the messages share with the runtime), and the engine registry, whose
 * lines import each engine lazily (`--target` of load and verify lists the targets that run on an engine).
 */
const LIGHT = new Set([
    'src/language/common/calendar-date.js',
    'src/runtime/redis-connection/redis-url.js',
    'src/runtime/engine-registry.js',
    'src/runtime/engine.js',
]);

/**
 * A file of the CLI bundle (out/cli/) stands for the modules esbuild put in it, each marked by a `// <path>` line
 * (`// node_modules/langium/lib/…`, `// out/src/cli/main.js`); any other URL stands for itself.
 */
function bundledModules(url: string): string[] {
    if (!/\/out\/cli\/[^/]+\.js$/.test(url)) return [url];
    const marks = readFileSync(new URL(url), 'utf8').matchAll(/^\/\/ ((?:node_modules|out)\/\S+\.(?:[cm]?js|json))$/gm);
    return [url, ...[...marks].map((mark) => `${REPO_ROOT}${mark[1]}`)];
}

/** The packages and compiled kvmod modules `kvmod <args>` loads (bundled or not), with its exit status. */
function modulesLoadedBy(args: string[]): { status: number | null; packages: Set<string>; modules: string[] } {
    const { status, urls } = modulesResolvedBy(args);
    const loaded = urls.flatMap(bundledModules);
    const packages = new Set(loaded.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
    const modules = loaded.flatMap((url) => /\/out\/(src\/.+\.js)$/.exec(url)?.[1] ?? []);
    return { status, packages, modules };
}

describe('kvmod start-up', () => {
    it.each([['--version'], ['--help'], ['transform', '--help'], ['load', '--help']])(
        'kvmod %s loads yargs but none of the heavy dependencies',
        (...args) => {
            const { status, packages, modules } = modulesLoadedBy(args);
            expect(status).toBe(0);
            expect(packages).toContain('yargs');
            for (const heavy of HEAVY)
                expect([...packages].filter((p) => p === heavy || p.startsWith(`${heavy}/`))).toEqual([]);
            // No action module and nothing of the language layer or the pipeline but its error type.
            expect(modules.filter((m) => /-actions\.js$|\/language\/|\/runtime\//.test(m) && !LIGHT.has(m))).toEqual(
                [],
            );
            expect([...new Set(modules.filter((m) => m.includes('/pipeline/')))]).toEqual(['src/pipeline/errors.js']);
        },
    );

    it('running a command loads its action module, and only then the heavy dependencies', () => {
        const { status, packages, modules } = modulesLoadedBy(['validate', 'test/cli/fixtures/clean.pidm']);
        expect(status).toBe(0);
        expect(modules).toContain('src/cli/validate-actions.js');
        expect(modules).not.toContain('src/cli/load-actions.js');
        expect(packages).toContain('langium');
        expect(packages).not.toContain('redis');
        // The languages without the editor's services (kvmod-core-module.ts): no language server library, no
        // editor providers.
        expect(packages).not.toContain('vscode-languageserver');
        // Nor the protocol package: Langium's core takes its five names from vscode-jsonrpc's modules in the bundle
        // (scripts/build-cli-bundle.mjs, lean-protocol).
        expect(packages).not.toContain('vscode-languageserver-protocol');
        expect(packages).toContain('vscode-jsonrpc');
        expect(modules.filter((m) => m.startsWith('src/language/lsp/') || /formatter|code-actions/.test(m))).toEqual(
            [],
        );
    });

    it.each([...[...generationTargets.keys()].map((name) => [name]), ['typescript', '--design', 'redis-core']])(
        'kvmod generate --target %s, which talks to no server, loads no node-redis',
        (...target) => {
            const dir = mkdtempSync(join(tmpdir(), 'kvmod-startup-'));
            try {
                const { status, packages, modules } = modulesLoadedBy([
                    'generate',
                    'examples/airflights/airflights.pidm',
                    '--target',
                    ...target,
                    '-o',
                    dir,
                ]);
                expect(status).toBe(0);
                expect(modules).toContain('src/cli/generate-actions.js');
                expect(packages).toContain('langium');
                expect([...packages].filter((p) => p === 'redis' || p.startsWith('@redis/'))).toEqual([]);
                expect(modules.filter((m) => m.includes('/redis-connection/') && !LIGHT.has(m))).toEqual([]);
            } finally {
                rmSync(dir, { recursive: true, force: true });
            }
        },
    );

    it('a load connects through node-redis, loaded only when the command connects', () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-startup-'));
        try {
            const data = join(dir, 'data.json');
            writeFileSync(data, '{}');
            const { status, packages, modules } = modulesLoadedBy([
                'load',
                'examples/airflights/airflights.pidm',
                '--data',
                data,
                '--redis',
                'redis://127.0.0.1:1',
            ]);
            expect(status).toBe(1); // connection refused, after the link's code ran
            expect(modules).toContain('src/runtime/redis-connection/redis-link.js');
            expect(packages).toContain('langium');
            expect(packages).toContain('@redis/client');
            expect(packages).not.toContain('vscode-languageserver-protocol');
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
