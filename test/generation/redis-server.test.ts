import { expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createClient } from 'redis';
import { redisCli, startRedis } from '../support/redis-server.js';

function alive(pid: number): boolean {
    try {
        process.kill(pid, 0);
        return true;
    } catch {
        return false;
    }
}

test('the test harness starts a private server with RediSearch on a free port, and stop() ends it by pid and removes its folder', async () => {
    const server = await startRedis();
    try {
        expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
        expect(alive(server.pid)).toBe(true);
        const client = createClient({ url: server.url });
        await client.connect();
        const modules = await client.sendCommand(['MODULE', 'LIST']);
        await client.quit();
        expect(JSON.stringify(modules)).toMatch(/"name"[,:]"ft"/);
        expect((await redisCli(server.port, [], 'PING\n')).stdout).toBe('PONG\n');
    } finally {
        await server.stop();
    }
    expect(alive(server.pid)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
    await server.stop(); // twice is harmless
});
