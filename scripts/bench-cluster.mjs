#!/usr/bin/env node
// `npm run bench:cluster [-- --scale 3000] [--model examples/airflights/airflights.pidm] [--masters 3] [--json]`
//
// How the redis-core design's index spreads over a Redis Cluster. Starts a private cluster (`--masters` nodes of
// `redis-server --cluster-enabled yes` on free loopback ports, joined by `redis-cli --cluster create`, as
// test/support/redis-cluster.ts does; stopped by pid), loads the model's generated data at `--scale` through the
// redis-core engine (what `kvmod load` calls), then counts each collection's index entries on each master: the
// members of its sets and sorted sets and the fields of its record hashes, under `{C}:*` and `{C:…}:*`. Prints per
// collection its partition fields, partitions, and each master's share, against the goal: no master holds more than
// 45% of a collection partitioned by its queries' equality parameters. "Before" is the design without partitions,
// where the tag `{C}` put all of a collection's index on the master of that one slot (100%).
import './polyfills.mjs';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchOptions, removeDir, scratchDir } from './bench-redis.mjs';
import { cli, startCluster } from './bench-cluster-start.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const scale = Number(option('scale', '3000'));
const masters = Number(option('masters', '3'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const json = flag('json');
const GOAL = 0.45;

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { generateInstanceData } = await import(`${root}out/src/runtime/data-generator.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { engineOf } = await import(`${root}out/src/runtime/engine-registry.js`);
const { getGenerationTarget } = await import(`${root}out/src/generation/generation-targets.js`);
const { buildViewModel } = await import(`${root}out/src/generation/generation-engine.js`);
const { coreIndexPatterns } = await import(`${root}out/src/runtime/redis-core/core-engine.js`);

/** A collection's index entries on one node: members of its sets and sorted sets, fields of its record hashes. */
function entriesOn(port, collection) {
    let entries = 0;
    for (const pattern of coreIndexPatterns(collection)) {
        const keys = cli(port, '--scan', '--pattern', pattern)
            .split('\n')
            .filter((key) => key !== '' && key !== collection.key.counterKey);
        if (keys.length === 0) continue;
        // One pipelined redis-cli per node: TYPE-free, by the key's shape (`:rec` a hash, `:eq:` a set, else a zset).
        const commands = keys.map((key) => {
            const command = key.endsWith(':rec') ? 'HLEN' : key.includes('}:eq:') ? 'SCARD' : 'ZCARD';
            return `${command} ${JSON.stringify(key)}`;
        });
        const result = spawnSync('redis-cli', ['-p', String(port)], {
            input: commands.join('\n'),
            encoding: 'utf8',
            maxBuffer: 1 << 28,
        });
        if (result.status !== 0) throw new Error(`redis-cli -p ${port}: ${result.stderr}`);
        for (const line of result.stdout.split('\n')) if (line.trim() !== '') entries += Number(line.trim());
    }
    return entries;
}

const dir = scratchDir(root, 'kvmod-bench-cluster');
let cluster;
try {
    cluster = await startCluster(dir, masters);
    const design = await loadRuntimeDesign(model, {});
    const data = generateInstanceData(design.model, { scale, seed: 1 });
    const rows = materializeModel(design.kvlm, data, indexInstanceData(design.model, data));
    const total = rows.reduce((sum, c) => sum + c.rows.length, 0);
    const engine = await engineOf(getGenerationTarget('redis-core'));
    const loaded = await engine.use(async (typed) => {
        const session = await typed.connect({ urls: cluster.nodes.map((n) => n.url) });
        try {
            const view = await buildViewModel(typed.target, design, { ...session.probe.options });
            await session.prepareSchema(view, 'fresh');
            const started = performance.now();
            await session.writeRows(view, rows, {});
            return { view, seconds: (performance.now() - started) / 1000 };
        } finally {
            await session.close();
        }
    });
    const load = loadavg()[0];
    const collections = loaded.view.collections.map((collection) => {
        const perMaster = cluster.nodes.map((node) => entriesOn(node.port, collection));
        const sum = perMaster.reduce((a, b) => a + b, 0);
        const shares = perMaster.map((n) => (sum === 0 ? 0 : n / sum));
        // Before: the one tag `{C}` put every entry on the master of its slot.
        const globalSlot = Number(cli(cluster.nodes[0].port, 'CLUSTER', 'KEYSLOT', collection.recordKey));
        const beforeMaster = cluster.nodes.findIndex((node) => ownsSlot(node.port, globalSlot));
        const partitioned = collection.partition !== null;
        return {
            name: collection.name,
            partition: partitioned ? collection.partition.fields.map((f) => f.field) : [],
            partitions: partitioned ? countPartitions(collection) : 1,
            entries: sum,
            perMaster,
            shares,
            max: Math.max(...shares),
            beforeMaster,
            goal: partitioned ? Math.max(...shares) <= GOAL : null,
        };
    });

    function countPartitions(collection) {
        let n = 0;
        for (const node of cluster.nodes) {
            const keys = cli(node.port, '--scan', '--pattern', `\\{${collection.name}:*\\}:rec`);
            n += keys.split('\n').filter((k) => k !== '').length;
        }
        return n;
    }

    const result = {
        model: model.slice(root.length),
        scale,
        masters,
        rows: total,
        loadSeconds: loaded.seconds,
        loadAverage: load,
        collections,
    };
    if (json) console.log(JSON.stringify(result, null, 2));
    else {
        console.log(
            `${result.model} --scale ${scale}: ${total.toLocaleString('en-US')} rows loaded into ${masters} masters in ${loaded.seconds.toFixed(1)} s (load average ${load.toFixed(2)})`,
        );
        console.log(
            `goal: no master holds more than ${GOAL * 100}% of a partitioned collection's index entries; before: 100% on the master of {C}'s slot`,
        );
        console.log('');
        const header = [
            'collection',
            'partitioned by',
            'partitions',
            'entries',
            ...cluster.nodes.map((_, i) => `master ${i + 1}`),
            'max',
            'before',
            'goal',
        ];
        const lines = collections.map((c) => [
            c.name,
            c.partition.length > 0 ? c.partition.join(', ') : '(global)',
            c.partitions.toLocaleString('en-US'),
            c.entries.toLocaleString('en-US'),
            ...c.shares.map(pct),
            pct(c.max),
            `100% on ${c.beforeMaster + 1}`,
            c.goal === null ? 'n/a' : c.goal ? 'met' : 'MISSED',
        ]);
        const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
        const row = (cells) =>
            cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
        console.log(row(header));
        for (const line of lines) console.log(row(line));
    }
    process.exitCode = collections.every((c) => c.goal !== false) ? 0 : 1;
} finally {
    await cluster?.stop();
    removeDir(dir);
}

function pct(share) {
    return `${(share * 100).toFixed(1)}%`;
}

/** Whether the node on `port` serves `slot` (its own line of CLUSTER NODES: the slot ranges after the 8th field). */
function ownsSlot(port, slot) {
    const lines = cli(port, 'CLUSTER', 'NODES').split('\n');
    const self = lines.find((line) => line.includes('myself'));
    if (!self) return false;
    for (const range of self.split(' ').slice(8)) {
        const [from, to] = range.split('-').map(Number);
        if (slot >= from && slot <= (to ?? from)) return true;
    }
    return false;
}
