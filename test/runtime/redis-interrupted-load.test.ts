/**
 * A load that loses its server half-way stops with how far it got, and the same command run again finishes
 * the job: natural keys + REPLACE make the rerun leave exactly the data of an uninterrupted load.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { isKvmodError } from '../../src/pipeline/errors.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { loadIntoEngine } from '../../src/runtime/runtime-actions.js';
import { startRedis } from '../support/redis-server.js';

const MODEL = 'examples/airflights/airflights.pidm';
let dir: string;
let data: string;

async function waitUntilGone(pid: number): Promise<void> {
    for (;;) {
        try {
            process.kill(pid, 0);
        } catch {
            return;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
    }
}

async function hashes(url: string): Promise<string[]> {
    const link = await connectRedis(url);
    try {
        const keys = ((await link.send(['KEYS', '*'])) as string[]).sort();
        const lines: string[] = [];
        for (const key of keys) {
            if ((await link.send(['TYPE', key])) !== 'hash') continue;
            const fields = (await link.send(['HGETALL', key])) as string[];
            const pairs: string[] = [];
            for (let i = 0; i < fields.length; i += 2) pairs.push(`${fields[i]}=${fields[i + 1]}`);
            // A replaced hash may list its fields in another order: compare the field set.
            lines.push(`${key} ${JSON.stringify(pairs.sort())}`);
        }
        return lines;
    } finally {
        await link.close();
    }
}

async function loadError(promise: Promise<unknown>): Promise<Error> {
    try {
        await promise;
    } catch (error) {
        return error as Error;
    }
    throw new Error('the load did not fail');
}

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-interrupted-'));
    data = join(dir, 'data.json');
    await runDataGenerate({ model: MODEL, scale: 400, seed: 5, output: data }, memoryIo());
});

afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('an interrupted load', () => {
    test('a server killed after the first batch stops the load with the rows written so far and a non-zero exit', async () => {
        const server = await startRedis();
        try {
            const error = await loadError(
                loadIntoEngine({
                    modelPath: MODEL,
                    dataPath: data,
                    server: server.url,
                    batchSize: 100,
                    onProgress: async (done) => {
                        if (done === 100) {
                            process.kill(server.pid, 'SIGKILL');
                            await waitUntilGone(server.pid);
                        }
                    },
                }),
            );
            expect(isKvmodError(error)).toBe(true);
            expect(error.message).toMatch(
                new RegExp(
                    `^lost the connection to ${server.url} after ([\\d,]+) of ([\\d,]+) rows; run the same command again to finish$`,
                ),
            );
            // Four batches are in flight (write-batches.ts BATCHES_IN_FLIGHT): the rows acknowledged before the kill,
            // plus any of the next three batches whose replies arrived first.
            const acknowledged = Number(/after ([\d,]+) of/.exec(error.message)![1].replace(/,/g, ''));
            expect(acknowledged).toBeGreaterThanOrEqual(100);
            expect(acknowledged).toBeLessThanOrEqual(400);
            const total = Number(/of ([\d,]+) rows/.exec(error.message)![1].replace(/,/g, ''));
            expect(total).toBeGreaterThan(1000);
            const io = memoryIo();
            expect(await main(['load', MODEL, '--data', data, '--redis', server.url], io)).toBe(1);
            expect(io.stderr).toBe(`kvmod: cannot connect to ${server.url}: connection refused\n`);
        } finally {
            await server.stop();
        }
    });

    test('a connection dropped mid-load: the same command run again completes, with exactly the data of a clean load', async () => {
        const server = await startRedis();
        try {
            const killer = await connectRedis(server.url);
            const error = await loadError(
                loadIntoEngine({
                    modelPath: MODEL,
                    dataPath: data,
                    server: server.url,
                    batchSize: 200,
                    onProgress: async (done) => {
                        if (done === 400) await killer.send(['CLIENT', 'KILL', 'TYPE', 'normal']);
                    },
                }),
            );
            await killer.close();
            expect(error.message).toMatch(
                new RegExp(
                    `^lost the connection to ${server.url} after [\\d,]+ of [\\d,]+ rows; run the same command again to finish$`,
                ),
            );
            const acknowledged = Number(/after ([\d,]+) of/.exec(error.message)![1].replace(/,/g, ''));
            // The three batches of 200 rows in flight after the 400th row may be acknowledged before the kill.
            expect(acknowledged).toBeGreaterThanOrEqual(400);
            expect(acknowledged).toBeLessThanOrEqual(1000);
            const partial = await hashes(server.url);
            const io = memoryIo();
            expect(await main(['load', MODEL, '--data', data, '--redis', server.url], io)).toBe(0);
            const completed = await hashes(server.url);
            expect(completed.length).toBeGreaterThan(partial.length);

            const clean = await startRedis();
            try {
                expect(await main(['load', MODEL, '--data', data, '--redis', clean.url], memoryIo())).toBe(0);
                expect(completed).toEqual(await hashes(clean.url));
            } finally {
                await clean.stop();
            }
        } finally {
            await server.stop();
        }
    });
});
