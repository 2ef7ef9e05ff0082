#!/usr/bin/env node
// `npm run bench:load [-- --scale 10000] [--model examples/airflights/airflights.pidm] [--batch 2000] [--repeat 3]
//  [--no-blocking] [--deep-pipe] [--steady N | --no-steady] [--whole-only] [--profile DIR] [--json]`
//
// Every write path `kvmod load` has against `redis-cli --pipe` replaying exactly the same commands, side by side in
// one run, on scratch redis-servers with the RediSearch 1.2 module (started here on free loopback ports, stopped by
// pid). The data is `kvmod data generate --scale N`; the baseline's commands are computed from the compiled code in
// out/ and replayed as RESP into a flushed server. Each figure is the fastest of `--repeat` runs (flushed before
// each); throughput is rows per second; a ratio is kvmod's share of redis-cli's throughput. CPU seconds are given
// beside wall time because the machine may be shared (the load average is printed). "write path only" is what the
// command calls to write (in this process, on rows already materialized: encoding, pipelined batches, every reply
// checked; no start-up, model or JSON); "write path, node-redis pipelining" is the same write path with every row
// sent through node-redis's own client (a `sendCommand` per row, a batch's commands in one tick) instead of the bulk
// writer (src/runtime/redis-connection/redis-bulk-writer.ts), which stays only while node-redis misses 70% of
// redis-cli --pipe;
// "kvmod load (whole process)" adds start-up, reading and transforming the
// model, reading and checking the JSON data and materializing. "floor" (FT.ADD) is scripts/load-floor.mjs: a Node
// process that only parses the JSON data and writes the prepared commands — the least any Node loader reading this
// JSON can take; what kvmod load takes beyond it is the model, the check before any write, and making the rows.
//
// The server runs RediSearch with `SAFEMODE TIMEOUT 0`, as /work/shared/design/REDIS.md says to (module threads off:
// FT.ADD runs at once, like any command). Comparisons:
// - FT.ADD (the redisearch1 design; the server indexes every row, the same work on both sides): the whole process
//   and the write path, against one deep redis-cli pipe.
// - HSET (the redisearch2 design's row writes; a 1.2 server stores them without indexing, so this times the client
//   and the protocol alone: the harder comparison): the write path against one deep pipe. `kvmod load` itself
//   cannot run this design here (a 1.2 server has no FT.ALIASUPDATE for its stable names).
// - FCALL (the redis-core design: plain Redis, one call of its generated function library per row): the whole
//   process (`--target redis-core`) and the write path (the engine's writeRows), against one deep pipe into the
//   server with the library loaded. (Cluster: bench:core and the tests run the cluster; not timed here.)
// - FT.ADD on a second server started WITHOUT SAFEMODE (RediSearch 1.2's default threading: each FT.ADD blocks its
//   connection until indexed), unless `--no-blocking`: there one deep pipe of FT.ADD grows worse than linearly (a
//   blocked FT.ADD leaves the rest of the pipe in the server's query buffer, moved down after every command), so the
//   baseline sends pipes of `--batch` commands one after the other; `--deep-pipe` adds the deep pipe (minutes).
//
// Each whole process runs with KVMOD_TIMING=1; under its line, the phases of that (fastest) run, in wall seconds, and
// (on Linux, from /proc/<pid>/task/<pid>/schedstat) what the server's main thread did meanwhile: on a CPU, runnable
// but waiting for one (the machine's cores taken by the client's threads), or idle (nothing to do: the client has
// not sent the next command yet). The same for the redis-cli pipes.
// Then the steady state (scripts/bench-load-steady.mjs): the whole processes and their pipes again at `--steady N`
// (default five times `--scale`), in a second run of this script with `--whole-only` (only those lines), and kvmod's
// throughput from the difference of the two runs, where what a load costs once cancels; `--no-steady` skips it.
// `--profile DIR` also runs `kvmod load` (FT.ADD) once under `node --cpu-prof --cpu-prof-dir DIR` and prints where
// its time went (scripts/cpu-profile-summary.mjs). Needs redis-server, redis-cli and
// /usr/lib/redis/modules/redisearch.so.
import './polyfills.mjs';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { steadyState } from './bench-load-steady.mjs';
import { benchOptions, coreWriteCommands, removeDir, respText, scratchDir, startBenchServer } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { option, flag } = benchOptions();
const scale = Number(option('scale', '10000'));
const repeat = Number(option('repeat', '3'));
const batch = Number(option('batch', '2000'));
const model = resolve(root, option('model', 'examples/airflights/airflights.pidm'));
const profileDir = option('profile', undefined);
const deepPipe = flag('deep-pipe');
const blocking = !flag('no-blocking');
const json = flag('json');
/** Only the whole-process lines and their pipes (FT.ADD with SAFEMODE, FCALL): what `bench-load-steady.mjs` reads. */
const wholeOnly = flag('whole-only');
const steadyScale = flag('no-steady') || wholeOnly ? undefined : Number(option('steady', String(scale * 5)));
if (steadyScale !== undefined && !(Number.isInteger(steadyScale) && steadyScale > scale))
    throw new Error(`--steady takes a whole number of the data's scale larger than --scale (${scale})`);
const TIME = '/usr/bin/time'; // GNU time, for the CPU seconds of a child process (optional)

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { readInstanceData, indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { buildRedisViewModel } = await import(`${root}out/src/generation/redis/redis-view-model.js`);
const { bindRedisCommand } = await import(`${root}out/src/generation/redis/redis-commands.js`);
const { rowParameters, loadIntoRedis } = await import(`${root}out/src/runtime/redisearch/redis-loader.js`);
const { connectRedis, detectDialect, RedisErrorReply } = await import(
    `${root}out/src/runtime/redis-connection/redis-link.js`
);
const { engineOf } = await import(`${root}out/src/runtime/engine-registry.js`);
const { getGenerationTarget } = await import(`${root}out/src/generation/generation-targets.js`);
const { buildViewModel } = await import(`${root}out/src/generation/generation-engine.js`);
const core = await import(`${root}out/src/runtime/redis-core/core-engine.js`);

const dir = scratchDir(root, 'kvmod-bench-load');
const load = () =>
    loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
const servers = [];
try {
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
    const coreDesign = await core.buildCoreDesign(design.kvlm);

    /** Writes RESP files: `setup` commands first (a file of their own), then `commands` in files of `per` each. */
    const writeResp = (name, per, setup, commands) => {
        const files = [];
        let fd;
        let count = 0;
        const next = () => {
            if (fd !== undefined) closeSync(fd);
            files.push(join(dir, `${name}-${String(files.length).padStart(4, '0')}.resp`));
            fd = openSync(files.at(-1), 'w');
        };
        next();
        for (const argv of setup) writeSync(fd, respText(argv));
        next();
        for (const argv of commands) {
            if (count > 0 && count % per === 0) next();
            writeSync(fd, respText(argv));
            count++;
        }
        closeSync(fd);
        return files;
    };
    const indexCommands = (view) =>
        view.collections.flatMap((c) => [bindRedisCommand(c.create, {}), bindRedisCommand(c.point, {})]);
    function* rowCommands(view) {
        for (const collection of view.collections)
            for (const row of byName.get(collection.name).rows)
                yield bindRedisCommand(collection.insert, rowParameters(collection, row));
    }
    /** redis-cli --pipe of the files, one after the other, into a flushed server; the first (the setup) untimed. */
    const timeCli = (server, files, prepare = () => undefined) => {
        server.cli('FLUSHALL');
        prepare();
        server.pipe(files[0]);
        let seconds = 0;
        const before = server.scheduled();
        for (const file of files.slice(1)) seconds += server.pipe(file);
        return { seconds, server: serverTime(before, server.scheduled(), seconds) };
    };
    const timeKvmod = (server, target) => {
        server.cli('FLUSHALL');
        const argv = [join(root, 'bin/kvmod.js'), 'load', model, '--data', data, '--redis', server.url];
        argv.push(...target, '--batch', String(batch));
        const before = server.scheduled();
        const result = timeProcess('kvmod load', argv, true);
        return { ...result, server: serverTime(before, server.scheduled(), result.seconds) };
    };
    /**
     * What the server's main thread did while a process ran: seconds on a CPU, waiting for one (runnable, the cores
     * taken), and neither (idle: nothing to read yet, or the connection's set-up and the last reply's way back).
     */
    const serverTime = (before, after, seconds) =>
        before && after
            ? {
                  cpu: after.cpu - before.cpu,
                  waiting: after.waiting - before.waiting,
                  idle: Math.max(0, seconds - (after.cpu - before.cpu) - (after.waiting - before.waiting)),
              }
            : undefined;
    // scripts/load-floor.mjs: Node started, the JSON data parsed, the prepared commands written (indexes untimed).
    const timeFloor = (server, files) => {
        server.cli('FLUSHALL');
        server.pipe(files[0]);
        return timeProcess('load-floor', [
            join(root, 'scripts/load-floor.mjs'),
            data,
            files[1],
            String(server.port),
            String(rows),
        ]);
    };
    /** Wall time of a Node child process, and its CPU time when GNU time is there. */
    // With `phases`, the process runs with KVMOD_TIMING=1 and its phase lines (src/pipeline/phase-timing.ts) are kept.
    const timeProcess = (name, argv, phases = false) => {
        const timed = existsSync(TIME);
        const options = { encoding: 'utf8', env: phases ? { ...process.env, KVMOD_TIMING: '1' } : process.env };
        const started = performance.now();
        const result = timed
            ? spawnSync(TIME, ['-f', 'kvmod-cpu %U %S', process.execPath, ...argv], options)
            : spawnSync(process.execPath, argv, options);
        const seconds = (performance.now() - started) / 1000;
        if (result.status !== 0) throw new Error(`${name}: ${result.stderr}`);
        const cpu = /kvmod-cpu ([\d.]+) ([\d.]+)/.exec(result.stderr);
        const timing = [...result.stderr.matchAll(/^kvmod: timing: (.+?) +([\d.]+) s cpu +([\d.]+) s wall/gm)];
        return {
            seconds,
            cpu: cpu ? Number(cpu[1]) + Number(cpu[2]) : undefined,
            phases: phases ? timing.map((m) => ({ phase: m[1], cpu: Number(m[2]), wall: Number(m[3]) })) : undefined,
        };
    };
    /** Times `write` (the write path), after `prepare` (untimed), with this process's CPU time. */
    const timed = async (prepare, write) => {
        await prepare();
        const cpu = process.cpuUsage();
        const started = performance.now();
        const written = await write();
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        if (written !== rows) throw new Error(`the write path wrote ${written} of ${rows} rows`);
        return { seconds, cpu: (used.user + used.system) / 1e6 };
    };
    // `loadIntoRedis` (what `kvmod load --target redis` calls, told what the engine detects: whether FT.ADD blocks);
    // the indexes are created untimed.
    const timeWritePath = async (server, view, withIndexes) => {
        server.cli('FLUSHALL');
        const link = await connectRedis(server.url);
        try {
            const { rowWritesBlock } = await detectDialect(link);
            return await timed(
                () =>
                    withIndexes &&
                    loadIntoRedis(
                        link,
                        view,
                        collections.map((c) => ({ ...c, rows: [] })),
                    ),
                async () =>
                    (
                        await loadIntoRedis(link, view, collections, {
                            skipIndexes: true,
                            batchSize: batch,
                            rowWritesBlock,
                        })
                    ).rows,
            );
        } finally {
            await link.close();
        }
    };
    // The same write path with every command sent through node-redis's own client (`sendCommand`, one per row, a
    // batch's commands in one tick: node-redis writes them together, corked, on its next turn of the event loop) —
    // the loader given a link without the hand-written bulk writer. What decides whether kvmod needs that writer.
    const timeNodeRedisWritePath = async (server, view, withIndexes) => {
        server.cli('FLUSHALL');
        const { createClient, ErrorReply } = (await import('redis')).default;
        const client = createClient({
            url: server.url,
            RESP: 2,
            disableOfflineQueue: true,
            socket: { reconnectStrategy: false },
        });
        await client.connect();
        // Error replies as the link's (the loader tells a refused row from a lost server by them).
        const refused = (error) => {
            throw error instanceof ErrorReply ? new RedisErrorReply(error.message) : error;
        };
        const link = {
            url: server.url,
            send: (argv) => client.sendCommand([...argv]).catch(refused),
            close: () => client.close(),
        };
        try {
            return await timed(
                () =>
                    withIndexes &&
                    loadIntoRedis(
                        link,
                        view,
                        collections.map((c) => ({ ...c, rows: [] })),
                    ),
                async () =>
                    (await loadIntoRedis(link, view, collections, { skipIndexes: true, batchSize: batch })).rows,
            );
        } finally {
            await link.close();
        }
    };
    // The redis-core engine's writeRows (what `kvmod load --target redis-core` calls); the library is loaded untimed.
    const coreEngine = await engineOf(getGenerationTarget('redis-core'));
    const timeCoreWritePath = (server) =>
        coreEngine.use(async (engine) => {
            const session = await engine.connect({ urls: [server.url] });
            try {
                const view = await buildViewModel(engine.target, design, { ...session.probe.options });
                return await timed(
                    () => session.prepareSchema(view, 'fresh'),
                    async () => (await session.writeRows(view, collections, { batchSize: batch })).rows,
                );
            } finally {
                await session.close();
            }
        });
    const fastest = async (run) => {
        let best;
        for (let r = 0; r < repeat; r++) {
            const result = await run();
            if (!best || result.seconds < best.seconds) best = result;
        }
        return best;
    };
    const figure = (name, result, baseline) => ({
        name,
        seconds: Number(result.seconds.toFixed(2)),
        // Unrounded, for the steady state's differences (bench-load-steady.mjs).
        exactSeconds: result.seconds,
        cpuSeconds: result.cpu === undefined ? undefined : Number(result.cpu.toFixed(2)),
        rowsPerSecond: Math.round(rows / result.seconds),
        share: baseline ? Number((baseline.seconds / result.seconds).toFixed(2)) : undefined,
        phases: result.phases,
        server:
            result.server &&
            Object.fromEntries(Object.entries(result.server).map(([k, v]) => [k, Number(v.toFixed(2))])),
    });

    const results = [];
    const server = await startBenchServer(dir);
    servers.push(server);
    {
        const deep = writeResp('ftadd', Infinity, indexCommands(views.redisearch1), rowCommands(views.redisearch1));
        const baseline = await fastest(() => timeCli(server, deep));
        const lines = [figure('redis-cli --pipe, one pipe', baseline)];
        lines.push(
            figure(
                'kvmod load (whole process)',
                await fastest(() => timeKvmod(server, ['--dialect', 'redisearch1'])),
                baseline,
            ),
        );
        if (!wholeOnly) {
            lines.push(
                figure(
                    'write path only',
                    await fastest(() => timeWritePath(server, views.redisearch1, true)),
                    baseline,
                ),
            );
            lines.push(
                figure(
                    'write path, node-redis pipelining',
                    await fastest(() => timeNodeRedisWritePath(server, views.redisearch1, true)),
                    baseline,
                ),
            );
            lines.push(
                figure('floor: node, JSON.parse, replay', await fastest(() => timeFloor(server, deep)), baseline),
            );
        }
        results.push({ comparison: 'FT.ADD (redisearch1 design, indexed by the server; SAFEMODE)', lines });
    }
    if (!wholeOnly) {
        const deep = writeResp('hset', Infinity, [], rowCommands(views.redisearch2));
        const baseline = await fastest(() => timeCli(server, deep));
        const lines = [figure('redis-cli --pipe, one pipe', baseline)];
        lines.push(
            figure('write path only', await fastest(() => timeWritePath(server, views.redisearch2, false)), baseline),
        );
        lines.push(
            figure(
                'write path, node-redis pipelining',
                await fastest(() => timeNodeRedisWritePath(server, views.redisearch2, false)),
                baseline,
            ),
        );
        results.push({ comparison: 'HSET (redisearch2 rows, not indexed by 1.2: client and protocol alone)', lines });
    }
    {
        const deep = writeResp('fcall', Infinity, [], coreWriteCommands(coreDesign, collections, core));
        const library = () => server.cli('FUNCTION', 'LOAD', 'REPLACE', coreDesign.library);
        const baseline = await fastest(() => timeCli(server, deep, library));
        const lines = [figure('redis-cli --pipe, one pipe', baseline)];
        lines.push(
            figure(
                'kvmod load (whole process)',
                await fastest(() => timeKvmod(server, ['--target', 'redis-core'])),
                baseline,
            ),
        );
        if (!wholeOnly) lines.push(figure('write path only', await fastest(() => timeCoreWritePath(server)), baseline));
        results.push({ comparison: 'FCALL (redis-core design: plain Redis, its function library)', lines });
    }
    if (blocking && !wholeOnly) {
        const slow = await startBenchServer(dir, { safemode: false });
        servers.push(slow);
        const chunked = writeResp(
            'ftadd-pipes',
            batch,
            indexCommands(views.redisearch1),
            rowCommands(views.redisearch1),
        );
        const baseline = await fastest(() => timeCli(slow, chunked));
        const lines = [figure(`redis-cli --pipe, ${chunked.length - 1} pipes of ${batch}`, baseline)];
        if (deepPipe) {
            const deep = writeResp('ftadd', Infinity, indexCommands(views.redisearch1), rowCommands(views.redisearch1));
            lines.push(figure('redis-cli --pipe, one pipe', await fastest(() => timeCli(slow, deep)), baseline));
        }
        lines.push(
            figure(
                'kvmod load (whole process)',
                await fastest(() => timeKvmod(slow, ['--dialect', 'redisearch1'])),
                baseline,
            ),
        );
        lines.push(
            figure('write path only', await fastest(() => timeWritePath(slow, views.redisearch1, true)), baseline),
        );
        results.push({ comparison: 'FT.ADD on a server without SAFEMODE (each FT.ADD blocks its connection)', lines });
    }
    let profile;
    if (profileDir) {
        rmSync(profileDir, { recursive: true, force: true });
        server.cli('FLUSHALL');
        const argv = ['--cpu-prof', '--cpu-prof-dir', profileDir, join(root, 'bin/kvmod.js'), 'load', model];
        argv.push('--data', data, '--redis', server.url, '--dialect', 'redisearch1', '--batch', String(batch));
        const run = spawnSync(process.execPath, argv, { encoding: 'utf8' });
        if (run.status !== 0) throw new Error(`kvmod load --cpu-prof: ${run.stderr}`);
        const file = join(
            profileDir,
            readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile')),
        );
        const summary = [join(root, 'scripts/cpu-profile-summary.mjs'), file, '--top', '25'];
        profile = spawnSync(process.execPath, summary, { encoding: 'utf8' }).stdout;
    }
    const header = `Node ${process.versions.node}; ${model.slice(root.length)} --scale ${scale}: ${rows.toLocaleString('en-US')} rows, batches of ${batch}, fastest of ${repeat}; load average ${load()}`;
    const measured = { model: model.slice(root.length), scale, rows, batch, results };
    for (const server of servers.splice(0)) server.stop();
    // The steady state: this script again at the larger scale, whole processes and pipes only.
    let steady;
    if (steadyScale !== undefined) {
        const argv = [fileURLToPath(import.meta.url), '--whole-only', '--json', '--no-blocking'];
        argv.push(
            '--scale',
            String(steadyScale),
            '--repeat',
            String(repeat),
            '--batch',
            String(batch),
            '--model',
            model,
        );
        const run = spawnSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
        if (run.status !== 0) throw new Error(`bench-load --scale ${steadyScale}: ${run.stderr}`);
        steady = steadyState(measured, JSON.parse(run.stdout));
    }
    if (json) console.log(JSON.stringify({ ...measured, steady: steady?.figures }, null, 2));
    else {
        console.log(header);
        for (const { comparison, lines } of results) {
            console.log(comparison);
            for (const line of lines) {
                const cpu = line.cpuSeconds === undefined ? '' : `${line.cpuSeconds.toFixed(2)} s CPU`;
                const share = line.share === undefined ? '' : `${Math.round(line.share * 100)}% of redis-cli --pipe`;
                console.log(
                    `  ${line.name.padEnd(34)} ${line.seconds.toFixed(2).padStart(6)} s  ${line.rowsPerSecond.toLocaleString('en-US').padStart(9)} rows/s  ${cpu.padEnd(11)}  ${share}`,
                );
                // Where that run's wall time went (KVMOD_TIMING's phases; those under 5 ms left out).
                const phases = (line.phases ?? []).filter((p) => p.wall >= 0.005);
                if (phases.length > 0)
                    console.log(
                        `    phases, s wall: ${phases.map((p) => `${p.phase} ${p.wall.toFixed(2)}`).join(' · ')}`,
                    );
                // The server's main thread meanwhile (Linux): what the process's wall time holds beside its work.
                if (line.server)
                    console.log(
                        `    server, s: ${line.server.cpu.toFixed(2)} on a CPU · ${line.server.waiting.toFixed(2)} waiting for one · ${line.server.idle.toFixed(2)} idle`,
                    );
            }
        }
        if (steady) console.log(steady.lines.join('\n'));
        if (profile) console.log(`\nkvmod load under --cpu-prof (${profileDir}):\n${profile}`);
    }
} finally {
    for (const server of servers) server.stop();
    removeDir(dir);
}
