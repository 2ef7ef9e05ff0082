/**
 * A private Redis Cluster for tests: three masters (`redis-server --cluster-enabled yes` on free loopback ports, each
 * in its own temporary directory), joined by `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`, ready
 * once every node reports `cluster_state:ok`. Nodes are stopped by pid and their directories removed; a test can
 * kill one node and start it again on its port (it rejoins from its nodes.conf). Nothing is persisted unless the
 * cluster is started with `appendfsync`: then every node keeps an append-only file with that fsync policy, and a
 * node killed and restarted loads it back.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, killAndWait, redisCli, run, sleep, waitForPidfile, waitForPort } from './redis-server.js';

/** One node of the cluster. */
export interface ClusterNode {
    port: number;
    url: string;
    /** Its current process id (a restarted node has a new one). */
    pid: number;
    dir: string;
}

/** A running private cluster. */
export interface RedisTestCluster {
    nodes: ClusterNode[];
    /** Every node's URL: seed URLs for a cluster client. */
    urls: string[];
    /** Kills a node at once (SIGKILL), as a crash would. */
    kill(index: number): Promise<void>;
    /** Starts a killed node again on its port and waits until the cluster is ok. */
    restart(index: number): Promise<void>;
    /** Stops every node by pid and deletes their directories. Safe to call twice. */
    stop(): Promise<void>;
}

/** Options of `startRedisCluster`. */
export interface ClusterOptions {
    /** Persist every write in an append-only file with this fsync policy (none when absent). */
    appendfsync?: 'always' | 'everysec' | 'no';
}

async function startNode(port: number, dir: string, options: ClusterOptions): Promise<number> {
    const pidfile = join(dir, 'redis.pid');
    await rm(pidfile, { force: true });
    const started = await run('redis-server', [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(dir, 'nodes.conf'),
        '--cluster-node-timeout',
        '1000',
        '--save',
        '',
        '--appendonly',
        options.appendfsync === undefined ? 'no' : 'yes',
        ...(options.appendfsync === undefined ? [] : ['--appendfsync', options.appendfsync]),
        '--daemonize',
        'yes',
        '--dir',
        dir,
        '--pidfile',
        pidfile,
        '--logfile',
        join(dir, 'redis.log'),
    ]);
    if (started.code !== 0) throw new Error(`redis-server exited with ${started.code}: ${started.stderr}`);
    const pid = await waitForPidfile(pidfile);
    await waitForPort(port);
    return pid;
}

async function waitForClusterOk(ports: readonly number[]): Promise<void> {
    for (let attempt = 0; attempt < 400; attempt++) {
        let ok = true;
        for (const port of ports) {
            const reply = await redisCli(port, ['CLUSTER', 'INFO']);
            if (!/cluster_state:ok/.test(reply.stdout)) ok = false;
        }
        if (ok) return;
        await sleep(50);
    }
    throw new Error(`the cluster on ports ${ports.join(', ')} did not reach cluster_state:ok`);
}

/**
 * Starts a cluster of `masters` nodes (default 3). Fails (never skips) when redis-server or redis-cli is missing.
 */
export async function startRedisCluster(masters = 3, options: ClusterOptions = {}): Promise<RedisTestCluster> {
    for (const binary of ['redis-server', 'redis-cli']) {
        if (spawnSync('sh', ['-c', `command -v ${binary}`]).status !== 0)
            throw new Error(`${binary} is not installed: apt-get install -y redis-server redis-tools`);
    }
    const nodes: ClusterNode[] = [];
    let stopped = false;
    const stop = async () => {
        if (stopped) return;
        stopped = true;
        for (const node of nodes) {
            await killAndWait(node.pid);
            await rm(node.dir, { recursive: true, force: true });
        }
    };
    try {
        for (let i = 0; i < masters; i++) {
            const dir = await mkdtemp(join(tmpdir(), 'kvmod-cluster-'));
            const port = await freePort();
            nodes.push({ port, url: `redis://127.0.0.1:${port}`, pid: 0, dir });
            nodes[i].pid = await startNode(port, dir, options);
        }
        const created = await run('redis-cli', [
            '--cluster',
            'create',
            ...nodes.map((node) => `127.0.0.1:${node.port}`),
            '--cluster-replicas',
            '0',
            '--cluster-yes',
        ]);
        if (created.code !== 0)
            throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
        await waitForClusterOk(nodes.map((node) => node.port));
    } catch (error) {
        const logs = await Promise.all(
            nodes.map((node) => readFile(join(node.dir, 'redis.log'), 'utf8').catch(() => '')),
        );
        await stop();
        throw new Error(`${String(error)}\n${logs.join('\n')}`);
    }
    return {
        nodes,
        urls: nodes.map((node) => node.url),
        async kill(index) {
            await killAndWait(nodes[index].pid, 'SIGKILL');
        },
        async restart(index) {
            nodes[index].pid = await startNode(nodes[index].port, nodes[index].dir, options);
            await waitForClusterOk(nodes.map((node) => node.port));
        },
        stop,
    };
}
