#!/usr/bin/env node
// `node scripts/pidm-grid.mjs --queries M --fields N [--seed S] [--entities 10] [--attributes 150] [--span E]
//     [--references R] [--out FILE]`
//
// Writes a random PIDM model of the issue-14 scale grid as text (stdout without --out): entities E0 … E9
// of 150 attributes chained by `[1]` references, M queries `FROM E0 INCLUDE` the chain selecting N
// attributes by path, filtering on one and sorting on one (see generateGridPidm in
// src/testing/random-pidm.ts). With `--span E` a query reads E entities of the chain (query q from E(q·E)), so
// `--entities N --span 4 --queries N/4` makes the entity count the variable (every entity read by one small
// query); `--references R` adds R `[*]` references per entity to entities drawn at random. Reads the compiled
// code in out/ (`npm run build:ts` first). The text is written entity by entity and query by query, so a 10 MB
// model never sits in memory as one string.
import './polyfills.mjs';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { generateGridPidm } = await import(`${root}out/src/testing/random-pidm.js`);
const { pidmChunks } = await import(`${root}out/src/language/pidm/pidm-printer.js`);

const args = process.argv.slice(2);
const option = (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : fallback;
};
const number = (name, fallback) => {
    const value = Number(option(name, fallback));
    if (!Number.isInteger(value) || value < 0) {
        process.stderr.write(`pidm-grid: --${name} must be a whole number\n`);
        process.exit(1);
    }
    return value;
};

const model = generateGridPidm({
    queries: number('queries', 10),
    fieldsPerQuery: number('fields', 10),
    seed: number('seed', 2024),
    entities: number('entities', 10),
    attributesPerEntity: number('attributes', 150),
    span: args.includes('--span') ? number('span') : undefined,
    referencesPerEntity: number('references', 0),
});
const out = option('out');
const stream = out ? createWriteStream(out) : process.stdout;
for (const chunk of pidmChunks(model)) {
    if (!stream.write(chunk)) await once(stream, 'drain');
}
if (out) {
    stream.end();
    await once(stream, 'finish');
}
