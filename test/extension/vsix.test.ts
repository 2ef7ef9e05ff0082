/**
 * The packaged extension: `scripts/build-extension.mjs --package` (what `npm run package` runs) produces a
 * .vsix (a zip) that carries the bundled client and server, the grammars, the language configurations
 * and the built-in templates, and nothing of the sources.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundles } from './lsp-test-client.js';

let outdir: string;
let vsix: string;
let entries: string[];

function unzipText(entry: string): string {
    return execFileSync('unzip', ['-p', vsix, entry], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

beforeAll(() => {
    outdir = mkdtempSync(join(tmpdir(), 'kvmod-vsix-'));
    buildBundles(['--package', '--outdir', outdir]);
    const name = readdirSync(outdir).find((file) => file.endsWith('.vsix'));
    if (!name) throw new Error('no .vsix was produced');
    vsix = join(outdir, name);
    entries = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).trim().split('\n');
}, 120000);

afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
});

describe('the packaged .vsix', () => {
    it('contains the bundled client and server, grammars and language configurations', () => {
        expect(entries).toEqual(
            expect.arrayContaining([
                'extension/package.json',
                'extension/LICENSE.txt',
                'extension/dist/extension.cjs',
                'extension/dist/server.cjs',
                'extension/syntaxes/pidm.tmLanguage.json',
                'extension/syntaxes/kvlm.tmLanguage.json',
                'extension/language-configuration/pidm.language-configuration.json',
                'extension/language-configuration/kvlm.language-configuration.json',
            ]),
        );
    });

    it('contains the built-in templates as files and the view-model schemas the generator validates against', () => {
        const templates = entries.filter((entry) => entry.startsWith('extension/templates/'));
        expect(templates.some((entry) => entry.endsWith('.hbs'))).toBe(true);
        expect(entries).toContain('extension/schemas/redis-view-model.schema.json');
    });

    it('leaves sources, tests, source maps and node_modules out', () => {
        expect(entries.filter((entry) => /\/(src|test|node_modules)\/|\.ts$|\.map$/.test(entry))).toEqual([]);
    });

    it('declares both languages, the commands and the settings in its manifest', () => {
        const manifest = JSON.parse(unzipText('extension/package.json'));
        expect(manifest.main).toBe('./dist/extension.cjs');
        expect(manifest.contributes.languages.map((language: { id: string }) => language.id)).toEqual(['pidm', 'kvlm']);
        expect(manifest.contributes.commands.map((command: { command: string }) => command.command)).toEqual([
            'kvmod.transform',
            'kvmod.generate',
            'kvmod.explainMerges',
            'kvmod.load',
            'kvmod.verify',
        ]);
        expect(Object.keys(manifest.contributes.configuration.properties).sort()).toEqual([
            'kvmod.dynamodb.pageSize',
            'kvmod.dynamodb.singleTable',
            'kvmod.generate.target',
            'kvmod.merge.policy',
            'kvmod.merge.threshold',
            'kvmod.output.folder',
            'kvmod.redis.dbPrefix',
            'kvmod.redis.dialect',
            'kvmod.redis.limit',
            'kvmod.report.dbPrefix',
            'kvmod.report.design',
            'kvmod.report.dialect',
            'kvmod.runtime.dataFile',
            'kvmod.runtime.redisUrl',
            'kvmod.templates.folder',
            'kvmod.typescript.dbPrefix',
            'kvmod.typescript.design',
            'kvmod.typescript.dialect',
            'kvmod.typescript.limit',
        ]);
        expect(manifest.files).toBeUndefined();
        // VS Code (>= 1.74) activates on the contributed languages by itself and flags explicit
        // `onLanguage:` events as redundant.
        expect(manifest.engines.vscode).toBe('^1.95.0');
        expect(manifest.activationEvents).toBeUndefined();
    });

    it('starts the server bundle with the Object.groupBy polyfill Langium needs on Node 20', () => {
        const server = unzipText('extension/dist/server.cjs');
        expect(server.indexOf('Object.groupBy')).toBeGreaterThanOrEqual(0);
        expect(server.indexOf('Object.groupBy')).toBeLessThan(600);
    });
});
