#!/usr/bin/env node
// `npm run bench:cost [-- --ops 3000] [--scale 100] [--in-flight 16] [--rounds 2] [--json]`
//
// Design by cost (issue 32), measured: the book rating site under a read-heavy and a write-heavy workload; for each,
// the design `--merge cost` chooses and the one the 80% rule (`--merge paper`) makes, each on its own scratch
// redis-server with RediSearch 1.2 (`SAFEMODE TIMEOUT 0`, a free loopback port, stopped by pid), the redis target's
// redisearch1 design. Every design is loaded the same way: the indexes, the entity Function, then the same instance
// data (`--scale` objects per entity) written through the typed client's runtime (`kvmod-entities.ts`); then
// `INFO memory` used_memory. Then one sequence of `--ops` operations drawn in the workload's proportions (the same
// sequence for both designs of a workload): a query is the generated client's first page of it (`readPage` with the
// query as the generated module holds it, parameters drawn from the data as `verify` draws them), an entity
// operation the client's createEntity / updateEntity / deleteEntity (one FCALL of the entity Function each).
// `--in-flight` operations in flight on one node-redis connection; the fastest of `--rounds` rounds (creates make new
// ids each round). It prints operations per second and memory for both designs, the cost model's figures for both,
// and where the model's prediction (which design is faster, which smaller) and the measurement disagree.
import './polyfills.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { benchOptions, removeDir, scratchDir, startBenchServer } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const ops = Number(option('ops', '3000'));
const scale = Number(option('scale', '100'));
const inFlight = Number(option('in-flight', '16'));
const rounds = Number(option('rounds', '2'));
const json = flag('json');

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
const { compareByCost, collectionsOfQueries } = await import(`${root}out/transformations/pidm-to-kvlm/index.js`);
const { chooseByCost, costedDesign } = await import(`${root}out/transformations/pidm-to-kvlm/choose-by-cost.js`);
const clientRuntime = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-client.js`);
const entities = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-entities.js`);

const example = readFileSync(join(root, 'examples/book-ratings/book-ratings.pidm'), 'utf8');
/** The book rating site without its own workload block. */
const BASE = example.slice(0, example.indexOf('\n// The workload'));
/** The workloads of test/transformations/choose-by-cost.test.ts, where the cost policy chooses different designs. */
const WORKLOADS = {
    'read-heavy': `
workload {
  query Q1_booksByRank 100
  query Q3_booksWithTag 100
  query Q7_bargainsOrTopRanked 100
  update Book.rank 1
}
`,
    'write-heavy': `
workload {
  query Q1_booksByRank 1
  update Book.rank 100
  update Book.title 20
  create Book 10
}
`,
};

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
    for (const [workloadName, block] of Object.entries(WORKLOADS)) {
        const modelPath = join(dir, `${workloadName}.pidm`);
        writeFileSync(modelPath, `${BASE}\n${block}`);
        // The other workload's cost-chosen design, run under this one: each chosen design should win on its own.
        const otherName = names.find((name) => name !== workloadName);
        const otherPath = join(dir, `${otherName}.pidm`);
        writeFileSync(otherPath, `${BASE}\n${WORKLOADS[otherName]}`);
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
        const measured = {};
        for (const policy of POLICIES) {
            const server = await startBenchServer(dir, { module: true });
            servers.push(server);
            const client = createClient({ url: server.url });
            await client.connect();
            try {
                measured[policy] = await measure(designs[policy], server, client, sequence, data, parameterSets);
            } finally {
                await client.quit();
                server.stop();
            }
        }
        results.push({
            workload: workloadName,
            other: otherName,
            mix: mix.map((item) => `${label(item)} ${item.rate}`),
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

/** Loads a design on a fresh server through the client runtime, then runs the sequence: op/s, memory, per kind. */
async function measure(design, server, client, sequence, data, parameterSets) {
    const { viewModel: view } = await getGenerationTarget('redis').use((target) =>
        generateTarget(target, design, { dialect: 'redisearch1' }),
    );
    if (!view.entityStore) throw new Error(`the design keeps no entities: ${view.noEntityStore}`);
    const store = { schema: view.entityStore.schema, library: view.entityStore.library };
    const baseline = usedMemory(await client.sendCommand(['INFO', 'memory']));
    for (const c of view.collections)
        for (const command of [c.create, c.point]) await client.sendCommand(bindRedisCommand(command, {}));
    await entities.installEntityFunctions(client, store);
    await writeEntities(client, store, data);
    const memory = usedMemory(await client.sendCommand(['INFO', 'memory'])) - baseline;
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
    let best = Infinity;
    for (let round = 0; round < rounds; round++) {
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
        best = Math.min(best, (performance.now() - started) / 1000);
    }
    return { opsPerSecond: sequence.length / best, memory };
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
if (json) console.log(JSON.stringify({ ops, scale, inFlight, rounds, load, results }, null, 2));
else {
    console.log(
        `bench:cost: the book rating site under two workloads, the design --merge cost chooses against the 80% rule's (--merge paper) and against the other workload's cost-chosen design, RediSearch 1.2 (redisearch1), through the client runtime; ${ops} operations in the workload's proportions, ${inFlight} in flight, fastest of ${rounds}; ${scale} objects per entity; load average ${load} (shared machine)`,
    );
    for (const result of results) {
        const { cost, paper, other } = result.designs;
        console.log('');
        console.log(`${result.workload}: ${result.mix.join(', ')}`);
        const ratio = (a, b) => (a / b).toFixed(2);
        const rows = [
            ['', 'cost policy', '80% rule', `cost (${result.other})`, 'cost/paper', `cost/${result.other}`],
            ...[
                ['collections', (d) => d.collections.length, () => ''],
                ['measured op/s', (d) => d.opsPerSecond, ratio],
                ['measured memory (bytes)', (d) => d.memory, ratio],
                ['modelled time', (d) => d.modelled.time, ratio],
                ['modelled memory', (d) => d.modelled.memory, ratio],
            ].map(([name, of, compare]) => [
                name,
                fmt(of(cost)),
                fmt(of(paper)),
                fmt(of(other)),
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
        // The model predicts which design is faster (lower time) and which smaller (lower memory).
        const verdicts = [];
        for (const [name, rival] of [
            ['80% rule', paper],
            [`cost (${result.other})`, other],
        ]) {
            if (rival.collections.join() === cost.collections.join()) continue;
            const faster = cost.modelled.time <= rival.modelled.time;
            const measuredFaster = cost.opsPerSecond >= rival.opsPerSecond;
            verdicts.push(
                `against ${name}: speed ${faster === measuredFaster ? 'agrees' : 'DISAGREES'} (model: ${faster ? 'cost' : name} faster, measured: ${measuredFaster ? 'cost' : name} faster)`,
            );
            const smaller = cost.modelled.memory <= rival.modelled.memory;
            const measuredSmaller = cost.memory <= rival.memory;
            verdicts.push(
                `against ${name}: memory ${smaller === measuredSmaller ? 'agrees' : 'DISAGREES'} (model: ${smaller ? 'cost' : name} smaller, measured: ${measuredSmaller ? 'cost' : name} smaller)`,
            );
        }
        for (const verdict of verdicts) console.log(`  ${verdict}`);
    }
}

function fmt(value) {
    return Math.round(value).toLocaleString('en-US');
}
