import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomically } from '../../src/generation/generation-writer.js';
import { explainDecisions, transformFiles } from '../../src/pipeline/transform.js';
import { checkBuiltKvlm, loadTexts } from '../../src/pipeline/load.js';
import { kvlmToJson } from '../../src/language/kvlm/kvlm-json.js';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import type { Mutable } from '../../src/language/common/ast-construction.js';
import type { KProjection, KvlmModel } from '../../src/language/generated/ast.js';

describe('transformFiles', () => {
    test('a PIDM with errors yields its diagnostics and no KVLM', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-transform-'));
        try {
            const path = join(dir, 'broken.pidm');
            writeFileSync(path, 'entity A { x text }\nquery Q: SELECT y FROM A\n');
            const result = await transformFiles([path]);
            expect(result.kvlm).toBeUndefined();
            expect(result.kvlmText).toBeUndefined();
            expect(result.diagnostics.some((d) => d.severity === 'error')).toBe(true);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    test('a bad option is a user error with the reason', async () => {
        await expect(transformFiles(['examples/airflights/airflights.pidm'], { threshold: 2 })).rejects.toThrow(
            'the threshold must be a number in (0, 1], got 2',
        );
    });

    test('the database is named after the first file and the source defaults to its base name', async () => {
        const result = await transformFiles(['examples/airflights/airflights.pidm'], { merge: 'none' });
        expect(
            result.kvlmText?.startsWith('database airflights\nsource "airflights.pidm"\nmerge none threshold 0.8\n'),
        ).toBe(true);
        expect(explainDecisions(result.decisions, result.options)).toContain('Merging is off (--merge none)');
        expect(result.databaseOrigin).toEqual({
            name: 'airflights',
            source: 'file-name',
            at: 'examples/airflights/airflights.pidm',
        });
    });

    test('a `database` declaration names the database instead of the file name, in any file of the model', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-transform-'));
        try {
            const entities = join(dir, 'clinic.v1.pidm');
            const queries = join(dir, 'queries.pidm');
            writeFileSync(entities, 'entity Patient { id pid  name text }\n');
            writeFileSync(queries, '// the clinic\n  database clinic\nquery Q: SELECT pid, name FROM Patient\n');
            const declared = await transformFiles([entities, queries]);
            expect(declared.kvlmText?.startsWith('database clinic\nsource "clinic.v1.pidm"\n')).toBe(true);
            expect(declared.options.databaseName).toBe('clinic');
            expect(declared.databaseOrigin).toEqual({ name: 'clinic', source: 'declared', at: `${queries}:2:3` });
            writeFileSync(queries, 'query Q: SELECT pid, name FROM Patient\n');
            const named = await transformFiles([entities, queries]);
            expect(named.kvlmText?.startsWith('database clinic_v1\n')).toBe(true);
            expect(named.databaseOrigin).toEqual({ name: 'clinic_v1', source: 'file-name', at: entities });
            const given = await transformFiles([entities, queries], { databaseName: 'other' });
            expect(given.databaseOrigin).toEqual({ name: 'other', source: 'option', at: '' });
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    test('writing is atomic: the target appears whole and no temporary file is left', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-atomic-'));
        try {
            const path = join(dir, 'sub', 'model.kvlm');
            await writeFileAtomically(path, 'first\n');
            await writeFileAtomically(path, 'second\n');
            expect(readFileSync(path, 'utf8')).toBe('second\n');
            expect(readdirSync(join(dir, 'sub'))).toEqual(['model.kvlm']);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});

describe('the in-memory check of the transformation output', () => {
    test('each example: the printed KVLM parses back to the same model with the same diagnostics', async () => {
        for (const example of ['airflights', 'book-ratings', 'tournament']) {
            const result = await transformFiles([`examples/${example}/${example}.pidm`]);
            const loaded = await loadTexts([{ path: `${example}.kvlm`, text: result.kvlmText ?? '' }]);
            expect(loaded.hasErrors).toBe(false);
            expect(kvlmToJson(loaded.kvlm[0].model)).toEqual(kvlmToJson(result.kvlm as KvlmModel));
            expect(printKvlm(loaded.kvlm[0].model)).toBe(result.kvlmText);
            const kvlmDiagnostics = result.diagnostics.filter((d) => d.path === `${example}.kvlm`);
            expect(kvlmDiagnostics.map((d) => `${d.code} ${d.message}`)).toEqual(
                loaded.diagnostics.map((d) => `${d.code} ${d.message}`),
            );
        }
    });

    test('a reference that would link elsewhere in the printed text, and a broken rule, are errors', async () => {
        const result = await transformFiles(['examples/airflights/airflights.pidm']);
        const kvlm = result.kvlm as KvlmModel;
        const collection = kvlm.collections[0];
        const [first, second] = collection.fields;
        // The projection names the first field but holds the second: printing would silently change it.
        const projection = collection.queries[0].projections[0] as Mutable<KProjection>;
        projection.field = { ref: second, $refText: first.name } as typeof projection.field;
        (second as Mutable<typeof second>).name = first.name;
        const diagnostics = await checkBuiltKvlm(kvlm, 'airflights.kvlm');
        const codes = diagnostics.filter((d) => d.severity === 'error').map((d) => d.code);
        expect(codes).toContain('internal.unlinked-reference');
        expect(codes).toContain('kvlm.duplicate-name');
        expect(diagnostics.find((d) => d.code === 'internal.unlinked-reference')?.message).toBe(
            `The reference '${first.name}' (KProjection.field) would link to another Field in the printed text.`,
        );
    });
});
