#!/usr/bin/env node
// `npm run fuzz [-- --count 10000] [--seed 20261123] [--language pidm|kvlm] [--save <dir>]`
//
// Loads `--count` seeded mutants of the examples per language (default 10,000 of each; CI runs a smaller
// share in test/cli/model-fuzz.test.ts) in-process against the compiled code in `out/` (`npm run fuzz`
// builds it first), and prints a summary: cases, how many had errors, how many were clean and went on to
// transform or generate, and every broken rule (a thrown loader, an `internal.*` diagnostic, a message
// printing `undefined`), grouped, with the first text that broke it. `--save <dir>` writes every failing
// text there. Exit code 1 when any rule was broken.
import './polyfills.mjs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { runModelFuzz } = await import('../out/src/testing/model-fuzz.js');

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const count = Number(option('--count', '10000'));
const seed = Number(option('--seed', '20261123'));
const language = option('--language', undefined);
const save = option('--save', undefined);
if (
    !Number.isInteger(count) ||
    count < 0 ||
    !Number.isInteger(seed) ||
    ![undefined, 'pidm', 'kvlm'].includes(language)
) {
    process.stderr.write('usage: npm run fuzz -- [--count N] [--seed N] [--language pidm|kvlm] [--save DIR]\n');
    process.exit(1);
}
const languages = language ? [language] : ['pidm', 'kvlm'];

let shown = 0;
const report = await runModelFuzz({
    seed,
    count,
    languages,
    root,
    onCase: (lang, index) => {
        if (process.stderr.isTTY && index % 250 === 0 && Date.now() - shown > 500) {
            shown = Date.now();
            process.stderr.write(`\r${lang}: ${index} cases…`);
        }
    },
});
if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');

console.log(`fuzz: seed ${seed}, ${count} mutants per language, ${(report.milliseconds / 1000).toFixed(1)} s`);
for (const lang of languages) {
    const c = report.counts[lang];
    const failed = new Set(report.failures.filter((f) => f.language === lang).map((f) => f.label)).size;
    console.log(
        `  ${lang}: ${c.cases} texts, ${c.withErrors} with errors, ${c.carriedOn} clean and carried on to ` +
            `${lang === 'pidm' ? 'transform' : 'generate'}, ${failed} broke a rule`,
    );
}
const groups = new Map();
for (const failure of report.failures) {
    const kind = `${failure.language}: ${failure.problem.replace(/'[^']*'/g, "'…'").slice(0, 160)}`;
    if (!groups.has(kind)) groups.set(kind, []);
    groups.get(kind).push(failure);
}
for (const [kind, failures] of groups) {
    console.log(`\n${failures.length} × ${kind}\n  first: ${failures[0].label}, text:`);
    console.log(
        failures[0].text
            .split('\n')
            .slice(0, 12)
            .map((line) => `    | ${line}`)
            .join('\n'),
    );
}
if (save && report.failures.length > 0) {
    await mkdir(save, { recursive: true });
    for (const [i, failure] of report.failures.entries())
        await writeFile(join(save, `${i}-${failure.label.replace(/ /g, '-')}.${failure.language}`), failure.text);
    console.log(`\nwrote ${report.failures.length} failing texts to ${save}`);
}
process.exitCode = report.failures.length > 0 ? 1 : 0;
