#!/usr/bin/env node
// `npm run bench:cluster-lag [-- --seconds 20] [--writers 4] [--ids 40] [--model examples/airflights/airflights.pidm] [--masters 3] [--json]`
//
// How long rows lag behind their entity on a Redis Cluster (issue 29, docs/design/cluster-entities.md). Starts a
// private cluster (bench-cluster-start.mjs), installs the model's redis-core design, then for `--seconds` runs
// `--writers` writers (each its own cluster connection and `ClusterEntities`, drawing random entity operations over
// `--ids` identifiers per entity, so that they also meet) and one reader. Two figures:
// - carry lag: per change record, from the reply of the entity's call (`begin`, the outbox) to the reply of its
//   acknowledgement (`ack`, after the last row and index step): what the writer itself adds after the entity is
//   written;
// - read staleness: the reader picks a row some step wrote, reads the version counters of the entities its last row
//   step bound it to (their logs), then the row's versions (`@v`): the row is stale when some entity's counter is
//   ahead of the version the row was built from; its age is the time since the reply of that entity's first newer
//   `begin`. (A fence raises a counter with no `begin`: the first newer one with a reply counts.)
// Prints median, p99 and max of each, the operations per second and the load average (the machine may be shared).
import './polyfills.mjs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startCluster } from './bench-cluster-start.mjs';
import { benchOptions, removeDir, scratchDir } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const seconds = Number(option('seconds', '20'));
const writerCount = Number(option('writers', '4'));
const ids = Number(option('ids', '40'));
const masters = Number(option('masters', '3'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const json = flag('json');

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { buildCoreDesign, prepareCore } = await import(`${root}out/src/runtime/redis-core/core-engine.js`);
const { connectCore } = await import(`${root}out/src/runtime/redis-core/core-connection.js`);
const { ClusterEntities, LOG_SUFFIX } = await import(`${root}out/src/runtime/redis-core/core-cluster-entities.js`);
const { randomEntityOperations } = await import(`${root}out/src/runtime/entities/random-operations.js`);
const { entityKey } = await import(`${root}out/src/generation/shared/entity-store.js`);
const { coreClusterFunctions } = await import(`${root}out/src/generation/redis-core/redis-core-cluster-lua.js`);

/** Begin replies: `<entity key>` → (seq → time), for the reader's ages. */
const begun = new Map();
const carryLags = [];
const staleAges = [];
let reads = 0;
/** Row keys some step wrote (the reader's sample space). */
const rowKeys = [];
const knownRows = new Set();
/** Row key → the entities (`<Entity>:<id>`) its last row step built it from. */
const bindings = new Map();

/**
 * A connection that times the steps passing through it: a begin's reply (seq) and the ack of the same record give the
 * carry lag; row steps name the rows the reader samples.
 */
function timed(connection, f) {
    const pending = new Map();
    return {
        ...connection,
        async call(key, argv, readonly) {
            const reply = await connection.call(key, argv, readonly);
            const now = performance.now();
            if (argv[0] === 'FCALL' && argv[1] === f.begin && String(reply) !== 'retry') {
                const seq = Number(reply);
                let times = begun.get(argv[3]);
                if (!times) begun.set(argv[3], (times = new Map()));
                times.set(seq, now);
                pending.set(`${argv[4]} ${seq}`, now);
            } else if (argv[0] === 'FCALL' && argv[1] === f.ack) {
                const id = `${argv[3]} ${argv[4]}`;
                const at = pending.get(id);
                if (at !== undefined) {
                    carryLags.push(now - at);
                    pending.delete(id);
                }
            } else if (argv[0] === 'FCALL' && argv[1] === f.row && Array.isArray(reply) && String(reply[0]) === 'ok') {
                // The entities the row is bound to now: the step's own versions (the row's `@v` merges every
                // version it was ever built from, entities it no longer binds included).
                if (argv[6] === 'put') bindings.set(argv[3], Object.keys(JSON.parse(argv[5])));
                else bindings.delete(argv[3]);
                if (!knownRows.has(argv[3])) {
                    knownRows.add(argv[3]);
                    rowKeys.push(argv[3]);
                }
            }
            return reply;
        },
    };
}

function percentile(values, p) {
    if (values.length === 0) return NaN;
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function summary(values) {
    return {
        count: values.length,
        median: percentile(values, 50),
        p99: percentile(values, 99),
        max: values.length === 0 ? NaN : Math.max(...values),
    };
}

const dir = scratchDir(root, 'kvmod-bench-cluster-lag');
let cluster;
const connections = [];
try {
    cluster = await startCluster(dir, masters);
    const urls = cluster.nodes.map((n) => n.url);
    const runtime = await loadRuntimeDesign(model, {});
    const { design, library } = await buildCoreDesign({ kvlm: runtime.kvlm, pidm: runtime.pidm });
    const admin = await connectCore(urls[0], { cluster: urls });
    connections.push(admin);
    await prepareCore(admin, design, library, true);
    const loadBefore = loadavg()[0];
    const deadline = performance.now() + seconds * 1000;
    let operations = 0;
    let failed = 0;
    const writers = [];
    for (let w = 0; w < writerCount; w++) {
        const own = await connectCore(urls[0], { cluster: urls });
        connections.push(own);
        const entities = new ClusterEntities({
            connection: timed(own, coreClusterFunctions(design.database)),
            design,
            kvlm: runtime.kvlm,
            model: runtime.model,
        });
        writers.push(
            (async () => {
                for (let round = 0; performance.now() < deadline; round++) {
                    const drawn = randomEntityOperations(runtime.model, 1000 * w + round, 200, {
                        design: runtime.kvlm,
                        idsPerEntity: ids,
                    });
                    for (const { operation } of drawn) {
                        if (performance.now() >= deadline) return;
                        const outcome = await entities.execute(operation);
                        if (!outcome.ok && outcome.code === null) failed++;
                        operations++;
                    }
                }
            })(),
        );
    }
    const reader = (async () => {
        // A row's versions name `<Entity>:<id>` (the stored id); entity names hold no colon.
        const keyOf = (name) => {
            const at = name.indexOf(':');
            return entityKey(design.entityStore.schema.database, name.slice(0, at), name.slice(at + 1));
        };
        while (performance.now() < deadline) {
            if (rowKeys.length === 0) {
                await new Promise((r) => setTimeout(r, 5));
                continue;
            }
            const row = rowKeys[Math.floor(Math.random() * rowKeys.length)];
            const names = bindings.get(row);
            if (names === undefined) {
                await new Promise((r) => setImmediate(r));
                continue;
            }
            // The entities' counters first, then the row: a row older than a counter read before it was stale.
            const counters = new Map();
            for (const name of names) {
                const log = keyOf(name) + LOG_SUFFIX;
                counters.set(name, Number((await admin.call(log, ['HGET', log, 'seq'])) ?? 0));
            }
            const [versions, deleted] = (await admin.call(row, ['HMGET', row, '@v', '@deleted'])).map((v) =>
                v === null ? null : String(v),
            );
            const at = performance.now();
            if (versions === null || deleted !== null) continue;
            reads++;
            const built = JSON.parse(versions);
            let age = 0;
            for (const [name, seq] of counters) {
                const had = built[name] ?? 0;
                if (seq <= had) continue;
                const times = begun.get(keyOf(name));
                let since;
                for (let s = had + 1; s <= seq && since === undefined; s++) since = times?.get(s);
                if (since !== undefined) age = Math.max(age, at - since);
            }
            if (age > 0) staleAges.push(age);
        }
    })();
    const started = performance.now();
    await Promise.all([...writers, reader]);
    const elapsed = (performance.now() - started) / 1000;
    const loadAfter = loadavg()[0];
    const result = {
        model: model.slice(root.length),
        masters,
        writers: writerCount,
        idsPerEntity: ids,
        seconds: elapsed,
        operations,
        failed,
        operationsPerSecond: operations / elapsed,
        loadAverage: { before: loadBefore, after: loadAfter },
        carryLagMs: summary(carryLags),
        rowReads: reads,
        staleReads: staleAges.length,
        staleAgeMs: summary(staleAges),
    };
    if (json) console.log(JSON.stringify(result, null, 2));
    else {
        const ms = (v) => (Number.isNaN(v) ? '-' : `${v.toFixed(1)} ms`);
        const line = (s) => `median ${ms(s.median)}, p99 ${ms(s.p99)}, max ${ms(s.max)}`;
        console.log(
            `${result.model} on ${masters} masters: ${writerCount} writers × ${elapsed.toFixed(1)} s, ${operations} entity operations (${result.operationsPerSecond.toFixed(0)}/s, ${failed} failed), ${ids} ids per entity (load average ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)})`,
        );
        console.log(
            `carry lag (outbox reply → last step's reply), ${carryLags.length} records: ${line(result.carryLagMs)}`,
        );
        console.log(
            `row reads: ${reads}, older than their entity: ${staleAges.length} (${((100 * staleAges.length) / Math.max(1, reads)).toFixed(1)}%); how long they had been: ${line(result.staleAgeMs)}`,
        );
    }
    process.exitCode = failed === 0 ? 0 : 1;
} finally {
    for (const c of connections) await c.close().catch(() => undefined);
    await cluster?.stop();
    removeDir(dir);
}
