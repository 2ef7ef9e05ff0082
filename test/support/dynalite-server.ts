/**
 * A private dynalite (the DynamoDB API on LevelDB, in memory) for tests: started as its own process on a free
 * loopback port, tables created and deleted at once, stopped by pid. A missing dynalite fails the test, never skips it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { freePort, killAndWait, waitForPort } from './redis-server.js';

/** A running private dynalite. */
export interface DynaliteTestServer {
    port: number;
    /** `http://127.0.0.1:<port>`: the endpoint for `--endpoint`. */
    url: string;
    pid: number;
    /** Stops the server by pid and waits for it to exit. Safe to call twice. */
    stop(): Promise<void>;
}

/** Starts dynalite from the dev dependency (`node_modules/dynalite/cli.js`). */
export async function startDynalite(): Promise<DynaliteTestServer> {
    const cli = join(dirname(createRequire(import.meta.url).resolve('dynalite/package.json')), 'cli.js');
    if (!existsSync(cli)) throw new Error(`dynalite is not installed (${cli}): npm install`);
    const port = await freePort();
    const child = spawn(
        process.execPath,
        [
            cli,
            '--port',
            String(port),
            '--host',
            '127.0.0.1',
            '--createTableMs',
            '0',
            '--deleteTableMs',
            '0',
            '--updateTableMs',
            '0',
        ],
        { stdio: 'ignore', detached: false },
    );
    const pid = child.pid;
    if (pid === undefined) throw new Error('dynalite did not start');
    await waitForPort(port);
    let stopped = false;
    return {
        port,
        url: `http://127.0.0.1:${port}`,
        pid,
        async stop() {
            if (stopped) return;
            stopped = true;
            await killAndWait(pid);
        },
    };
}
