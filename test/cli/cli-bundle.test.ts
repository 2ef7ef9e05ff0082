/**
 * `bin/kvmod.js` runs the esbuild bundle of the command line (out/cli/main.js, built by `npm test`'s pretest after
 * tsc) when it is at least as new as tsc's out/src/cli/main.js, and out/src otherwise. The bundle must answer
 * exactly as the modules it was built from: the same output, messages (yargs' locales included) and exit codes.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import {
    copyFileSync,
    mkdirSync,
    mkdtempSync,
    readdirSync,
    readFileSync,
    rmSync,
    utimesSync,
    writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { modulesResolvedBy, REPO_ROOT, STACK_TRACE } from './run-kvmod.js';

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };

/** The folder the compared commands write into (`{out}` in their arguments), emptied before each run. */
let out: string;

/**
 * Runs the repository's `kvmod <args>` and reads what it wrote into `{out}`; `unbundled` sets KVMOD_NO_BUNDLE=1
 * (out/src, as before the bundle).
 */
function kvmod(args: string[], options: { unbundled?: boolean; env?: Record<string, string> } = {}) {
    const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env };
    if (options.unbundled) env.KVMOD_NO_BUNDLE = '1';
    else delete env.KVMOD_NO_BUNDLE;
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out);
    const run = spawnSync(process.execPath, [`${REPO_ROOT}bin/kvmod.js`, ...args.map((a) => a.replace('{out}', out))], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 50_000,
        env,
    });
    const files = Object.fromEntries(
        readdirSync(out, { recursive: true, withFileTypes: true })
            .filter((entry) => entry.isFile())
            .map((entry) => {
                const path = join(entry.parentPath, entry.name);
                return [relative(out, path), readFileSync(path, 'utf8')];
            }),
    );
    return { status: run.status, stdout: run.stdout, stderr: run.stderr, files };
}

/** The kvmod entry modules (`cli/main.js` or `src/cli/main.js`, relative to out/) a run of `kvmod <args>` loads. */
function entriesLoadedBy(args: string[], env: Record<string, string | undefined>): string[] {
    const { status, urls } = modulesResolvedBy(args, env);
    expect(status).toBe(0);
    return urls.flatMap((url) => /\/out\/((?:src\/)?cli\/main\.js)$/.exec(url)?.[1] ?? []);
}

describe('the bundled command line', () => {
    beforeAll(() => {
        out = join(mkdtempSync(join(tmpdir(), 'kvmod-bundle-out-')), 'out');
    });

    afterAll(() => rmSync(join(out, '..'), { recursive: true, force: true }));

    it('is what bin/kvmod.js runs after a build, and it prints the version of package.json', () => {
        expect(entriesLoadedBy(['--version'], { ...process.env, KVMOD_NO_BUNDLE: undefined })).toEqual(['cli/main.js']);
        expect(kvmod(['--version'])).toEqual({ status: 0, stdout: `${manifest.version}\n`, stderr: '', files: {} });
    });

    it('KVMOD_NO_BUNDLE=1 runs the modules tsc compiled instead', () => {
        expect(entriesLoadedBy(['--version'], { ...process.env, KVMOD_NO_BUNDLE: '1' })).toEqual(['src/cli/main.js']);
    });

    it.each([
        { args: ['--help'] },
        { args: ['generate', '--help'] },
        { args: ['valdate', 'x.pidm'] },
        { args: ['transform', '--key-strategy', 'natural', 'x.pidm'] },
        { args: ['validate', 'test/cli/fixtures/unknown-attributes.pidm'] },
        { args: ['validate', 'no-such-file.pidm'] },
        { args: ['transform', 'examples/airflights/airflights.pidm', '--explain', '-o', '{out}'] },
        { args: ['generate', 'examples/airflights/airflights.pidm', '--target', 'redis', '-o', '{out}'] },
        { args: ['generate', 'examples/airflights/airflights.pidm', '--target', 'typescript', '-o', '{out}'] },
        { args: ['templates', 'list'] },
        // A check that fails once the command is chosen: its usage line comes from the help text yargs keeps
        // for the command (rendered when shown, build-cli-bundle.mjs `yargsLazyHelpText`).
        { args: ['load', 'x.pidm', '--data', 'd.json', '--redis', 'redis://127.0.0.1:1', '--timeout', '-1'] },
        { args: ['data', 'generate', 'x.pidm', '--scale', 'many'] },
        // yargs' own messages in the user's language: the bundle reads the locales of the installed yargs.
        { args: ['validate'], env: { LANG: 'de_DE.UTF-8' } },
        { args: ['load', '--help'], env: { LANG: 'fr_FR.UTF-8' } },
    ])('kvmod $args answers as the unbundled modules do ($env)', ({ args, env }) => {
        const bundled = kvmod(args, { env });
        expect(bundled).toEqual(kvmod(args, { env, unbundled: true }));
        expect(bundled.stdout + bundled.stderr).not.toMatch(STACK_TRACE);
    });
});

describe("bin/kvmod.js's choice between the bundle and out/src", () => {
    // A copy of the real bin next to two stand-in entries that say which one ran.
    let root: string;
    const bundle = () => join(root, 'out/cli/main.js');
    const compiled = () => join(root, 'out/src/cli/main.js');
    // A checkout has the sources (src/cli/main.ts); an installed package has none.
    const writeSource = () => {
        mkdirSync(join(root, 'src/cli'), { recursive: true });
        writeFileSync(join(root, 'src/cli/main.ts'), '');
    };
    const stub = (name: string) => `export async function main() { process.stdout.write('${name}\\n'); return 0; }\n`;
    const run = (env: Record<string, string> = {}) => {
        const result = spawnSync(process.execPath, [join(root, 'bin/kvmod.js'), '--version'], {
            encoding: 'utf8',
            env: { PATH: process.env.PATH, ...env },
        });
        return `${result.stdout}${result.stderr}`.trim();
    };

    beforeAll(() => {
        root = mkdtempSync(join(tmpdir(), 'kvmod-bin-'));
        for (const folder of ['bin', 'scripts', 'out/cli', 'out/src/cli'])
            mkdirSync(join(root, folder), { recursive: true });
        for (const file of ['bin/kvmod.js', 'scripts/polyfills.mjs'])
            copyFileSync(join(REPO_ROOT, file), join(root, file));
        writeFileSync(bundle(), stub('bundle'));
        writeFileSync(compiled(), stub('compiled'));
        writeSource();
    });

    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it.each([
        { when: 'the bundle is newer than out/src/cli/main.js', bundled: 1_700_000_001, runs: 'bundle' },
        { when: 'both have the same time', bundled: 1_700_000_000, runs: 'bundle' },
        { when: 'tsc compiled after the bundle was built (a stale bundle)', bundled: 1_699_999_999, runs: 'compiled' },
        // An installed package: npm writes out/cli before out/src.
        { when: 'out/src is newer but there is no src/', bundled: 1_699_999_999, installed: true, runs: 'bundle' },
        { when: 'KVMOD_NO_BUNDLE is set', bundled: 1_700_000_001, env: { KVMOD_NO_BUNDLE: '1' }, runs: 'compiled' },
    ])('runs the $runs when $when', ({ bundled, installed, env, runs }) => {
        if (installed) rmSync(join(root, 'src'), { recursive: true, force: true });
        else writeSource();
        utimesSync(compiled(), 1_700_000_000, 1_700_000_000);
        utimesSync(bundle(), bundled, bundled);
        expect(run(env)).toBe(runs);
    });

    it('runs out/src when there is no bundle, and says what to build when neither is there', () => {
        writeSource();
        rmSync(bundle());
        expect(run()).toBe('compiled');
        rmSync(compiled());
        expect(run()).toMatch(/^kvmod: kvmod is not built: run 'npm run build:ts' \(/);
    });
});
