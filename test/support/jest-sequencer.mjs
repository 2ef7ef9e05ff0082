/**
 * The suite's order: Jest's own (failed first, then slowest first), with two changes.
 *
 * - Slowest first needs timings, and Jest only has those it cached in an earlier run on the same machine: a fresh
 *   clone (CI) has none, and Jest then orders by file size, which puts a 90 s suite late and leaves one worker
 *   running it alone at the end. test/support/suite-seconds.json holds each suite's seconds from a CI run; a
 *   suite Jest has no timing for takes it from there (a suite in neither runs first, as Jest does with unknowns).
 *   Refresh the file when the slow suites change: `node test/support/suite-seconds.mjs <jest --json output>`.
 * - The fuzz tests always run first: they allocate the most, and near a heap grown by many earlier test files
 *   their collections dominate (late in a long in-band run the model fuzz took 329 s, first it takes about 50 s).
 */
import Sequencer from '@jest/test-sequencer';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const FIRST = ['test/cli/model-fuzz.test.ts', 'test/cli/validate-fuzz.test.ts'];
const SECONDS = JSON.parse(readFileSync(new URL('./suite-seconds.json', import.meta.url), 'utf8'));

const slash = (path) => path.replaceAll('\\', '/');

const rank = (path) => {
    const index = FIRST.findIndex((suffix) => slash(path).endsWith(suffix));
    return index === -1 ? FIRST.length : index;
};

export default class SlowestFirstSequencer extends (Sequencer.default ?? Sequencer) {
    /** Jest's cached milliseconds, else the committed seconds. */
    time(test) {
        const cached = super.time(test);
        if (cached !== undefined) return cached;
        const seconds = SECONDS[slash(relative(test.context.config.rootDir, test.path))];
        return seconds === undefined ? undefined : seconds * 1000;
    }

    sort(tests) {
        const ordered = super.sort(tests);
        // Array.prototype.sort is stable: Jest's order is kept among the rest.
        return Array.from(ordered).sort((a, b) => rank(a.path) - rank(b.path));
    }
}
