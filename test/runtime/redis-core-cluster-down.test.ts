/**
 * A Redis Cluster with a master down (killed, and marked failed by the others): every redis-core command that
 * connects to it exits 1 at once, naming the master that is down, its slots and the cluster's state — never hangs on
 * the connections node-redis was still opening to the live masters when the dead one refused.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { runKvmodAsync, STACK_TRACE } from '../cli/run-kvmod.js';
import { startRedisCluster, type RedisTestCluster } from '../support/redis-cluster.js';
import { redisCli, sleep } from '../support/redis-server.js';

let cluster: RedisTestCluster;
let dir: string;

beforeAll(async () => {
    cluster = await startRedisCluster(3);
    dir = await mkdtemp(join(tmpdir(), 'kvmod-cluster-down-'));
});

afterAll(async () => {
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

test('doctor, load and verify on a cluster whose first master is down: exit 1 within --timeout, naming the master', async () => {
    const model = 'examples/tournament/tournament.pidm';
    const data = join(dir, 'data.json');
    await runDataGenerate({ model, scale: 5, seed: 1, output: data }, memoryIo());
    // `redis-cli --cluster create` gives the first node the first slots: the node-redis client connects to that master
    // first, so its refusal comes while the connections to the two live masters are still being opened.
    const down = cluster.nodes[0];
    await cluster.kill(0);
    for (let i = 0; i < 200; i++) {
        if ((await redisCli(cluster.nodes[1].port, ['CLUSTER', 'INFO'])).stdout.includes('cluster_state:fail')) break;
        await sleep(50);
    }
    const seed = cluster.urls[1];
    const common = ['--redis', seed, '--target', 'redis-core', '--timeout', '5'];
    const runs = [
        ['doctor', ...common],
        ...['load', 'verify'].map((command) => [command, model, '--data', data, ...common]),
    ];
    const started = Date.now();
    // Together: a command that hangs is killed after 50 s (status null), all three within the test's time.
    const results = await Promise.all(runs.map((args) => runKvmodAsync(args)));
    const elapsed = (Date.now() - started) / 1000;
    for (const [i, result] of results.entries()) {
        expect([runs[i][0], result.status, result.stderr]).toEqual([
            runs[i][0],
            1,
            `kvmod: cannot connect to the Redis Cluster at ${seed}: master 127.0.0.1:${down.port} (slots 0-5460) does not answer (connect ECONNREFUSED 127.0.0.1:${down.port}) and the cluster marks it failed (cluster_state:fail); start it again or fail its slots over to a replica, then run again\n`,
        ]);
        expect(result.stderr).not.toMatch(STACK_TRACE);
    }
    // The three start Node at once on a shared machine: a bound well under the 50 s kill, above a slow start.
    expect(elapsed).toBeLessThan(30);
});
