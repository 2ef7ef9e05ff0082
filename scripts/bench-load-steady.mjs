#!/usr/bin/env node
// `npm run bench:load:steady [-- --scales 10000,50000] [--repeat 3] [--batch 2000]`
//
// kvmod load's steady-state throughput against redis-cli --pipe's, apart from fixed costs. `bench:load` times one
// load of one size as a whole process: its ratio mixes the rate at which rows go in with what a load costs once
// whatever its size (Node's start-up, loading the model, creating the indexes) — about a quarter of a second, a
// quarter of a load of 113,131 rows, nothing of one of millions. This runs `bench-load.mjs --whole-only --json
// --no-blocking` at two scales (the same machine, the same fresh servers) and reports, for FT.ADD (RediSearch 1.2,
// SAFEMODE) and FCALL (redis-core), from the difference of the two runs (the fixed costs cancel):
// - each side's steady rate: (rows2 - rows1) / (seconds2 - seconds1);
// - kvmod's share of the pipe's steady rate: (pipe2 - pipe1) / (kvmod2 - kvmod1);
// - the time kvmod takes beyond the pipe, split into what a load costs once and what it costs per row (a straight
//   line through the two runs' differences; the server's own time per row grows with its indexes, on both sides).
import './polyfills.mjs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchOptions } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option } = benchOptions();
const scales = option('scales', '10000,50000').split(',').map(Number);
if (scales.length !== 2 || !scales.every((s) => Number.isInteger(s) && s > 0) || scales[0] >= scales[1])
    throw new Error(`--scales takes two increasing whole numbers, e.g. 10000,50000 (got ${option('scales', '')})`);
const passed = ['repeat', 'batch', 'model'].flatMap((name) => {
    const value = option(name, undefined);
    return value === undefined ? [] : [`--${name}`, value];
});

const runs = scales.map((scale) => {
    const run = spawnSync(
        process.execPath,
        [
            `${root}scripts/bench-load.mjs`,
            '--whole-only',
            '--json',
            '--no-blocking',
            '--scale',
            String(scale),
            ...passed,
        ],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    if (run.status !== 0) throw new Error(`bench-load --scale ${scale}: ${run.stderr}`);
    return JSON.parse(run.stdout);
});
const [small, large] = runs;
const rows = large.rows - small.rows;
const count = (n) => Math.round(n).toLocaleString('en-US');
console.log(
    `Node ${process.versions.node}; ${small.model}: steady state from ${count(small.rows)} to ${count(large.rows)} rows (scales ${scales.join(' and ')}), the difference of two runs, each the fastest of its repeats`,
);
for (const comparison of small.results) {
    const other = large.results.find((r) => r.comparison === comparison.comparison);
    const line = (results, prefix) => results.lines.find((l) => l.name.startsWith(prefix));
    const pipe = [line(comparison, 'redis-cli'), line(other, 'redis-cli')];
    const kvmod = [line(comparison, 'kvmod load'), line(other, 'kvmod load')];
    if (pipe.includes(undefined) || kvmod.includes(undefined)) continue;
    const rate = ([a, b]) => rows / (b.seconds - a.seconds);
    console.log(comparison.comparison);
    for (const [name, pair] of [
        ['redis-cli --pipe', pipe],
        ['kvmod load (whole process)', kvmod],
    ])
        console.log(
            `  ${name.padEnd(28)} ${pair
                .map((l) => `${l.seconds.toFixed(2)} s`)
                .join(' → ')
                .padEnd(17)} steady ${count(rate(pair)).padStart(9)} rows/s`,
        );
    const share = (pipe[1].seconds - pipe[0].seconds) / (kvmod[1].seconds - kvmod[0].seconds);
    console.log(
        `  kvmod's steady throughput: ${Math.round(share * 100)}% of redis-cli --pipe's (whole process: ${Math.round(kvmod[0].share * 100)}% at ${count(small.rows)} rows, ${Math.round(kvmod[1].share * 100)}% at ${count(large.rows)})`,
    );
    const beyond = [kvmod[0].seconds - pipe[0].seconds, kvmod[1].seconds - pipe[1].seconds];
    const perRow = (beyond[1] - beyond[0]) / rows;
    console.log(
        `  kvmod beyond the pipe: ${beyond.map((s) => `${s.toFixed(2)} s`).join(' → ')}: ${(beyond[0] - perRow * small.rows).toFixed(2)} s once per load + ${(perRow * 1e6).toFixed(2)} µs per row`,
    );
}
