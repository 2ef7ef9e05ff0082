import { describe, expect, test } from '@jest/globals';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { runTransform } from '../../src/cli/transform-actions.js';
import { validateKvlmJson } from '../../src/language/kvlm/kvlm-json.js';
import { REPO_ROOT, runKvmod, STACK_TRACE } from './run-kvmod.js';

const example = (file: string) => readFileSync(join(REPO_ROOT, 'examples/airflights', file), 'utf8');

function withTempDir(action: (dir: string) => Promise<void>): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'kvmod-transform-cli-'));
    return action(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

describe('kvmod transform', () => {
    test('writes <out>/<model>.kvlm equal to the golden example and prints the merge table with --explain', () =>
        withTempDir(async (dir) => {
            const io = memoryIo();
            const code = await runTransform(
                { models: ['examples/airflights/airflights.pidm'], out: dir, explain: true },
                io,
            );
            expect(code).toBe(0);
            const written = readFileSync(join(dir, 'airflights.kvlm'), 'utf8');
            // The source is relative to the output folder, so that the runtime finds the PIDM.
            expect(written.split('\n')[1]).toMatch(/^source ".*examples\/airflights\/airflights\.pidm"$/);
            expect(written.split('\n').slice(2).join('\n')).toBe(
                example('airflights.kvlm').split('\n').slice(2).join('\n'),
            );
            expect(io.stdout).toBe(example('explain.txt'));
            expect(io.stderr).toContain(`wrote ${join(dir, 'airflights.kvlm')} (8 collections, 1 merge, 0 refused)`);
            expect(io.stderr).toContain('[pidm.case-mismatch]');
            expect(readdirSync(dir)).toEqual(['airflights.kvlm']);
        }));

    test('--format json writes .kvlm.json that the KVLM JSON schema accepts', () =>
        withTempDir(async (dir) => {
            const code = await runTransform(
                { models: ['examples/airflights/airflights.pidm'], out: dir, format: 'json' },
                memoryIo(),
            );
            expect(code).toBe(0);
            const json = JSON.parse(readFileSync(join(dir, 'airflights.kvlm.json'), 'utf8'));
            expect(validateKvlmJson(json)).toEqual([]);
            expect(json.collections).toHaveLength(8);
        }));

    test('a threshold outside (0, 1] is a usage error (exit 2) and nothing is written', () =>
        withTempDir(async (dir) => {
            const io = memoryIo();
            expect(
                await main(['transform', 'examples/airflights/airflights.pidm', '-o', dir, '--threshold', '1.5'], io),
            ).toBe(2);
            expect(io.stderr).toBe(
                "kvmod: the threshold must be a number in (0, 1], got 1.5\nusage: kvmod transform <models..>\nRun 'kvmod transform --help' for usage.\n",
            );
            // Called directly, the action refuses it with the same words (the transformation's own check).
            await expect(
                runTransform({ models: ['examples/airflights/airflights.pidm'], out: dir, threshold: 0 }, memoryIo()),
            ).rejects.toThrow('the threshold must be a number in (0, 1], got 0');
            expect(readdirSync(dir)).toEqual([]);
        }));

    test('a model with errors prints its diagnostics, exits 1 and writes nothing', () =>
        withTempDir(async (dir) => {
            const path = join(dir, 'broken.pidm');
            writeFileSync(path, 'entity A { x text }\nquery Q: SELECT y FROM A\n');
            const io = memoryIo();
            expect(await runTransform({ models: [path] }, io)).toBe(1);
            expect(io.stdout).toMatch(/broken\.pidm:2:\d+: error: .*\[pidm\.[a-z-]+\]/);
            expect(io.stderr).toContain('has 1 error; nothing written');
            expect(existsSync(join(dir, 'broken.kvlm'))).toBe(false);
        }));

    test('the real command writes the model and the table', () =>
        withTempDir(async (dir) => {
            const run = runKvmod([
                'transform',
                'examples/airflights/airflights.pidm',
                '-o',
                dir,
                '--explain',
                '--merge',
                'safe',
            ]);
            expect(run.stderr).not.toMatch(STACK_TRACE);
            expect(run.status).toBe(0);
            expect(run.stdout).toBe(example('explain.txt'));
            expect(existsSync(join(dir, 'airflights.kvlm'))).toBe(true);
        }));
    test('--explain shows the closest pairs below the threshold with their figures, and the threshold that merges them', () =>
        withTempDir(async (dir) => {
            const model = join(dir, 'visits.pidm');
            writeFileSync(
                model,
                'entity Visit { id num  a text  b text  c text  d text  e text  f text  g text }\n' +
                    'query Q1: SELECT a, b, c, d, e FROM Visit\nquery Q2: SELECT a, b, c, d, e, f, g FROM Visit\n',
            );
            const io = memoryIo();
            expect(await runTransform({ models: [model], explain: true }, io)).toBe(0);
            expect(io.stdout).toBe(
                [
                    'Merge decisions (policy safe, threshold 0.8; common = non-key fields with the same resolved attribute path)',
                    'No pair of collections passed the threshold.',
                    'Closest pairs below the threshold, with the highest --threshold at which each pair passes:',
                    'left  right  common  n1  n2  common/n1  common/n2  passes at',
                    '----  -----  ------  --  --  ---------  ---------  ----------------',
                    'Q1    Q2          5   5   7       1.00       0.71  --threshold 0.71',
                    '',
                ].join('\n'),
            );
            const lower = memoryIo();
            expect(await runTransform({ models: [model], explain: true, threshold: 0.71 }, lower)).toBe(0);
            expect(lower.stdout).toContain('Q1    Q2          5   5   7       1.00       0.71  merged -> Q1_Q2');
            expect(lower.stdout).toContain('No pair below the threshold shares a field');
        }));
});
