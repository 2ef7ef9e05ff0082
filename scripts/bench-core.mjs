#!/usr/bin/env node
// `npm run bench:core [-- --scale 2000] [--model examples/airflights/airflights.pidm] [--samples 20] [--rounds 5] [--json]`
//
// The redis-core design (core Redis: hashes, sets, sorted sets, a Redis Functions library) against the RediSearch
// design of the redis target, side by side in one run, on the same data and the same scratch redis-server (with the
// RediSearch 1.2 module, which redis-core ignores; started here on a free loopback port, stopped by pid). For each
// design, through its engine runtime (what `kvmod load` and `kvmod verify` call): the write of every materialized
// row (rows/s, the fastest of 3; the schema is prepared afresh before the clock starts), then every query of the model run for `--samples`
// parameter sets drawn from the data, `--rounds` times each, one request at a time: latency p50 and p95 in ms and the
// rows an answer holds on average. The ratio column is redis-core's figure over RediSearch's. The redis-core write is
// also compared with `redis-cli --pipe` replaying exactly its commands (one FCALL per row) into a flushed server with
// the library loaded, timed in the same run: its share of redis-cli's throughput.
import './polyfills.mjs';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchOptions, coreWriteCommands, removeDir, respText, scratchDir, startBenchServer } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const scale = Number(option('scale', '2000'));
const samples = Number(option('samples', '20'));
const rounds = Number(option('rounds', '5'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const json = flag('json');

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { generateInstanceData } = await import(`${root}out/src/runtime/data-generator.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { prepareQuery } = await import(`${root}out/src/runtime/oracle.js`);
const { planQuery } = await import(`${root}out/src/runtime/query-plan.js`);
const { sampleParameters } = await import(`${root}out/src/runtime/parameter-sampler.js`);
const { servedQueryOf } = await import(`${root}out/src/runtime/verify.js`);
const { engineOf } = await import(`${root}out/src/runtime/engine-registry.js`);
const { getGenerationTarget } = await import(`${root}out/src/generation/generation-targets.js`);
const { buildViewModel } = await import(`${root}out/src/generation/generation-engine.js`);
const { buildCoreDesign, coreRowKey, coreRowValues } = await import(`${root}out/src/runtime/redis-core/core-engine.js`);

const dir = scratchDir(root, 'kvmod-bench-core');
let server;
try {
    server = await startBenchServer(dir);
    const url = server.url;
    const design = await loadRuntimeDesign(model, {});
    const data = generateInstanceData(design.model, { scale, seed: 1 });
    const index = indexInstanceData(design.model, data);
    const rows = materializeModel(design.kvlm, data, index);
    const total = rows.reduce((sum, c) => sum + c.rows.length, 0);
    const queries = design.pidm.flatMap((m) => m.queries);
    const results = {};
    for (const target of ['redis', 'redis-core']) {
        const engine = await engineOf(getGenerationTarget(target));
        results[target] = await engine.use((typed) => measure(typed, url));
    }
    // redis-cli --pipe replaying the redis-core write: the same FCALLs, on a flushed server with the library loaded.
    {
        const core = await buildCoreDesign(design.kvlm);
        const file = join(dir, 'core.resp');
        const fd = openSync(file, 'w');
        for (const argv of coreWriteCommands(core, rows, { coreRowKey, coreRowValues })) writeSync(fd, respText(argv));
        closeSync(fd);
        let best;
        for (let run = 0; run < 3; run++) {
            server.cli('FLUSHALL');
            server.cli('FUNCTION', 'LOAD', 'REPLACE', core.library);
            best = Math.min(best ?? Infinity, server.pipe(file));
        }
        results['redis-cli'] = { rows: total, seconds: best, rowsPerSecond: total / best };
    }

    async function measure(engine, serverUrl) {
        const session = await engine.connect({ urls: [serverUrl] });
        try {
            const view = await buildViewModel(engine.target, design, { ...session.probe.options });
            // The fastest of 3 writes, each into a freshly prepared schema (like redis-cli's figure below).
            let seconds = Infinity;
            for (let run = 0; run < 3; run++) {
                await session.prepareSchema(view, 'fresh');
                const started = performance.now();
                await session.writeRows(view, rows, {});
                seconds = Math.min(seconds, (performance.now() - started) / 1000);
            }
            const perQuery = {};
            for (const query of queries) {
                const served = servedQueryOf(design.kvlm, query.name);
                const prepared = prepareQuery(planQuery(query), data, index, engine.collation);
                const sets = sampleParameters(prepared, samples, 0, 7);
                const times = [];
                let answered = 0;
                for (let round = 0; round < rounds; round++) {
                    for (const set of sets) {
                        const t = performance.now();
                        const answer = await session.runQuery(
                            view,
                            served.collection.name,
                            served.query.name,
                            set.values,
                        );
                        times.push(performance.now() - t);
                        answered += answer.rows.length;
                    }
                }
                times.sort((a, b) => a - b);
                perQuery[query.name] = {
                    p50: percentile(times, 0.5),
                    p95: percentile(times, 0.95),
                    rows: answered / times.length,
                };
            }
            return { rows: total, seconds, rowsPerSecond: total / seconds, queries: perQuery };
        } finally {
            await session.close();
        }
    }

    if (json) console.log(JSON.stringify({ scale, samples, rounds, results }, null, 2));
    else {
        const rs = results.redis;
        const core = results['redis-core'];
        console.log(
            `${model.slice(root.length)} --scale ${scale}: ${total.toLocaleString('en-US')} rows; ${samples} parameter sets × ${rounds} rounds per query`,
        );
        console.log('');
        const pipe = results['redis-cli'];
        console.log(
            `load      RediSearch (${rs.seconds.toFixed(2)} s) ${fmt(rs.rowsPerSecond)} rows/s   redis-core (${core.seconds.toFixed(2)} s) ${fmt(core.rowsPerSecond)} rows/s   ratio ${(core.rowsPerSecond / rs.rowsPerSecond).toFixed(2)}`,
        );
        console.log(
            `redis-core write vs redis-cli --pipe of the same FCALLs (${pipe.seconds.toFixed(2)} s, ${fmt(pipe.rowsPerSecond)} rows/s, fastest of 3): ${Math.round((core.rowsPerSecond / pipe.rowsPerSecond) * 100)}% of its throughput`,
        );
        console.log('');
        const header = ['query', 'rows/answer', 'RediSearch p50', 'p95', 'redis-core p50', 'p95', 'p50 ratio'];
        const lines = queries.map((q) => {
            const a = rs.queries[q.name];
            const b = core.queries[q.name];
            return [q.name, a.rows.toFixed(1), ms(a.p50), ms(a.p95), ms(b.p50), ms(b.p95), (b.p50 / a.p50).toFixed(2)];
        });
        const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
        for (const line of [header, ...lines])
            console.log(
                line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '),
            );
    }
} finally {
    server?.stop();
    removeDir(dir);
}

function percentile(sorted, p) {
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function fmt(n) {
    return Math.round(n).toLocaleString('en-US');
}

function ms(n) {
    return `${n.toFixed(2)} ms`;
}
