#!/usr/bin/env node
// `npm run bench:load [-- --scale 10000] [--model examples/airflights/airflights.pidm] [--batch 2000] [--repeat 3]
//  [--deep-pipe] [--profile DIR] [--json]`
//
// `kvmod load` against `redis-cli --pipe`, side by side in one run, on a scratch redis-server with the RediSearch
// 1.2 module (started here on a free loopback port, stopped by pid). The data is `kvmod data generate --scale N`; the
// baseline replays exactly the commands kvmod sends (computed from the compiled code in out/) as RESP through
// `redis-cli --pipe` into a flushed server. Each figure is the fastest of `--repeat` runs (flushed before each);
// throughput is rows per second; a ratio is kvmod's share of redis-cli's throughput. CPU seconds are given beside
// wall time because the machine may be shared (the load average is printed). Two comparisons:
//
// - FT.ADD (the redisearch1 design this server runs; the server indexes every row, the same work on both sides):
//   `kvmod load` as a whole process (start-up, reading and transforming the model, reading and checking the JSON
//   data, materializing, encoding, the round trips), and the write path alone (`loadIntoRedis`, what the command
//   calls, in this process on rows already materialized). The baseline sends the commands in pipes of `--batch`
//   commands, one `redis-cli --pipe` after the other, because one deep pipe of FT.ADD grows worse than linearly on
//   this server (a blocked FT.ADD leaves the rest of the pipe in the server's query buffer, which is moved down after
//   every command): `--deep-pipe` adds that baseline too (minutes at the default scale).
// - HSET (the redisearch2 design's row writes; a 1.2 server does not index them, so this times the client and the
//   protocol alone: the harder comparison): the write path alone against one deep `redis-cli --pipe` of the same
//   HSETs. `kvmod load` itself cannot run this design here (a 1.2 server has no FT.ALIASUPDATE for its stable names).
//
// `--profile DIR` also runs `kvmod load` once under `node --cpu-prof --cpu-prof-dir DIR` and prints where its time
// went (scripts/cpu-profile-summary.mjs). Needs redis-server, redis-cli and /usr/lib/redis/modules/redisearch.so.
import './polyfills.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const scale = Number(option('scale', '10000'));
const repeat = Number(option('repeat', '3'));
const batch = Number(option('batch', '2000'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const profileDir = option('profile', undefined);
const deepPipe = args.includes('--deep-pipe');
const json = args.includes('--json');
const MODULE = '/usr/lib/redis/modules/redisearch.so';
const TIME = '/usr/bin/time'; // GNU time, for the CPU seconds of a child process (optional)

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { readInstanceData, indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { buildRedisViewModel } = await import(`${root}out/src/generation/redis/redis-view-model.js`);
const { bindRedisCommand } = await import(`${root}out/src/generation/redis/redis-commands.js`);
const { rowParameters, loadIntoRedis } = await import(`${root}out/src/runtime/redis-loader.js`);
const { connectRedis } = await import(`${root}out/src/runtime/redis-link.js`);

mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'kvmod-bench-load-'));
const load = () =>
    loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
let server;
try {
    const port = await freePort();
    server = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loadmodule', MODULE],
        { stdio: 'ignore' },
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
        { encoding: 'utf8' },
    );
    if (generated.status !== 0) throw new Error(`kvmod data generate: ${generated.stderr}`);

    const design = await loadRuntimeDesign(model);
    const instances = await readInstanceData(data, design.model);
    const collections = materializeModel(design.kvlm, instances, indexInstanceData(design.model, instances));
    const byName = new Map(collections.map((c) => [c.name, c]));
    const rows = collections.reduce((sum, c) => sum + c.rows.length, 0);
    const views = {
        redisearch1: buildRedisViewModel(design.kvlm, { dialect: 'redisearch1' }),
        redisearch2: buildRedisViewModel(design.kvlm, { dialect: 'redisearch2' }),
    };

    /** Writes RESP files: the index commands, then the row commands in files of `per` commands each. */
    const writeResp = (view, name, per, withIndexes) => {
        const files = [];
        let fd;
        let count = 0;
        const next = () => {
            if (fd !== undefined) closeSync(fd);
            files.push(join(dir, `${name}-${String(files.length).padStart(4, '0')}.resp`));
            fd = openSync(files.at(-1), 'w');
        };
        const write = (argv) => {
            let text = `*${argv.length}\r\n`;
            for (const arg of argv) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
            writeSync(fd, text);
        };
        next();
        if (withIndexes) {
            for (const collection of view.collections) {
                write(bindRedisCommand(collection.create, {}));
                write(bindRedisCommand(collection.point, {}));
            }
            next();
        }
        for (const collection of view.collections) {
            for (const row of byName.get(collection.name).rows) {
                if (count > 0 && count % per === 0) next();
                write(bindRedisCommand(collection.insert, rowParameters(collection, row)));
                count++;
            }
        }
        closeSync(fd);
        return files;
    };
    const pipe = (file) => {
        const input = openSync(file, 'r');
        try {
            const result = spawnSync('redis-cli', ['-p', String(port), '--pipe'], {
                stdio: [input, 'pipe', 'pipe'],
                encoding: 'utf8',
            });
            if (result.status !== 0 || !/errors: 0/.test(result.stdout))
                throw new Error(`redis-cli --pipe: ${result.stdout} ${result.stderr}`);
        } finally {
            closeSync(input);
        }
    };
    /** redis-cli --pipe of the files, one after the other, into a flushed server; the first `untimed` are not timed. */
    const timeCli = (files, untimed) => {
        cli('FLUSHALL');
        files.slice(0, untimed).forEach(pipe);
        const started = performance.now();
        files.slice(untimed).forEach(pipe);
        return { seconds: (performance.now() - started) / 1000 };
    };
    const timeKvmod = (dialect) => {
        cli('FLUSHALL');
        const argv = [join(root, 'bin/kvmod.js'), 'load', model, '--data', data, '--redis', url];
        argv.push('--dialect', dialect, '--batch', String(batch));
        const timed = existsSync(TIME);
        const started = performance.now();
        const result = timed
            ? spawnSync(TIME, ['-f', 'kvmod-cpu %U %S', process.execPath, ...argv], { encoding: 'utf8' })
            : spawnSync(process.execPath, argv, { encoding: 'utf8' });
        const seconds = (performance.now() - started) / 1000;
        if (result.status !== 0) throw new Error(`kvmod load: ${result.stderr}`);
        const cpu = /kvmod-cpu ([\d.]+) ([\d.]+)/.exec(result.stderr);
        return { seconds, cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : undefined };
    };
    // The write path alone: `loadIntoRedis` (what `kvmod load` calls) in this process on rows already materialized:
    // encoding, pipelined batches and their replies; no start-up, model or JSON. Indexes are created untimed.
    const timeWritePath = async (view, withIndexes) => {
        cli('FLUSHALL');
        const link = await connectRedis(url);
        try {
            if (withIndexes)
                await loadIntoRedis(
                    link,
                    view,
                    collections.map((c) => ({ ...c, rows: [] })),
                );
            const cpu = process.cpuUsage();
            const started = performance.now();
            const result = await loadIntoRedis(link, view, collections, { skipIndexes: true, batchSize: batch });
            const seconds = (performance.now() - started) / 1000;
            const used = process.cpuUsage(cpu);
            if (result.rows !== rows) throw new Error(`the write path wrote ${result.rows} of ${rows} rows`);
            return { seconds, cpu: (used.user + used.system) / 1e6 };
        } finally {
            await link.close();
        }
    };
    const fastest = async (run) => {
        let best;
        for (let r = 0; r < repeat; r++) {
            const timed = await run();
            if (!best || timed.seconds < best.seconds) best = timed;
        }
        return best;
    };
    const figure = (name, timed, baseline) => ({
        name,
        seconds: Number(timed.seconds.toFixed(2)),
        cpuSeconds: timed.cpu === undefined ? undefined : Number(timed.cpu.toFixed(2)),
        rowsPerSecond: Math.round(rows / timed.seconds),
        share: baseline ? Number((baseline.seconds / timed.seconds).toFixed(2)) : undefined,
    });

    const results = [];
    {
        const chunked = writeResp(views.redisearch1, 'ftadd', batch, true);
        const baseline = await fastest(() => timeCli(chunked, 1));
        const lines = [figure(`redis-cli --pipe, ${chunked.length - 1} pipes of ${batch}`, baseline)];
        if (deepPipe) {
            const deep = writeResp(views.redisearch1, 'ftadd-deep', Infinity, true);
            lines.push(figure('redis-cli --pipe, one pipe', await fastest(() => timeCli(deep, 1)), baseline));
        }
        lines.push(figure('kvmod load (whole process)', await fastest(() => timeKvmod('redisearch1')), baseline));
        const keys = Number(cli('DBSIZE'));
        lines.push(figure('write path only', await fastest(() => timeWritePath(views.redisearch1, true)), baseline));
        results.push({ comparison: 'FT.ADD (redisearch1 design, indexed by the server)', keys, lines });
    }
    {
        const deep = writeResp(views.redisearch2, 'hset', Infinity, false);
        const baseline = await fastest(() => timeCli(deep, 0));
        const lines = [figure('redis-cli --pipe, one pipe', baseline)];
        lines.push(figure('write path only', await fastest(() => timeWritePath(views.redisearch2, false)), baseline));
        results.push({ comparison: 'HSET (redisearch2 rows, not indexed by 1.2: client and protocol alone)', lines });
    }
    let profile;
    if (profileDir) {
        rmSync(profileDir, { recursive: true, force: true });
        cli('FLUSHALL');
        const argv = ['--cpu-prof', '--cpu-prof-dir', profileDir, join(root, 'bin/kvmod.js'), 'load', model];
        argv.push('--data', data, '--redis', url, '--dialect', 'redisearch1', '--batch', String(batch));
        const run = spawnSync(process.execPath, argv, { encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`kvmod load --cpu-prof: ${run.stderr}`);
        const file = join(
            profileDir,
            readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile')),
        );
        const summary = [join(root, 'scripts/cpu-profile-summary.mjs'), file, '--top', '25'];
        profile = spawnSync(process.execPath, summary, { encoding: 'utf8' }).stdout;
    }
    const header = `${model.slice(root.length)} --scale ${scale}: ${rows.toLocaleString('en-US')} rows, batches of ${batch}, fastest of ${repeat}; load average ${load()}`;
    if (json) console.log(JSON.stringify({ model: model.slice(root.length), scale, rows, batch, results }, null, 2));
    else {
        console.log(header);
        for (const { comparison, lines } of results) {
            console.log(comparison);
            for (const line of lines) {
                const cpu = line.cpuSeconds === undefined ? '' : `${line.cpuSeconds.toFixed(2)} s CPU`;
                const share = line.share === undefined ? '' : `${Math.round(line.share * 100)}% of redis-cli --pipe`;
                console.log(
                    `  ${line.name.padEnd(32)} ${line.seconds.toFixed(2).padStart(6)} s  ${line.rowsPerSecond.toLocaleString('en-US').padStart(9)} rows/s  ${cpu.padEnd(11)}  ${share}`,
                );
            }
        }
        if (profile) console.log(`\nkvmod load under --cpu-prof (${profileDir}):\n${profile}`);
    }
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
