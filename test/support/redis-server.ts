/**
 * A private redis-server with the RediSearch module for tests: started on a free loopback port in its own
 * temporary directory, stopped by pid, directory removed. Shared by the generation and runtime tests.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { createClient } from 'redis';

/** Where Debian's redis-redisearch package puts the module (RediSearch 1.2). */
export const REDISEARCH_MODULE = '/usr/lib/redis/modules/redisearch.so';

/** A running private server. */
export interface RedisTestServer {
    /** The loopback port it listens on. */
    port: number;
    /** `redis://127.0.0.1:<port>` for clients (`rediss://` with `tls`, `:password@` with `requirepass`). */
    url: string;
    /** The server's process id (read from its pidfile). */
    pid: number;
    /** The temporary directory holding its pidfile and log; deleted by `stop()`. */
    dir: string;
    /** Stops the server by pid, waits for it to exit, deletes the directory. Safe to call twice. */
    stop(): Promise<void>;
}

/** Options for `startRedis`. */
export interface StartRedisOptions {
    /** Load the RediSearch module (default true) with `SAFEMODE TIMEOUT 0` (see docs REDIS.md). */
    search?: boolean;
    /** With `search`: pass `SAFEMODE` (default true); false starts 1.2 with its default indexing threads. */
    safeMode?: boolean;
    /** With `search`: the module's query TIMEOUT in ms (default 0, none); null leaves the stock 500 ms. */
    queryTimeout?: number | null;
    /** The redis-server binary (default `redis-server` on the PATH). */
    binary?: string;
    /** Require this password (`--requirepass`); `url` then carries it (`redis://:password@…`). */
    requirepass?: string;
    /** Serve TLS only, with this certificate and key (PEM files); `url` is then `rediss://…`. */
    tls?: { certFile: string; keyFile: string };
}

/**
 * Starts a private redis-server. Fails (never skips) when the binary or the module is missing: a test that
 * needs the real engine must not pass without it.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisTestServer> {
    const binary = options.binary ?? 'redis-server';
    const search = options.search ?? true;
    const which = spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' });
    if (which.status !== 0) {
        throw new Error(`${binary} is not installed: apt-get install -y redis-server redis-tools redis-redisearch`);
    }
    if (search && !existsSync(REDISEARCH_MODULE)) {
        throw new Error(`the RediSearch module is missing (${REDISEARCH_MODULE}): apt-get install -y redis-redisearch`);
    }
    const dir = await mkdtemp(join(tmpdir(), 'kvmod-redis-'));
    const pidfile = join(dir, 'redis.pid');
    const logfile = join(dir, 'redis.log');
    let lastError: unknown;
    // A free port can be taken between probing and binding; retry a few times with a new one.
    for (let attempt = 0; attempt < 5; attempt++) {
        const port = await freePort();
        const args = [
            ...(options.tls
                ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', options.tls.certFile]
                : ['--port', String(port)]),
            ...(options.tls ? ['--tls-key-file', options.tls.keyFile, '--tls-auth-clients', 'no'] : []),
            ...(options.requirepass !== undefined ? ['--requirepass', options.requirepass] : []),
            '--bind',
            '127.0.0.1',
            '--save',
            '',
            '--appendonly',
            'no',
            '--daemonize',
            'yes',
            '--dir',
            dir,
            '--pidfile',
            pidfile,
            '--logfile',
            logfile,
        ];
        if (search)
            args.push(
                '--loadmodule',
                REDISEARCH_MODULE,
                ...(options.safeMode === false ? [] : ['SAFEMODE']),
                ...(options.queryTimeout === null ? [] : ['TIMEOUT', String(options.queryTimeout ?? 0)]),
            );
        const started = await run(binary, args);
        if (started.code !== 0) {
            lastError = new Error(`${binary} exited with ${started.code}: ${started.stderr}`);
            continue;
        }
        try {
            const pid = await waitForPidfile(pidfile);
            await waitForPort(port);
            let stopped = false;
            return {
                port,
                url: `${options.tls ? 'rediss' : 'redis'}://${options.requirepass !== undefined ? `:${options.requirepass}@` : ''}127.0.0.1:${port}`,
                pid,
                dir,
                async stop() {
                    if (stopped) return;
                    stopped = true;
                    await killAndWait(pid);
                    await rm(dir, { recursive: true, force: true });
                },
            };
        } catch (error) {
            lastError = new Error(`${String(error)}\n${await readFile(logfile, 'utf8').catch(() => '')}`);
        }
    }
    await rm(dir, { recursive: true, force: true });
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

/** Runs `redis-cli -p <port> [args…]`, feeding `input` on stdin; resolves with its output. */
export async function redisCli(
    port: number,
    args: string[] = [],
    input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
    return run('redis-cli', ['-p', String(port), ...args], input);
}

/** Adds an ACL user with every permission (`ACL SETUSER name on >password +@all ~*`) on a requirepass server. */
export async function addAclUser(port: number, adminPassword: string, user: string, password: string): Promise<void> {
    const reply = await redisCli(port, [
        '-a',
        adminPassword,
        '--no-auth-warning',
        'ACL',
        'SETUSER',
        user,
        'on',
        `>${password}`,
        '+@all',
        '~*',
    ]);
    if (reply.stdout.trim() !== 'OK') throw new Error(`ACL SETUSER ${user} answered: ${reply.stdout}${reply.stderr}`);
}

/** Runs a command, feeding `input` on stdin; resolves with its exit code and output. */
export function run(
    command: string,
    args: string[],
    input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
        const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
        // A command that exits before reading its input (redis-cli refused a connection) closes the pipe: not an error.
        child.stdin.on('error', () => undefined);
        child.stdin.end(input ?? '');
    });
}

/** A loopback port nothing listens on (at the time of asking). */
export function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.unref();
        server.on('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            const port = typeof address === 'object' && address ? address.port : 0;
            server.close(() => resolve(port));
        });
    });
}

/** The pid a starting redis-server writes to its pidfile. */
export async function waitForPidfile(pidfile: string): Promise<number> {
    for (let i = 0; i < 200; i++) {
        const text = await readFile(pidfile, 'utf8').catch(() => '');
        const pid = Number.parseInt(text.trim(), 10);
        if (Number.isInteger(pid) && pid > 0) return pid;
        await sleep(25);
    }
    throw new Error(`redis-server wrote no pidfile at ${pidfile}`);
}

/** Resolves once something accepts connections on the loopback port. */
export async function waitForPort(port: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
        const ok = await new Promise<boolean>((resolve) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => {
                socket.destroy();
                resolve(true);
            });
            socket.once('error', () => resolve(false));
        });
        if (ok) return;
        await sleep(25);
    }
    throw new Error(`redis-server did not listen on port ${port}`);
}

/** Stops a process by pid (SIGTERM, SIGKILL after 10 s, or at once with `signal`) and waits until it is gone. */
export async function killAndWait(pid: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    try {
        process.kill(pid, signal);
    } catch {
        return; // already gone
    }
    for (let i = 0; i < 400; i++) {
        try {
            process.kill(pid, 0);
        } catch {
            return;
        }
        await sleep(25);
    }
    try {
        process.kill(pid, 'SIGKILL');
    } catch {
        // gone meanwhile
    }
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A test file's RediSearch server and a node-redis client on it, read once its `beforeAll` has run. */
export interface RedisForFile {
    server: RedisTestServer;
    client: ReturnType<typeof createClient>;
}

/** Starts a RediSearch server and connects a client before the file's tests; quits and stops both after them. */
export function redisForFile(): RedisForFile {
    const redis = {} as RedisForFile;
    beforeAll(async () => {
        redis.server = await startRedis();
        redis.client = createClient({ url: redis.server.url });
        await redis.client.connect();
    });
    afterAll(async () => {
        await redis.client?.quit();
        await redis.server?.stop();
    });
    return redis;
}
