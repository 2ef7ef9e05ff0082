/**
 * The suite's order: Jest's own (failed first, then slowest first by the timings it cached), except that the
 * fuzz tests always run first. The suite runs in one process on a 2-core machine, and that process's heap
 * grows to about 2 GB over the suite (each test file's modules and services); the fuzz tests allocate the
 * most, and near such a heap their collections dominate: in a fresh clone (no cached timings, so Jest ordered
 * by file size) the model fuzz ran late and took 329 s of its 600 s timeout, first it takes about 50 s.
 */
import Sequencer from '@jest/test-sequencer';

const FIRST = ['test/cli/model-fuzz.test.ts', 'test/cli/validate-fuzz.test.ts'];

const rank = (path) => {
    const index = FIRST.findIndex((suffix) => path.replaceAll('\\', '/').endsWith(suffix));
    return index === -1 ? FIRST.length : index;
};

export default class FuzzFirstSequencer extends (Sequencer.default ?? Sequencer) {
    sort(tests) {
        const ordered = super.sort(tests);
        // Array.prototype.sort is stable: Jest's order is kept among the rest.
        return Array.from(ordered).sort((a, b) => rank(a.path) - rank(b.path));
    }
}
