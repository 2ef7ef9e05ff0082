#!/usr/bin/env node
// `npm run bench:cost [-- --ops 1500] [--scale 100] [--in-flight 16] [--rounds 15] [--only write-heavy] [--json]`
//
// Design by cost (issue 32), measured: the book rating site (examples/book-ratings) under its read-heavy and its
// write-heavy workload (examples/book-ratings/workloads/: the example with another workload block); for
// each, the design `--merge cost` chooses, the one the 80% rule (`--merge paper`) makes and the other workload's
// cost-chosen design, each on its own scratch redis-server with RediSearch 1.2 (`SAFEMODE TIMEOUT 0`, a free
// loopback port, stopped by pid), the redis target's redisearch1 design. Every design is loaded the same way: the
// indexes, the entity Function, then the same instance data (`--scale` objects per entity) written through the typed
// client's runtime (`kvmod-entities.ts`), every multi-valued reference with the average size the workload declares
// (`shapeReferences`); then `INFO memory` used_memory. Then one sequence of `--ops` operations
// drawn in the workload's proportions (the same sequence for every design of a workload): a query is the generated
// client's first page of it (`readPage` with the query as the generated module holds it, parameters drawn from the
// data as `verify` draws them), an entity operation the client's createEntity / updateEntity / deleteEntity (one
// FCALL of the entity Function each). `--in-flight` operations in flight on one node-redis connection; `--rounds`
// rounds, interleaved across the designs; after each, what its creates made is deleted (untimed), so that every round
// starts from the same data (a range read over a growing collection would measure the growth). Each round then runs
// the sequence's entity operations alone, the same way.
//
// On a shared machine the wall clock measures the neighbours as much as the design, so beside op/s it prints what the
// server spent: its main thread's CPU time per operation (Linux schedstat; Redis runs every command there), least and
// median over the rounds, and from `INFO commandstats` the µs per FCALL (an entity operation), the rows each writes
// (FT.ADD calls per FCALL) and the µs per EVAL (a read: the client's script around FT.SEARCH). It prints them with
// memory and the cost model's figures for every design, and where the model's prediction (which design is faster,
// which smaller) and the measurement disagree.
import './polyfills.mjs';

import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { benchOptions, removeDir, scratchDir, startBenchServer } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const ops = Number(option('ops', '1500'));
const scale = Number(option('scale', '100'));
const inFlight = Number(option('in-flight', '16'));
const rounds = Number(option('rounds', '15'));
const json = flag('json');
/** `--only write-heavy`: run one workload's designs (the other's cost-chosen design still among them). */
const only = option('only', '');
/** The load average when the bench starts (the shared machine's). */
const loadStart = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { generateInstanceData } = await import(`${root}out/src/runtime/data-generator.js`);
const { indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { prepareQuery } = await import(`${root}out/src/runtime/oracle.js`);
const { sampleParameters } = await import(`${root}out/src/runtime/parameter-sampler.js`);
const { planQuery } = await import(`${root}out/src/runtime/query-plan.js`);
const { redisearchCollation } = await import(`${root}out/src/runtime/redisearch/redis-collation.js`);
const { getGenerationTarget } = await import(`${root}out/src/generation/generation-targets.js`);
const { generateTarget } = await import(`${root}out/src/generation/generation-engine.js`);
const { bindRedisCommand } = await import(`${root}out/src/generation/redis/redis-commands.js`);
const { buildTsClientDesign } = await import(`${root}out/src/generation/typescript/typescript-design.js`);
const { queryData } = await import(`${root}out/src/generation/typescript/typescript-emitter.js`);
const { Workload } = await import(`${root}out/src/language/pidm/pidm-workload.js`);
const { compareByCost, collectionsOfQueries, OPERATION, ROW, INDEX, SCAN } = await import(
    `${root}out/transformations/pidm-to-kvlm/index.js`
);
const { chooseByCost, costedDesign } = await import(`${root}out/transformations/pidm-to-kvlm/choose-by-cost.js`);
const clientRuntime = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-client.js`);
const entities = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-entities.js`);

/** The bundled example the bench runs; its variants with a read-heavy and a write-heavy workload. */
const EXAMPLE = 'examples/book-ratings';
const WORKLOADS = Object.fromEntries(
    ['read-heavy', 'write-heavy'].map((name) => [name, join(root, EXAMPLE, 'workloads', `${name}.pidm`)]),
);

/** A small seeded generator (mulberry32): the sequences depend on the seed only. */
function random(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** The workload's operations with their rates: every query (its rate, 1 by default) and every entity change. */
function mixOf(pidm) {
    const workload = new Workload(pidm);
    const mix = [];
    for (const query of pidm.flatMap((m) => m.queries))
        mix.push({ kind: 'query', name: query.name, rate: workload.queryRate(query.name) });
    for (const entity of pidm.flatMap((m) => m.entities)) {
        const changes = workload.changesOf(entity.name);
        if (changes.create > 0) mix.push({ kind: 'create', entity: entity.name, rate: changes.create });
        if (changes.delete > 0) mix.push({ kind: 'delete', entity: entity.name, rate: changes.delete });
        if (changes.update > 0) mix.push({ kind: 'update', entity: entity.name, rate: changes.update });
        for (const [member, rate] of changes.memberUpdates)
            mix.push({ kind: 'update', entity: entity.name, member, rate });
    }
    return mix.filter((item) => item.rate > 0);
}

/** `count` operations drawn in the mix's proportions, each with the random numbers it needs. */
function sequenceOf(mix, count, seed) {
    const next = random(seed);
    const total = mix.reduce((sum, item) => sum + item.rate, 0);
    return Array.from({ length: count }, () => {
        let at = next() * total;
        const item = mix.find((candidate) => (at -= candidate.rate) < 0) ?? mix.at(-1);
        return { item, a: next(), b: next() };
    });
}

const label = (item) =>
    item.kind === 'query' ? item.name : `${item.kind} ${item.entity}${item.member ? `.${item.member}` : ''}`;

/** The designs run under each workload: its cost-chosen one, the 80% rule's, the other workload's cost-chosen one. */
const POLICIES = ['cost', 'paper', 'other'];

const dir = scratchDir(root, 'kvmod-bench-cost');
const servers = [];
const results = [];
try {
    const names = Object.keys(WORKLOADS);
    for (const [workloadName, modelPath] of Object.entries(WORKLOADS)) {
        if (only && only !== workloadName) continue;
        // The other workload's cost-chosen design, run under this one: each chosen design should win on its own.
        const otherName = names.find((name) => name !== workloadName);
        const otherPath = WORKLOADS[otherName];
        const designs = {
            cost: await loadRuntimeDesign(modelPath, { merge: 'cost' }),
            paper: await loadRuntimeDesign(modelPath, { merge: 'paper' }),
            other: await loadRuntimeDesign(otherPath, { merge: 'cost' }),
        };
        const pidm = designs.cost.pidm;
        const modelled = compareByCost([...pidm], 0.8);
        const otherPidm = designs.other.pidm;
        modelled.other = costedDesign(
            chooseByCost(collectionsOfQueries(otherPidm, []), 0.8, new Workload(otherPidm)).collections,
            new Workload(pidm),
        );
        const mix = mixOf(pidm);
        const sequence = sequenceOf(mix, ops, 7);
        const data = generateInstanceData(designs.cost.model, { scale, seed: 1 });
        const sizes = shapeReferences(designs.cost.model, data, new Workload(pidm), 3);
        const index = indexInstanceData(designs.cost.model, data);
        // Parameter sets per query, drawn from the data as verify draws them.
        const parameterSets = new Map(
            pidm
                .flatMap((m) => m.queries)
                .map((query) => {
                    const prepared = prepareQuery(planQuery(query), data, index, redisearchCollation);
                    return [query.name, sampleParameters(prepared, 20, 0, 3).map((set) => set.values)];
                }),
        );
        // Every design loaded on its own server first, then the rounds interleaved (each round runs the designs in
        // a rotated order), so that a slower stretch of the shared machine falls on every design alike.
        const loaded = {};
        for (const policy of POLICIES) {
            const server = await startBenchServer(dir, { module: true });
            servers.push(server);
            const client = createClient({ url: server.url });
            await client.connect();
            loaded[policy] = { server, client, ...(await loadDesign(designs[policy], client, data, parameterSets)) };
        }
        // Then the sequence's entity operations alone, in the same order: what one costs the server, without the
        // reads between them.
        const writes = sequence.filter((step) => step.item.kind !== 'query');
        // And, where reads are the smaller part, the sequence's reads alone: what one costs the server, in CPU time.
        const reads = writes.length * 2 > sequence.length ? sequence.filter((step) => step.item.kind === 'query') : [];
        const runs = Object.fromEntries(POLICIES.map((policy) => [policy, []]));
        const writeRuns = Object.fromEntries(POLICIES.map((policy) => [policy, []]));
        const readRuns = Object.fromEntries(POLICIES.map((policy) => [policy, []]));
        for (let round = 0; round < rounds; round++)
            for (let i = 0; i < POLICIES.length; i++) {
                const policy = POLICIES[(round + i) % POLICIES.length];
                runs[policy].push(await run(loaded[policy], sequence, round));
                await loaded[policy].cleanup();
                if (writes.length > 0) writeRuns[policy].push(await run(loaded[policy], writes, rounds + round));
                await loaded[policy].cleanup();
                if (reads.length > 0) readRuns[policy].push(await run(loaded[policy], reads, 2 * rounds + round));
            }
        const measured = {};
        for (const policy of POLICIES) {
            const { client, server } = loaded[policy];
            await client.quit();
            server.stop();
            measured[policy] = {
                ...summary(runs[policy], loaded[policy], sequence.length),
                writes: writeRuns[policy].length > 0 ? writesSummary(writeRuns[policy], writes.length) : undefined,
                reads:
                    readRuns[policy].length > 0
                        ? {
                              count: reads.length,
                              cpuPerRead: median(readRuns[policy].map((r) => (r.cpu * 1e6) / reads.length)),
                          }
                        : undefined,
            };
        }
        results.push({
            workload: workloadName,
            other: otherName,
            sizes,
            mix: mix.map((item) => `${label(item)} ${item.rate}`),
            operations: sequence.length,
            readRate: mix.filter((item) => item.kind === 'query').reduce((sum, item) => sum + item.rate, 0),
            writeRate: mix.filter((item) => item.kind !== 'query').reduce((sum, item) => sum + item.rate, 0),
            designs: Object.fromEntries(
                POLICIES.map((policy) => [
                    policy,
                    {
                        collections: modelled[policy].collections.map((c) => c.queries.join('+')),
                        modelled: modelled[policy].cost,
                        ...measured[policy],
                    },
                ]),
            ),
        });
    }
} finally {
    for (const server of servers) server.stop();
    removeDir(dir);
}

/**
 * Gives every multi-valued reference of the data the average size the workload declares (`size Book.tags 10`, else
 * its default), the targets drawn uniformly: the generator's lists hold 0–6 (about 2), the cost model counts the
 * workload's sizes, and a row count the model and the data disagree on says nothing about the model. With the same
 * count for every entity (`--scale`), a target is then referred to by `size` objects on average, as the model's
 * `referrers` says for equal counts. Returns each reference's declared and generated average size.
 */
function shapeReferences(model, data, workload, seed) {
    const next = random(seed);
    const sizes = [];
    for (const entity of model.entities.values())
        for (const reference of entity.references) {
            if (reference.kind !== 'many') continue;
            const targets = (data[reference.target] ?? []).map(
                (object) => object[model.entities.get(reference.target).idName],
            );
            const declared = workload.size(entity.name, reference.name);
            const objects = data[entity.name] ?? [];
            let total = 0;
            for (const object of objects) {
                const whole = Math.floor(declared);
                const wanted = whole + (next() < declared - whole ? 1 : 0);
                const count = Math.min(
                    Math.max(wanted, reference.minItems),
                    reference.maxItems ?? Infinity,
                    targets.length,
                );
                // The first `count` steps of a Fisher–Yates shuffle: distinct targets.
                const pool = [...targets];
                for (let i = 0; i < count; i++) {
                    const j = i + Math.floor(next() * (pool.length - i));
                    [pool[i], pool[j]] = [pool[j], pool[i]];
                }
                object[reference.name] = pool.slice(0, count);
                total += count;
            }
            sizes.push({
                name: `${entity.name}.${reference.name}`,
                declared,
                generated: objects.length ? total / objects.length : 0,
            });
        }
    return sizes;
}

/** Loads a design on a fresh server through the client runtime: its memory, and the operation of a step. */
async function loadDesign(design, client, data, parameterSets) {
    const { viewModel: view } = await getGenerationTarget('redis').use((target) =>
        generateTarget(target, design, { dialect: 'redisearch1' }),
    );
    if (!view.entityStore) throw new Error(`the design keeps no entities: ${view.noEntityStore}`);
    const store = { schema: view.entityStore.schema, library: view.entityStore.library };
    const baseline = usedMemory(await client.sendCommand(['INFO', 'memory']));
    for (const c of view.collections)
        for (const command of [c.create, c.point]) await client.sendCommand(bindRedisCommand(command, {}));
    const emptyIndexes = usedMemory(await client.sendCommand(['INFO', 'memory'])) - baseline;
    await entities.installEntityFunctions(client, store);
    await writeEntities(client, store, data);
    const memory = usedMemory(await client.sendCommand(['INFO', 'memory'])) - baseline;
    const collections = [];
    for (const c of view.collections) collections.push(await collectionMemory(client, c));
    const ts = buildTsClientDesign(view);
    const queries = new Map(ts.queries.map((query) => [query.redis.name, queryData(query)]));
    const schema = store.schema.entities;
    const created = new Map();
    const operation = (step, round, k) => {
        const { item, a, b } = step;
        if (item.kind === 'query') {
            const query = queries.get(item.name);
            const sets = parameterSets.get(item.name);
            const values = sets[Math.floor(a * sets.length)] ?? {};
            const params = Object.fromEntries(query.params.map((p) => [p.prop, values[p.param]]));
            return clientRuntime.readPage(client, query, params);
        }
        const e = schema[item.entity];
        const objects = data[item.entity];
        const from = objects[Math.floor(a * objects.length)];
        const other = objects[Math.floor(b * objects.length)];
        if (item.kind === 'update') {
            const members = item.member ? [item.member] : e.attributes.map((x) => x.name).filter((n) => n !== e.idName);
            return entities.updateEntity(
                client,
                store,
                item.entity,
                from[e.idName],
                Object.fromEntries(members.map((member) => [member, other[member]])),
            );
        }
        if (item.kind === 'create') {
            const id = typeof from[e.idName] === 'number' ? 1e9 + round * 1e6 + k : `new${round}x${k}`;
            const list = created.get(item.entity) ?? [];
            list.push(id);
            created.set(item.entity, list);
            return entities.createEntity(client, store, item.entity, { ...from, [e.idName]: id });
        }
        // A delete removes an instance this run created (the data the queries draw from stays).
        const id = created.get(item.entity)?.pop();
        return id === undefined
            ? Promise.resolve()
            : entities.deleteEntity(client, store, item.entity, id, { detach: true });
    };
    // Deletes what the creates of a run made (untimed), so that every run reads and writes the data it started from.
    const cleanup = async () => {
        for (const [entity, ids] of created) {
            for (const id of ids) await entities.deleteEntity(client, store, entity, id, { detach: true });
            ids.length = 0;
        }
    };
    return { memory, emptyIndexes, collections, operation, cleanup };
}

/**
 * One round of the sequence on a loaded design: seconds of wall clock, and what the server spent on it — its main
 * thread's CPU seconds (Linux schedstat; where Redis runs every command, SAFEMODE keeping the module's threads off),
 * the seconds it waited for a core, and `INFO commandstats` calls and µs per command.
 */
async function run({ client, server, operation }, sequence, round) {
    const statsBefore = commandStats(await client.sendCommand(['INFO', 'commandstats']));
    const before = server.scheduled();
    let next = 0;
    const started = performance.now();
    await Promise.all(
        Array.from({ length: Math.min(inFlight, sequence.length) }, async () => {
            while (next < sequence.length) {
                const k = next++;
                await operation(sequence[k], round, k);
            }
        }),
    );
    const seconds = (performance.now() - started) / 1000;
    const after = server.scheduled();
    const statsAfter = commandStats(await client.sendCommand(['INFO', 'commandstats']));
    const commands = {};
    for (const [name, stat] of Object.entries(statsAfter)) {
        const calls = stat.calls - (statsBefore[name]?.calls ?? 0);
        // INFO itself is the bench's, not the workload's.
        if (calls > 0 && name !== 'info') commands[name] = { calls, usec: stat.usec - (statsBefore[name]?.usec ?? 0) };
    }
    return {
        seconds,
        cpu: before && after ? after.cpu - before.cpu : NaN,
        waiting: before && after ? after.waiting - before.waiting : NaN,
        commands,
    };
}

/**
 * What one collection holds after the load: its rows (the hashes under its key prefix: `MEMORY USAGE` of each, with
 * their fields) and its RediSearch index (`FT.INFO`'s sizes: inverted index, offsets, document table, sortable values,
 * key table; reported in MB with a few decimals).
 */
async function collectionMemory(client, collection) {
    let rows = 0;
    let rowBytes = 0;
    let hashFields = 0;
    let cursor = '0';
    do {
        const [next, keys] = await client.sendCommand([
            'SCAN',
            cursor,
            'MATCH',
            `${collection.keyPrefix}*`,
            'COUNT',
            '1000',
        ]);
        cursor = String(next);
        for (const key of keys) {
            if (String(key) === `${collection.keyPrefix}counter`) continue;
            rows++;
            rowBytes += Number(await client.sendCommand(['MEMORY', 'USAGE', String(key), 'SAMPLES', '0']));
            hashFields += Number(await client.sendCommand(['HLEN', String(key)]));
        }
    } while (cursor !== '0');
    const info = await client.sendCommand(['FT.INFO', collection.physicalIndex]);
    const fields = new Map();
    for (let i = 0; i + 1 < info.length; i += 2) fields.set(String(info[i]), info[i + 1]);
    const mb = [
        'inverted_sz_mb',
        'offset_vectors_sz_mb',
        'doc_table_size_mb',
        'sortable_values_size_mb',
        'key_table_size_mb',
    ];
    const indexBytes = mb.reduce((sum, name) => sum + Number(fields.get(name) ?? 0) * 1024 * 1024, 0);
    return { name: collection.name, rows, hashFields: rows ? hashFields / rows : 0, rowBytes, indexBytes };
}

/** `INFO commandstats` by command: calls and µs (the µs of FCALL include the commands its Function calls). */
function commandStats(info) {
    const stats = {};
    for (const match of String(info).matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g))
        stats[match[1].toLowerCase()] = { calls: Number(match[2]), usec: Number(match[3]) };
    return stats;
}

/** The entity operations' rounds: server CPU µs per operation (least, median), rows written per operation. */
function writesSummary(runs, count) {
    const cpuPerOp = runs.map((r) => (r.cpu * 1e6) / count);
    const sum = (name) => runs.reduce((total, r) => total + (r.commands[name]?.calls ?? 0), 0);
    return {
        count,
        cpuPerOp: Math.min(...cpuPerOp),
        cpuPerOpMedian: median(cpuPerOp),
        rowsPerOp: sum('ft.add') / sum('fcall'),
        hsetPerOp: sum('hset') / sum('fcall'),
    };
}

/**
 * The cost design against a rival over paired rounds: per round the ratio of their server CPU (cost / rival) and of
 * their op/s (cost / rival); the median, least and most of each. `spread` is half the range of the CPU ratios in
 * percent; `wins` when the median ratio is below 1 and the rounds won pass a one-sided sign test (p ≤ 0.05).
 */
function verdict(costRuns, rivalRuns, count) {
    const rounds = Math.min(costRuns.length, rivalRuns.length);
    const cpu = [];
    const wall = [];
    for (let i = 0; i < rounds; i++) {
        cpu.push(costRuns[i].cpu / rivalRuns[i].cpu);
        wall.push(rivalRuns[i].seconds / costRuns[i].seconds);
    }
    const least = Math.min(...cpu);
    const most = Math.max(...cpu);
    // A paired sign test: with the designs equal, each round is a coin toss; the verdict asks that winning so many
    // rounds be that unlikely (p ≤ 0.05, one-sided) — at 5 rounds, all of them, as "below 1 in every round" did.
    const won = cpu.filter((ratio) => ratio < 1).length;
    let p = 0;
    for (let k = won; k <= rounds; k++) p += binomial(rounds, k) / 2 ** rounds;
    return {
        rounds,
        median: median(cpu),
        least,
        most,
        spread: (100 * (most - least)) / 2,
        won,
        p,
        wins: p <= 0.05 && median(cpu) < 1,
        wallMedian: median(wall),
        wallLeast: Math.min(...wall),
        wallMost: Math.max(...wall),
        count,
    };
}

function binomial(n, k) {
    let value = 1;
    for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i;
    return value;
}

function median(values) {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * A design's rounds summed up: op/s (fastest, median), the server's CPU µs per operation (least, median), and per
 * command its calls and µs per call over all rounds (the client sends `fcall` for an entity operation, `eval` for a
 * read; the others run inside them).
 */
function summary(runs, { memory, emptyIndexes, collections: stored }, count) {
    const opsPerSecond = runs.map((r) => count / r.seconds);
    const cpuPerOp = runs.map((r) => (r.cpu * 1e6) / count);
    const commands = {};
    for (const r of runs)
        for (const [name, stat] of Object.entries(r.commands)) {
            const sum = (commands[name] ??= { calls: 0, usec: 0 });
            sum.calls += stat.calls;
            sum.usec += stat.usec;
        }
    return {
        memory,
        emptyIndexes,
        stored,
        opsPerSecond: Math.max(...opsPerSecond),
        opsPerSecondMedian: median(opsPerSecond),
        cpuPerOp: Math.min(...cpuPerOp),
        cpuPerOpMedian: median(cpuPerOp),
        cpuPerOpMost: Math.max(...cpuPerOp),
        waitingShare: median(runs.map((r) => r.waiting / r.seconds)),
        usecPerCall: Object.fromEntries(
            Object.entries(commands).map(([name, stat]) => [name, { calls: stat.calls, usec: stat.usec / stat.calls }]),
        ),
        runs: runs.map((r) => ({ seconds: r.seconds, cpu: r.cpu })),
    };
}

/** Writes the instance data through the client: [1] references first, then the other references added. */
async function writeEntities(client, store, data) {
    const schema = store.schema.entities;
    const required = (reference) => reference.kind === 'one';
    const order = [];
    const visit = (name, path) => {
        if (order.includes(name)) return;
        if (path.has(name)) throw new Error(`[1] references form a cycle through ${name}`);
        path.add(name);
        for (const reference of schema[name].references)
            if (required(reference) && reference.target !== name) visit(reference.target, path);
        path.delete(name);
        order.push(name);
    };
    for (const name of Object.keys(schema)) visit(name, new Set());
    const batch = async (jobs) => {
        for (let i = 0; i < jobs.length; i += 200) await Promise.all(jobs.slice(i, i + 200).map((job) => job()));
    };
    for (const name of order)
        await batch(
            (data[name] ?? []).map((object) => () => {
                const created = { ...object };
                for (const reference of schema[name].references)
                    if (!required(reference)) created[reference.name] = reference.kind === 'many' ? [] : null;
                return entities.createEntity(client, store, name, created);
            }),
        );
    for (const name of order) {
        const jobs = [];
        for (const object of data[name] ?? [])
            for (const reference of schema[name].references) {
                const value = object[reference.name];
                if (reference.kind === 'optional' && value != null)
                    jobs.push(() =>
                        entities.setReference(client, store, name, object[schema[name].idName], reference.name, value),
                    );
                if (reference.kind === 'many' && Array.isArray(value) && value.length > 0)
                    jobs.push(() =>
                        entities.addReferences(client, store, name, object[schema[name].idName], reference.name, value),
                    );
            }
        await batch(jobs);
    }
}

function usedMemory(info) {
    return Number(/used_memory:(\d+)/.exec(String(info))[1]);
}

const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const calibrated = calibration(results);
if (json) console.log(JSON.stringify({ ops, scale, inFlight, rounds, loadStart, load, calibrated, results }, null, 2));
else {
    console.log(
        `bench:cost: ${EXAMPLE} under its two workloads (${EXAMPLE}/workloads/), the design --merge cost chooses against the 80% rule's (--merge paper) and against the other workload's cost-chosen design, RediSearch 1.2 (redisearch1), through the client runtime; ${ops} operations in the workload's proportions, ${inFlight} in flight, ${rounds} interleaved rounds; ${scale} objects per entity; load average ${loadStart} at the start, ${load} at the end. The primary figure is the server's CPU time per operation (its main thread, schedstat), which neighbours disturb far less than the wall clock; op/s is secondary and needs an idle machine`,
    );
    for (const result of results) {
        const { cost, paper, other } = result.designs;
        console.log('');
        console.log(`${result.workload}: ${result.mix.join(', ')}`);
        console.log(
            `  references (declared → in the data, on average): ${result.sizes.map((s) => `${s.name} ${fmt(s.declared, 1)} → ${fmt(s.generated, 2)}`).join(', ')}`,
        );
        const ratio = (a, b) => (a / b).toFixed(2);
        const perCall = (name) => (d) => d.usecPerCall[name]?.usec ?? NaN;
        const rows = [
            ['', 'cost policy', '80% rule', `cost (${result.other})`, 'cost/paper', `cost/${result.other}`],
            ...[
                ['collections', (d) => d.collections.length, () => ''],
                ['server CPU µs/op, median (the primary figure)', (d) => d.cpuPerOpMedian, ratio, 1],
                ['server CPU µs/op, least of the rounds', (d) => d.cpuPerOp, ratio, 1],
                ['server CPU µs/op, most of the rounds', (d) => d.cpuPerOpMost, ratio, 1],
                ['entity operations alone: server CPU µs/op, least', (d) => d.writes?.cpuPerOp ?? NaN, ratio, 1],
                ['entity operations alone: server CPU µs/op, median', (d) => d.writes?.cpuPerOpMedian ?? NaN, ratio, 1],
                ['entity operations alone: rows written/op (FT.ADD)', (d) => d.writes?.rowsPerOp ?? NaN, ratio, 2],
                [
                    'entity operations alone: HSET/op (unindexed fields, the entity)',
                    (d) => d.writes?.hsetPerOp ?? NaN,
                    ratio,
                    2,
                ],
                ['reads alone: server CPU µs/read, median', (d) => d.reads?.cpuPerRead ?? NaN, ratio, 1],
                ['µs per entity operation (FCALL, commandstats)', perCall('fcall'), ratio, 1],
                ['µs per read (EVAL of FT.SEARCH, commandstats)', perCall('eval'), ratio, 1],
                ['op/s, fastest', (d) => d.opsPerSecond, ratio],
                ['op/s, median', (d) => d.opsPerSecondMedian, ratio],
                ['server waiting for a core', (d) => 100 * d.waitingShare, () => '', 0, '%'],
                ['memory (bytes)', (d) => d.memory, ratio],
                ['  rows stored', (d) => sumOf(d.stored, 'rows'), ratio],
                ['  row hashes (bytes, MEMORY USAGE)', (d) => sumOf(d.stored, 'rowBytes'), ratio],
                ['  indexes (bytes, FT.INFO)', (d) => sumOf(d.stored, 'indexBytes'), ratio],
                ['  the empty indexes (bytes)', (d) => d.emptyIndexes, ratio],
                ['modelled time', (d) => d.modelled.time, ratio],
                ['modelled memory', (d) => d.modelled.memory, ratio],
            ].map(([name, of, compare, digits = 0, unit = '']) => [
                name,
                fmt(of(cost), digits) + unit,
                fmt(of(paper), digits) + unit,
                fmt(of(other), digits) + unit,
                compare(of(cost), of(paper)),
                compare(of(cost), of(other)),
            ]),
        ];
        const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
        for (const row of rows)
            console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
        for (const [policy, design] of [
            ['cost', cost],
            ['paper', paper],
            [`cost (${result.other})`, other],
        ])
            console.log(`  ${policy}: ${design.collections.join(' | ')}`);
        // The verdict per rival, from the rounds paired (each round runs every design once, interleaved): the cost
        // design's server CPU per operation over the rival's in the same round. It wins when the median ratio is
        // below 1 and it won too many rounds for chance (the sign test in `verdict`).
        for (const [name, rival] of [
            ['80% rule', paper],
            [`cost (${result.other})`, other],
        ]) {
            if (rival.collections.join() === cost.collections.join()) {
                console.log(`  against ${name}: the same design`);
                continue;
            }
            const v = verdict(cost.runs, rival.runs, result.operations);
            console.log(
                `  cost design wins against ${name}: ${v.wins ? `yes, by ${fmt(100 * (1 - v.median), 1)}%` : `no (not beyond chance): the median ${v.median < 1 ? `${fmt(100 * (1 - v.median), 1)}% less` : `${fmt(100 * (v.median - 1), 1)}% more`}`} of server CPU (median of ${v.rounds} paired rounds' ratios ${fmt(v.median, 2)}, rounds ${fmt(v.least, 2)}–${fmt(v.most, 2)}, spread ±${fmt(v.spread, 1)}%; won ${v.won} of ${v.rounds}, sign test p = ${fmt(v.p, 3)}); op/s ${fmt(100 * (v.wallMedian - 1), 1)}% (rounds ${fmt(v.wallLeast, 2)}–${fmt(v.wallMost, 2)}×); model: ${fmt(100 * (1 - cost.modelled.time / rival.modelled.time), 1)}% less time`,
            );
            const smaller = cost.modelled.memory <= rival.modelled.memory;
            const measuredSmaller = cost.memory <= rival.memory;
            if (smaller !== measuredSmaller)
                console.log(
                    `  against ${name}: memory DISAGREES (model: ${smaller ? 'cost' : name} smaller, measured: ${measuredSmaller ? 'cost' : name} smaller)`,
                );
        }
        // Where the model's balance of reads and writes and the server's disagree: µs of server time (commandstats)
        // per modelled field access, for a read (EVAL) and for an entity operation (FCALL). Equal figures mean the
        // model weighs reads against writes as the server does.
        for (const [policy, design] of [
            ['cost', cost],
            ['80% rule', paper],
            [`cost (${result.other})`, other],
        ]) {
            const readUnits = design.modelled.reads / result.readRate;
            const writeUnits = design.modelled.writes / result.writeRate;
            // Server CPU where the bench ran reads and writes alone (neighbours disturb it less), else commandstats.
            const readUs = design.reads?.cpuPerRead ?? design.usecPerCall.eval?.usec ?? NaN;
            const writeUs = design.writes?.cpuPerOpMedian ?? design.usecPerCall.fcall?.usec ?? NaN;
            console.log(
                `  ${policy}: a read ${fmt(readUs, 0)} µs / ${fmt(readUnits, 0)} modelled = ${fmt(readUs / readUnits, 1)} µs per field access; an entity operation ${fmt(writeUs, 0)} µs / ${fmt(writeUnits, 1)} = ${fmt(writeUs / writeUnits, 1)}`,
            );
        }
    }
    const c = calibrated;
    console.log('');
    console.log(
        `calibration (least squares over ${c.points.writes} designs' entity operations and ${c.points.collections} collections): an entity operation ${fmt(c.fixedUs, 1)} µs + ${fmt(c.rowUs, 1)} µs per row written, OPERATION ≈ ${fmt(c.operation)} field accesses (a row write = KEY + 1.5); a collection ${fmt(c.indexBytes)} bytes + ${fmt(c.rowBytes)} per row + ${fmt(c.fieldBytes)} per field, ROW ≈ ${fmt(c.row, 1)} and INDEX ≈ ${fmt(c.index)} fields (cost-model.ts: OPERATION ${OPERATION}, ROW ${ROW}, INDEX ${INDEX})`,
    );
    console.log(
        `reads against writes: ${fmt(c.readUs, 1)} µs of the server per modelled field access of a read, ${fmt(c.writeUs, 1)} of an entity operation (server CPU of each run alone where the bench ran them, else commandstats): a read's access weighs ${fmt(c.readUs / c.writeUs, 2)} of a write's (1 when the model weighs them as the server does; SCAN ${SCAN} would be ≈ ${fmt((SCAN * c.readUs) / c.writeUs, 2)} if every read scanned)`,
    );
}

/**
 * The constants of the cost model the bench calibrates (transformations/pidm-to-kvlm/cost-model.ts), fitted by least
 * squares over every design of both workloads: the server's CPU µs per entity operation (run alone, median; where at
 * least 100 ran) = fixed + per row × rows written (FT.ADD per FCALL), and a collection's bytes (its row hashes and its index) = per index + rows × (per row + per field × fields).
 * In the model's units: a field access of a row write is the µs per row over `KEY` + 1.5 (a key and a field, an
 * indexed one counting twice), a stored field the bytes per field.
 */
function calibration(results) {
    const designs = results.flatMap((result) => Object.values(result.designs));
    const writes = designs
        .filter((d) => d.writes && d.writes.count >= 100)
        .map((d) => [1, d.writes.rowsPerOp, d.writes.cpuPerOpMedian]);
    const [fixedUs, rowUs] =
        writes.length >= 2
            ? leastSquares(
                  writes.map(([one, x]) => [one, x]),
                  writes.map(([, , y]) => y),
              )
            : [NaN, NaN];
    const seen = new Set();
    const collections = designs.flatMap((d) => d.stored).filter((c) => !seen.has(c.name) && seen.add(c.name));
    const [indexBytes, rowBytes, fieldBytes] = leastSquares(
        collections.map((c) => [1, c.rows, c.rows * c.hashFields]),
        collections.map((c) => c.rowBytes + c.indexBytes),
    );
    // Reads against entity operations: the server's µs (commandstats, over every design and workload) per modelled
    // field access of each. Equal when the model weighs them as the server does; SCAN scales a range read's.
    const perAccess = (calls, units) => {
        const points = results.flatMap((result) =>
            Object.values(result.designs)
                .filter((d) => d.usecPerCall[calls])
                .map((d) => [d.usecPerCall[calls].usec, units(d, result)]),
        );
        return points.reduce((sum, [us]) => sum + us, 0) / points.reduce((sum, [, u]) => sum + u, 0);
    };
    const cpuPerAccess = (of, units) => {
        const points = results.flatMap((result) =>
            Object.values(result.designs)
                .filter((d) => of(d) !== undefined)
                .map((d) => [of(d), units(d, result)]),
        );
        return points.reduce((sum, [us]) => sum + us, 0) / points.reduce((sum, [, u]) => sum + u, 0);
    };
    const readUnits = (d, result) => d.modelled.reads / result.readRate;
    const writeUnits = (d, result) => d.modelled.writes / result.writeRate;
    const readCpu = cpuPerAccess((d) => d.reads?.cpuPerRead, readUnits);
    const writeCpu = cpuPerAccess((d) => (d.reads ? d.writes?.cpuPerOpMedian : undefined), writeUnits);
    const readUs = Number.isFinite(readCpu) ? readCpu : perAccess('eval', readUnits);
    const writeUs = Number.isFinite(readCpu) ? writeCpu : perAccess('fcall', writeUnits);
    return {
        readUs,
        writeUs,
        points: { writes: writes.length, collections: collections.length },
        fixedUs,
        rowUs,
        operation: fixedUs / (rowUs / 2.5),
        indexBytes,
        rowBytes,
        fieldBytes,
        row: rowBytes / fieldBytes,
        index: indexBytes / fieldBytes,
    };
}

/** The least-squares solution of rows · x = values (normal equations, Gaussian elimination). */
function leastSquares(rows, values) {
    const n = rows[0].length;
    const a = Array.from({ length: n }, (_, i) =>
        Array.from({ length: n + 1 }, (_, j) =>
            rows.reduce((sum, row, k) => sum + row[i] * (j < n ? row[j] : values[k]), 0),
        ),
    );
    for (let i = 0; i < n; i++) {
        const pivot = a.slice(i).reduce((best, row, k) => (Math.abs(row[i]) > Math.abs(a[best][i]) ? i + k : best), i);
        [a[i], a[pivot]] = [a[pivot], a[i]];
        for (let k = 0; k < n; k++)
            if (k !== i) {
                const factor = a[k][i] / a[i][i];
                for (let j = i; j <= n; j++) a[k][j] -= factor * a[i][j];
            }
    }
    return a.map((row, i) => row[n] / row[i]);
}

function sumOf(list, name) {
    return list.reduce((sum, item) => sum + item[name], 0);
}

function fmt(value, digits = 0) {
    if (Number.isNaN(value)) return '–';
    return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
