/**
 * One rule for what the model is (src/language/common/model-sets.ts), as the commands apply it to a
 * folder: a copy of a model beside it, a model split across two files, and the `.kvlm` that `transform`
 * wrote beside its model. `validate`, `transform` and `generate` agree on it.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runValidate } from '../../src/cli/validate-actions.js';
import { runTransform } from '../../src/cli/transform-actions.js';
import { runGenerate } from '../../src/cli/generate-actions.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { groupModelFiles } from '../../src/pipeline/model-files.js';

const SOURCE = readFileSync('examples/airflights/airflights.pidm', 'utf8');
const ENTITIES =
    'entity Author {\n  id name unique\n  ref Book[*] books\n}\n\nentity Book {\n  id isbn unique\n  title text\n}\n';
const QUERIES = 'query authorsOfBook:\nSELECT name\nFROM Author\nINCLUDE Author.books as B\nWHERE B.title = "?"\n';

let dir: string;

beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kvmod-models-'));
    writeFileSync(join(dir, 'airflights.pidm'), SOURCE);
    writeFileSync(join(dir, 'airflights-copy.pidm'), SOURCE.replace('SELECT firstName,', 'SELECT firstNam,'));
    writeFileSync(join(dir, 'library-entities.pidm'), ENTITIES);
    writeFileSync(join(dir, 'library-queries.pidm'), QUERIES);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const p = (name: string) => join(dir, name);

describe('the model rule on a folder', () => {
    it('splits a folder into models: a copy is a model of its own, a split model is one, in the order given', async () => {
        const sets = await groupModelFiles([
            p('airflights-copy.pidm'),
            p('airflights.pidm'),
            p('library-entities.pidm'),
            p('library-queries.pidm'),
        ]);
        expect(sets).toEqual([
            { files: [p('airflights-copy.pidm')], derived: [] },
            { files: [p('airflights.pidm')], derived: [] },
            { files: [p('library-entities.pidm'), p('library-queries.pidm')], derived: [] },
        ]);
    });

    it('reports the typo of the copy once, with no duplicate names between the models', async () => {
        const workspace = await loadWorkspace([
            p('airflights-copy.pidm'),
            p('airflights.pidm'),
            p('library-entities.pidm'),
            p('library-queries.pidm'),
        ]);
        expect(workspace.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.path, d.code])).toEqual([
            [p('airflights-copy.pidm'), 'pidm.unknown-name'],
        ]);
    });

    it('validate, transform and generate agree; the .kvlm transform wrote joins its model and is not generated again', async () => {
        const folder = mkdtempSync(join(tmpdir(), 'kvmod-models-cli-'));
        try {
            cpSync(p('airflights.pidm'), join(folder, 'airflights.pidm'));
            cpSync(p('airflights.pidm'), join(folder, 'airflights2.pidm'));
            const transform = memoryIo();
            expect(await runTransform({ models: [join(folder, 'airflights.pidm')] }, transform)).toBe(0);
            expect(existsSync(join(folder, 'airflights.kvlm'))).toBe(true);

            const sets = await groupModelFiles([
                join(folder, 'airflights.kvlm'),
                join(folder, 'airflights.pidm'),
                join(folder, 'airflights2.pidm'),
            ]);
            expect(sets).toEqual([
                {
                    files: [join(folder, 'airflights.kvlm'), join(folder, 'airflights.pidm')],
                    derived: [join(folder, 'airflights.kvlm')],
                },
                { files: [join(folder, 'airflights2.pidm')], derived: [] },
            ]);

            const validate = memoryIo();
            expect(await runValidate({ files: [folder] }, validate)).toBe(0);
            expect(validate.stdout).not.toMatch(/error|duplicate/i);

            const generate = memoryIo();
            const out = join(folder, 'out');
            expect(await runGenerate({ inputs: [folder], out, target: 'redis' }, generate)).toBe(0);
            expect(generate.stdout + generate.stderr).toContain('2 models: 2 generated, 0 failed');
            expect(generate.stdout + generate.stderr).toContain(
                `${join(folder, 'airflights.kvlm')} was transformed from a model among the inputs: that model is generated instead`,
            );

            const several = memoryIo();
            await expect(runTransform({ models: [folder] }, several)).rejects.toThrow(
                `the files hold 2 separate models (${join(folder, 'airflights.kvlm')}, ${join(folder, 'airflights2.pidm')}): transform one model at a time`,
            );
        } finally {
            rmSync(folder, { recursive: true, force: true });
        }
    }, 60_000);
});
