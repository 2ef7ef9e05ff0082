import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printPidm } from '../../src/language/pidm/pidm-printer.js';
import { checkHeapForTexts, estimateTokens, MEMORY_ISSUE_CODE } from '../../src/pipeline/memory-guard.js';
import { isKvmodError } from '../../src/pipeline/errors.js';
import { generateGridPidm } from '../../src/testing/random-pidm.js';
import { REPO_ROOT, STACK_TRACE } from './run-kvmod.js';

/** `kvmod <args>` in a node whose heap may not exceed `megabytes`, as on a machine with little memory. */
function runWithHeap(megabytes: number, args: string[]) {
    return spawnSync(process.execPath, [`--max-old-space-size=${megabytes}`, `${REPO_ROOT}bin/kvmod.js`, ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 50_000,
    });
}

describe('a model too large for the memory available', () => {
    test('validate, transform and generate stop before parsing with a sentence and exit 1, never a V8 crash', () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-memory-'));
        try {
            const path = join(dir, 'grid.pidm');
            // 1000 queries of 100 fields: about 1.2 MB of text, parsed it would take far more than 128 MB (Node 24
            // itself needs more than 64 MB to load kvmod's modules, so the heap cannot be smaller).
            writeFileSync(path, printPidm(generateGridPidm({ queries: 1000, fieldsPerQuery: 100, seed: 3 })));
            const runs = {
                validate: runWithHeap(128, ['validate', path]),
                transform: runWithHeap(128, ['transform', path, '-o', join(dir, 'out')]),
                generate: runWithHeap(128, ['generate', path, '--target', 'redis', '-o', join(dir, 'gen')]),
            };
            for (const run of Object.values(runs)) {
                expect(run.status).toBe(1);
                expect(run.stderr).not.toMatch(/FATAL ERROR|heap out of memory|Last few GCs/);
                expect(run.stderr).not.toMatch(STACK_TRACE);
            }
            const sentence = new RegExp(
                `^kvmod: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\([\\d.]+ [KM]B of text\\) needs about \\d+ MB of memory to (load|transform), more than the \\d+ MB this process may use; run kvmod with NODE_OPTIONS=--max-old-space-size=\\d+ on a machine with that much free memory\\n$`,
            );
            expect(runs.validate.stderr).toMatch(sentence);
            expect(runs.validate.stderr).toContain('to load,');
            expect(runs.transform.stderr).toMatch(sentence);
            expect(runs.transform.stderr).toContain('to transform,');
            expect(runs.generate.stderr).toContain('needs about');
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    test('the estimate counts tokens, names the input and scales with what follows', () => {
        expect(estimateTokens('query Q: SELECT a, E1.b FROM E0 // a comment\nWHERE a = "x y" and b >= -1.5')).toBe(23);
        // A 10 MB string literal is one token: loading it needs little.
        expect(() =>
            checkHeapForTexts('literal.pidm', [{ language: 'pidm', text: `"${'x'.repeat(10 * 1024 ** 2)}"` }]),
        ).not.toThrow();
        let error: unknown;
        try {
            checkHeapForTexts('huge.pidm', [{ language: 'pidm', text: 'a b c '.repeat(1000) }], 1e6, 'transform');
        } catch (caught) {
            error = caught;
        }
        expect(isKvmodError(error) && error.code).toBe(MEMORY_ISSUE_CODE);
        expect((error as Error).message).toMatch(
            /^huge\.pidm \(6 KB of text\) needs about \d+\.\d GB of memory to transform, more than/,
        );
    });
});
