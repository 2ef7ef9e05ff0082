import { describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomically } from '../../src/generation/generation-writer.js';
import { explainDecisions, transformFiles } from '../../src/pipeline/transform.js';

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
