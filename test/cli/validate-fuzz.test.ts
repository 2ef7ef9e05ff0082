/**
 * Whatever a .pidm file holds ends in diagnostics and exit 0 or 1: never a stack trace, never a hang.
 * Seeded mutations of the airflights example (byte flips, truncation, random tokens, deleted lines) run
 * in-process through `runValidate`, and a handful through the real command.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runValidate } from '../../src/cli/validate-actions.js';
import { mutateModel } from '../../src/testing/model-fuzz.js';
import { createRandom as random } from '../../src/testing/random-pidm.js';
import { DIAGNOSTIC_LINE, REPO_ROOT, runKvmod, STACK_TRACE } from './run-kvmod.js';

const SEED = 20261122;
const IN_PROCESS_CASES = 300;
const SPAWNED_CASES = 6;

/** One mutated copy of the source: the loaders' fuzz mutator (src/testing/model-fuzz.ts), PIDM tokens. */
const mutate = (source: string, next: () => number) => mutateModel(source, 'pidm', next);

/** The checks every run must pass, whatever the input. */
function expectCleanOutcome(label: string, status: number | null, stdout: string, stderr: string): void {
    const context = `${label}\n--- stdout\n${stdout.slice(0, 2000)}\n--- stderr\n${stderr.slice(0, 2000)}`;
    expect({ context, status: [0, 1].includes(status ?? -1) }).toEqual({ context, status: true });
    expect({ context, stack: STACK_TRACE.test(stdout + stderr) }).toEqual({ context, stack: false });
    expect({ context, internal: stderr.includes('internal error') }).toEqual({ context, internal: false });
    // Langium turns a crashing scope provider or check into such a diagnostic: a bug, even if it prints well.
    expect({ context, crash: /An error occurred (while resolving|during validation)/.test(stdout) }).toEqual({
        context,
        crash: false,
    });
    for (const line of stdout.split('\n').filter((l) => l !== '')) {
        expect({ context, line, format: DIAGNOSTIC_LINE.test(line) }).toEqual({ context, line, format: true });
    }
}

describe('validate on mutated models', () => {
    let dir: string;
    let source: string;

    beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'kvmod-fuzz-'));
        source = await readFile(join(REPO_ROOT, 'examples/airflights/airflights.pidm'), 'utf8');
    });
    afterAll(async () => {
        await rm(dir, { recursive: true, force: true });
    });

    it(`ends every one of ${IN_PROCESS_CASES} seeded mutations in diagnostics and exit 0 or 1 (in-process)`, async () => {
        const next = random(SEED);
        let withErrors = 0;
        for (let i = 0; i < IN_PROCESS_CASES; i++) {
            const path = join(dir, `case-${i}.pidm`);
            await writeFile(path, mutate(source, next));
            const io = memoryIo();
            const status = await runValidate({ files: [path] }, io);
            expectCleanOutcome(`seed ${SEED}, case ${i}: ${path}`, status, io.stdout, io.stderr);
            if (status === 1) withErrors++;
        }
        // The mutations must actually break things, or the test proves nothing.
        expect(withErrors).toBeGreaterThan(IN_PROCESS_CASES / 2);
    }, 240_000);

    it(`ends ${SPAWNED_CASES} seeded mutations in exit 0 or 1 through the real command`, async () => {
        const next = random(SEED + 1);
        for (let i = 0; i < SPAWNED_CASES; i++) {
            const path = join(dir, `spawned-${i}.pidm`);
            await writeFile(path, mutate(source, next));
            const run = runKvmod(['validate', path]);
            expectCleanOutcome(`seed ${SEED + 1}, spawned case ${i}: ${path}`, run.status, run.stdout, run.stderr);
        }
    }, 120_000);

    it('ends binary bytes, a 10 MB line and 10,000 nested parentheses in exit 1 through the real command', async () => {
        const next = random(SEED + 2);
        const inputs: Record<string, string | Buffer> = {
            'binary.pidm': Buffer.from(Array.from({ length: 64 * 1024 }, () => Math.floor(next() * 256))),
            'long-line.pidm': `${source}\nquery Q: SELECT x FROM A WHERE x = "${'b'.repeat(10 * 1024 * 1024)}"\n`,
            'long-name.pidm': `entity A { id x ${'y'.repeat(10 * 1024 * 1024)} text ref }\n`,
            'nested.pidm': `${source}\nquery Q: SELECT code FROM Flight WHERE ${'('.repeat(10_000)}code = "?"${')'.repeat(10_000)}\n`,
            'nots.pidm': `${source}\nquery Q: SELECT code FROM Flight WHERE ${'not '.repeat(10_000)}code = "?"\n`,
            'truncated.pidm': source.slice(0, source.indexOf('WHERE capacity') + 8),
        };
        for (const [name, content] of Object.entries(inputs)) {
            const path = join(dir, name);
            await writeFile(path, content);
            const run = runKvmod(['validate', path]);
            expectCleanOutcome(name, run.status, run.stdout, run.stderr);
            expect({ name, status: run.status }).toEqual({ name, status: 1 });
        }
    }, 180_000);
});
