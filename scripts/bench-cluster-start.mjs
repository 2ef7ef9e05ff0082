// A private Redis Cluster for the cluster benchmarks (bench-cluster.mjs, bench-cluster-lag.mjs): `count` nodes of
// `redis-server --cluster-enabled yes` on free loopback ports, joined by `redis-cli --cluster create` (as
// test/support/redis-cluster.ts does), stopped by pid.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './bench-redis.mjs';

export function cli(port, ...argv) {
    const result = spawnSync('redis-cli', ['-p', String(port), ...argv], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (result.status !== 0) throw new Error(`redis-cli -p ${port} ${argv.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
}

/** Starts `count` cluster-enabled nodes and joins them; resolves to their ports and pids. */
export async function startCluster(dir, count) {
    const nodes = [];
    // Stops every node by pid and waits until it is gone (its directory is removed next).
    const stop = async () => {
        for (const node of nodes) {
            try {
                process.kill(node.pid);
            } catch {
                continue; // already gone
            }
            for (let attempt = 0; attempt < 400; attempt++) {
                try {
                    process.kill(node.pid, 0);
                } catch {
                    break;
                }
                await new Promise((r) => setTimeout(r, 25));
            }
        }
    };
    try {
        for (let i = 0; i < count; i++) {
            const port = await freePort();
            const nodeDir = join(dir, `node-${i}`);
            mkdirSync(nodeDir);
            const pidfile = join(nodeDir, 'redis.pid');
            const started = spawnSync('redis-server', [
                ...['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes'],
                ...['--cluster-config-file', join(nodeDir, 'nodes.conf'), '--cluster-node-timeout', '5000'],
                ...['--save', '', '--appendonly', 'no', '--daemonize', 'yes', '--dir', nodeDir],
                ...['--pidfile', pidfile, '--logfile', join(nodeDir, 'redis.log')],
            ]);
            if (started.status !== 0) throw new Error(`redis-server exited with ${started.status}`);
            let pid;
            for (let attempt = 0; attempt < 400 && pid === undefined; attempt++) {
                try {
                    pid = Number(readFileSync(pidfile, 'utf8').trim());
                    cli(port, 'PING');
                } catch {
                    pid = undefined;
                    await new Promise((r) => setTimeout(r, 25));
                }
            }
            if (pid === undefined) throw new Error(`redis-server on port ${port} did not start`);
            nodes.push({ port, pid, url: `redis://127.0.0.1:${port}` });
        }
        const created = spawnSync(
            'redis-cli',
            [
                '--cluster',
                'create',
                ...nodes.map((n) => `127.0.0.1:${n.port}`),
                '--cluster-replicas',
                '0',
                '--cluster-yes',
            ],
            { encoding: 'utf8' },
        );
        if (created.status !== 0) throw new Error(`redis-cli --cluster create: ${created.stdout}${created.stderr}`);
        for (let attempt = 0; ; attempt++) {
            if (nodes.every((n) => /cluster_state:ok/.test(cli(n.port, 'CLUSTER', 'INFO')))) break;
            if (attempt > 400) throw new Error('the cluster did not reach cluster_state:ok');
            await new Promise((r) => setTimeout(r, 50));
        }
    } catch (error) {
        await stop();
        throw error;
    }
    return { nodes, stop };
}
