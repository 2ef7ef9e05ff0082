// What the Redis benches (bench-load.mjs, bench-core.mjs) share: their option parsing, a scratch redis-server started
// the way /work/shared/design/REDIS.md says (a free loopback port, its own directory, RediSearch 1.2 with
// `SAFEMODE TIMEOUT 0`; stopped by pid), `redis-cli` on it, and commands as the RESP text `redis-cli --pipe` replays.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Where Debian's redis-redisearch package puts the module (RediSearch 1.2). */
export const REDISEARCH_MODULE = '/usr/lib/redis/modules/redisearch.so';

/** `--name value` options and `--flag` flags of a bench's command line. */
export function benchOptions(args = process.argv.slice(2)) {
    return {
        option: (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback),
        flag: (name) => args.includes(`--${name}`),
    };
}

/** A scratch directory under node_modules/.cache (removed by the caller). */
export function scratchDir(root, name) {
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    return mkdtempSync(join(root, 'node_modules', '.cache', `${name}-`));
}

/**
 * Starts a scratch redis-server with the RediSearch module in `dir`: with `SAFEMODE TIMEOUT 0` (REDIS.md: module
 * threads off, no query timeout) unless `safemode` is false, when only `TIMEOUT 0` is given (the module's default
 * threading: 1.2's FT.ADD then blocks the connection for each document). With `module` false, a plain redis-server
 * (the redis-core design's engine). Resolves when it listens.
 */
export async function startBenchServer(dir, { safemode = true, module = true } = {}) {
    const port = await freePort();
    const server = spawn(
        'redis-server',
        [
            ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
            ...(module ? ['--loadmodule', REDISEARCH_MODULE, ...(safemode ? ['SAFEMODE'] : []), 'TIMEOUT', '0'] : []),
        ],
        { stdio: 'ignore' },
    );
    const stop = () => {
        if (server.pid && server.exitCode === null) process.kill(server.pid);
    };
    try {
        await waitForPort(port);
    } catch (error) {
        stop();
        throw error;
    }
    const cli = (...argv) => {
        const result = spawnSync('redis-cli', ['-p', String(port), ...argv], { encoding: 'utf8' });
        if (result.status !== 0) throw new Error(`redis-cli ${argv.join(' ')}: ${result.stderr}`);
        return result.stdout.trim();
    };
    /** `redis-cli --pipe` of a RESP file; throws unless every reply was checked and none was an error. */
    const pipe = (file) => {
        const input = openSync(file, 'r');
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
    /**
     * The server's main thread (where Redis runs commands) so far, from Linux's schedstat: seconds on a CPU, and
     * seconds runnable but waiting for one (the machine's cores taken by other threads); undefined elsewhere.
     */
    const scheduled = () => {
        try {
            const [cpu, waiting] = readFileSync(`/proc/${server.pid}/task/${server.pid}/schedstat`, 'utf8')
                .split(' ')
                .map(Number);
            return { cpu: cpu / 1e9, waiting: waiting / 1e9 };
        } catch {
            return undefined;
        }
    };
    return { port, url: `redis://127.0.0.1:${port}`, cli, pipe, stop, scheduled };
}

/** The RESP text of argv (what `redis-cli --pipe` reads). */
export function respText(argv) {
    let text = `*${argv.length}\r\n`;
    for (const arg of argv) text += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
    return text;
}

/**
 * The redis-core design's row writes on one server, exactly as its engine sends them: one FCALL per row (`add` with
 * a counter key: the library INCRs it; `put` with a natural key), for `rows` (materialized collections).
 */
export function* coreWriteCommands(core, rows, { coreRowKey, coreRowValues }) {
    const byName = new Map(rows.map((c) => [c.name, c]));
    for (const collection of core.design.collections) {
        for (const row of byName.get(collection.name).rows) {
            const argv =
                collection.key.kind === 'counter'
                    ? ['FCALL', core.design.functions.add, '2', collection.key.counterKey, collection.recordKey]
                    : ['FCALL', core.design.functions.put, '2', coreRowKey(collection, row), collection.recordKey];
            argv.push(collection.name, ...coreRowValues(collection, row));
            yield argv;
        }
    }
}

/** A free loopback port. */
export function freePort() {
    return new Promise((resolvePort, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const { port } = probe.address();
            probe.close(() => resolvePort(port));
        });
    });
}

async function waitForPort(port) {
    for (let i = 0; i < 200; i++) {
        const ok = await new Promise((done) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => {
                socket.destroy();
                done(true);
            });
            socket.once('error', () => done(false));
        });
        if (ok) return;
        await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server did not listen on port ${port}`);
}

/** Removes a scratch directory. */
export function removeDir(dir) {
    rmSync(dir, { recursive: true, force: true });
}
