#!/usr/bin/env node
// `npm run bench:load [-- --scale 10000] [--model examples/airflights/airflights.pidm] [--dialect redisearch1,redisearch2] [--repeat 3] [--json]`
//
// `kvmod load` against `redis-cli --pipe`, side by side in one run, on a scratch redis-server with the
// RediSearch module (started here on a free loopback port, stopped by pid). The data is `kvmod data
// generate --scale N`; the baseline replays exactly the commands kvmod sends (FT.CREATE of every index,
// then one insert per materialized row, computed from the compiled code in out/) as RESP through
// `redis-cli --pipe` into a flushed server. Both are timed as whole processes, so kvmod's figure includes
// everything a user waits for: start-up, reading and transforming the model, reading the JSON data,
// materializing and encoding the rows, and the round trips. Each side runs `--repeat` times (flushed
// before each run); the fastest counts. Throughput is rows per second; the ratio is kvmod's share of
// redis-cli's. Needs redis-server, redis-cli and /usr/lib/redis/modules/redisearch.so.
//
// Two designs by default: redisearch1 (FT.ADD: the server indexes every row, the same work on both sides)
// and redisearch2 (HSET; a 1.2 server does not index these hashes, so this row times the client side and
// the protocol alone: the harder comparison). On this server one deep --pipe of FT.ADD grows worse than
// linearly with its length (1,000 → 3,000 rows per entity: 1.1 s → 8 s), which kvmod's bounded batches
// do not.
import './polyfills.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, openSync, closeSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const scale = Number(option('scale', '10000'));
const repeat = Number(option('repeat', '3'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const json = args.includes('--json');
const dialects = option('dialect', 'redisearch1,redisearch2').split(',');
const MODULE = '/usr/lib/redis/modules/redisearch.so';

const { loadDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { readInstanceData, indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { buildRedisViewModel } = await import(`${root}out/src/generation/redis/redis-view-model.js`);
const { bindRedisCommand } = await import(`${root}out/src/generation/redis/redis-commands.js`);
const { rowParameters } = await import(`${root}out/src/runtime/redis-loader.js`);

mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'kvmod-bench-load-'));
let server;
try {
    const port = await freePort();
    server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loadmodule', MODULE],
        {
            stdio: 'ignore',
        },
    );
    const url = `redis://127.0.0.1:${port}`;
    await waitForPing(port);
    const cli = (...argv) => {
        const result = spawnSync('redis-cli', ['-p', String(port), ...argv], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`redis-cli ${argv.join(' ')}: ${result.stderr}`);
        return result.stdout.trim();
    };

    const data = join(dir, 'data.json');
    const generated = spawnSync(
        process.execPath,
        [join(root, 'bin/kvmod.js'), 'data', 'generate', model, '--scale', String(scale), '-o', data],
        {
            encoding: 'utf8',
        },
    );
    if (generated.status !== 0) throw new Error(`kvmod data generate: ${generated.stderr}`);

    const design = await loadDesign(model);
    const instances = await readInstanceData(data, design.model);
    const collections = materializeModel(design.kvlm, instances, indexInstanceData(design.model, instances));
    const results = [];
    for (const dialect of dialects) {
        // The commands kvmod sends, as RESP, for the baseline.
        const view = buildRedisViewModel(design.kvlm, { dialect });
        const resp = join(dir, `commands-${dialect}.resp`);
        const out = createWriteStream(resp);
        const write = async (argv) => {
            let text = `*${argv.length}\r\n`;
            for (const arg of argv) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
            if (!out.write(text)) await once(out, 'drain');
        };
        let rows = 0;
        for (const collection of view.collections) await write(bindRedisCommand(collection.create, {}));
        for (const collection of view.collections) {
            const materialized = collections.find((c) => c.name === collection.name);
            for (const row of materialized.rows) {
                await write(bindRedisCommand(collection.insert, rowParameters(collection, row)));
                rows++;
            }
        }
        out.end();
        await once(out, 'finish');

        const timeKvmod = () => {
            cli('FLUSHALL');
            const started = performance.now();
            const result = spawnSync(
                process.execPath,
                [join(root, 'bin/kvmod.js'), 'load', model, '--data', data, '--redis', url, '--dialect', dialect],
                { encoding: 'utf8' },
            );
            const seconds = (performance.now() - started) / 1000;
            if (result.status !== 0) throw new Error(`kvmod load: ${result.stderr}`);
            return seconds;
        };
        const timeCli = () => {
            cli('FLUSHALL');
            const input = openSync(resp, 'r');
            try {
                const started = performance.now();
                const result = spawnSync('redis-cli', ['-p', String(port), '--pipe'], {
                    stdio: [input, 'pipe', 'pipe'],
                    encoding: 'utf8',
                });
                const seconds = (performance.now() - started) / 1000;
                if (result.status !== 0 || !/errors: 0/.test(result.stdout))
                    throw new Error(`redis-cli --pipe: ${result.stdout} ${result.stderr}`);
                return seconds;
            } finally {
                closeSync(input);
            }
        };
        let kvmod = Infinity;
        let redisCli = Infinity;
        for (let r = 0; r < repeat; r++) {
            redisCli = Math.min(redisCli, timeCli());
            kvmod = Math.min(kvmod, timeKvmod());
        }
        const keys = Number(cli('DBSIZE'));
        const result = {
            model: model.slice(root.length),
            scale,
            dialect,
            rows,
            keys,
            kvmodSeconds: Number(kvmod.toFixed(2)),
            redisCliSeconds: Number(redisCli.toFixed(2)),
            kvmodRowsPerSecond: Math.round(rows / kvmod),
            redisCliRowsPerSecond: Math.round(rows / redisCli),
            share: Number((redisCli / kvmod).toFixed(2)),
        };
        results.push(result);
        if (!json) {
            console.log(
                `${result.model} --scale ${scale}, ${dialect}: ${rows.toLocaleString('en-US')} rows (${keys.toLocaleString('en-US')} keys after the kvmod run)`,
            );
            console.log(
                `  redis-cli --pipe  ${redisCli.toFixed(2).padStart(6)} s  ${result.redisCliRowsPerSecond.toLocaleString('en-US').padStart(9)} rows/s`,
            );
            console.log(
                `  kvmod load        ${kvmod.toFixed(2).padStart(6)} s  ${result.kvmodRowsPerSecond.toLocaleString('en-US').padStart(9)} rows/s  (${Math.round(result.share * 100)}% of redis-cli --pipe)`,
            );
        }
    }
    if (json) console.log(JSON.stringify(results, null, 2));
} finally {
    if (server?.pid) process.kill(server.pid);
    rmSync(dir, { recursive: true, force: true });
}

function freePort() {
    return new Promise((resolvePort, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address();
            probe.close(() => resolvePort(port));
        });
    });
}

async function waitForPing(port) {
    for (let attempt = 0; attempt < 100; attempt++) {
        if (spawnSync('redis-cli', ['-p', String(port), 'PING'], { encoding: 'utf8' }).stdout?.trim() === 'PONG')
            return;
        await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('redis-server did not start');
}
