/**
 * Writes test/support/suite-seconds.json (each suite's seconds, slowest first) from a `jest --json` output, e.g.
 * the one `.ci/run` leaves in .kvmod-tmp/jest-results.json: the order test/support/jest-sequencer.mjs falls back to.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const [input] = process.argv.slice(2);
if (!input) {
    console.error('usage: node test/support/suite-seconds.mjs <jest --json output file>');
    process.exit(1);
}
const root = new URL('../..', import.meta.url).pathname;
const results = JSON.parse(readFileSync(input, 'utf8')).testResults;
const seconds = results
    .map((suite) => [
        relative(root, suite.name).replaceAll('\\', '/'),
        Math.round((suite.endTime - suite.startTime) / 1000),
    ])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
writeFileSync(
    new URL('./suite-seconds.json', import.meta.url),
    `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`,
);
console.log(`suite-seconds.json: ${seconds.length} suites`);
