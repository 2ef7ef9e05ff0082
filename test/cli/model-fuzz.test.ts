/**
 * The loaders never throw, for any text of either language: seeded mutants of the examples, plus the texts
 * that once crashed them (issue 13), loaded in memory; a clean mutant also goes on to transform (PIDM) or
 * generate (KVLM). `npm run fuzz -- --count 10000` runs the same check at full size.
 */
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { FUZZ_FIXED_CASES, runModelFuzz, type FuzzFailure } from '../../src/testing/model-fuzz.js';
import { REPO_ROOT } from './run-kvmod.js';

const SEED = 20261123;
/** Per language: about 30 ms each on one core, so 2 × 1,000 take about a minute. */
const MUTANTS = 1000;

/** A failure as a short, readable line plus the text (the seed reproduces it with `npm run fuzz`). */
const show = (failure: FuzzFailure) =>
    `${failure.language} ${failure.label}: ${failure.problem}\n${failure.text.slice(0, 600)}`;

describe('the loaders on mutated models of both languages', () => {
    test(`${MUTANTS} mutants of each language and the fixed cases: no throw, no internal diagnostic, no 'undefined'`, async () => {
        const report = await runModelFuzz({ seed: SEED, count: MUTANTS, root: REPO_ROOT });
        expect(report.failures.map(show)).toEqual([]);
        for (const language of ['pidm', 'kvlm'] as const) {
            const counts = report.counts[language];
            expect(counts.cases).toBeGreaterThanOrEqual(MUTANTS);
            // The mutations must break most texts, and leave some whole enough to go on: both paths are exercised.
            expect(counts.withErrors).toBeGreaterThan(counts.cases / 2);
            expect(counts.carriedOn).toBeGreaterThan(0);
        }
    }, 600_000);

    test('`npm run fuzz` (scripts/fuzz.mjs) prints its summary and exits 0', () => {
        const run = spawnSync(process.execPath, ['scripts/fuzz.mjs', '--count', '3', '--seed', '7'], {
            cwd: REPO_ROOT,
            encoding: 'utf8',
        });
        expect(run.stderr).toBe('');
        const texts = (language: 'pidm' | 'kvlm') => 3 + FUZZ_FIXED_CASES[language].length;
        expect(run.stdout).toMatch(
            new RegExp(
                `^fuzz: seed 7, 3 mutants per language, \\d+\\.\\d s\n` +
                    `  pidm: ${texts('pidm')} texts, \\d with errors, \\d clean and carried on to transform, 0 broke a rule\n` +
                    `  kvlm: ${texts('kvlm')} texts, \\d with errors, \\d clean and carried on to generate, 0 broke a rule\n$`,
            ),
        );
        expect(run.status).toBe(0);
    });
});
