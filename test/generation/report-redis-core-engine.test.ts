/**
 * The report of the redis-core design names the keys the redis-core target's loader writes: book-ratings loaded with
 * `kvmod load --target redis-core` on a plain redis-server (no module), every key on the server matched against the
 * key patterns the report shows, and each shown pattern found on the server. The parameterless queries' calls, as
 * the report writes them, run on that server.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { memoryIo, type CliIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { REPORT_DESIGNS } from '../../src/generation/report/report-designs.js';
import { splitCliLine } from '../../src/generation/shared/redis-escaping.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const MODEL = 'examples/book-ratings/book-ratings.pidm';

let server: RedisTestServer;
let client: ReturnType<typeof createClient>;
let dir: string;

beforeAll(async () => {
    server = await startRedis({ search: false });
    client = createClient({ url: server.url });
    await client.connect();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-report-core-'));
});

afterAll(async () => {
    await client?.quit();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** A key pattern of the report (`{C}:eq:author:<value>`, `C:<Book.isbn>:<T.name>`) as an anchored expression. */
function keyPattern(pattern: string): RegExp {
    const parts = pattern.split(/<[^>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`^${parts.join('.+')}$`, 's');
}

/** The inline code of a Markdown span (`` `x` ``). */
const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]);

describe('kvmod generate --target report --design redis-core on a real plain redis-server', () => {
    test('--redis asks the server through the described design: redis-core has no option a server decides', async () => {
        const io = memoryIo();
        const out = join(dir, 'probed');
        const [redisDesign, coreDesign] = REPORT_DESIGNS;
        const probed = (design: string, io: CliIo) =>
            main(['generate', MODEL, '--target', 'report', '--design', design, '--redis', server.url, '-o', out], io);
        expect(await probed(coreDesign, io)).toBe(2);
        expect(io.stderr).toBe(
            'kvmod: --redis asks a server which options the design needs there; the redis-core design has none that a server decides: drop --redis\n' +
                "usage: kvmod generate <inputs..>\nRun 'kvmod generate --help' for usage.\n",
        );
        // The redis design's report still asks the server for its dialect, and finds no search module here.
        const asked = memoryIo();
        expect(await probed(redisDesign, asked)).toBe(1);
        expect(asked.stderr).toMatch(/RediSearch/);
    });

    test('the keys the report names are the keys `kvmod load --target redis-core` writes', async () => {
        const data = join(dir, 'data.json');
        expect(await main(['data', 'generate', MODEL, '--scale', '20', '--seed', '4', '-o', data], memoryIo())).toBe(0);
        const load = memoryIo();
        expect(await main(['load', MODEL, '--data', data, '--redis', server.url, '--target', 'redis-core'], load)).toBe(
            0,
        );
        const out = join(dir, 'out');
        expect(
            await main(['generate', MODEL, '--target', 'report', '--design', 'redis-core', '-o', out], memoryIo()),
        ).toBe(0);
        const report = await readFile(join(out, 'book_ratings', 'report', 'redis-core', 'report.md'), 'utf8');

        // The collections' key tables: every key the design stores.
        const stored = [...report.matchAll(/^\| (`[^|]+`) \| (?:hash|set|sorted set|string) \|/gm)].map(
            (match) => codeSpans(match[1])[0],
        );
        // The access sections: the keys each query reads, then its rows.
        const read = [...report.matchAll(/^- Keys read: (.*)\.$/gm)].flatMap((match) => codeSpans(match[1]));
        expect(stored.length).toBeGreaterThan(10);
        expect(read.length).toBeGreaterThan(7);

        const keys = ((await client.sendCommand(['KEYS', '*'])) as string[]).sort();
        expect(keys.length).toBeGreaterThan(50);
        const storedPatterns = stored.map((pattern) => ({ pattern, regex: keyPattern(pattern) }));
        // Each key on the server is one the report names...
        const unnamed = keys.filter((key) => !storedPatterns.some(({ regex }) => regex.test(key)));
        expect(unnamed).toEqual([]);
        // ...and each key the report names (stored or read) is on the server.
        const absent = [...new Set([...stored, ...read])].filter(
            (pattern) => !keys.some((key) => keyPattern(pattern).test(key)),
        );
        expect(absent).toEqual([]);
        // Every read key is a stored one, spelled the same.
        expect(read.filter((pattern) => !stored.includes(pattern))).toEqual([]);

        // The calls as the report writes them run on the server (the parameterless ones as they are).
        const calls = [...report.matchAll(/^(FCALL_RO .*)$/gm)].map((match) => match[1]);
        expect(calls).toHaveLength(14);
        const runnable = calls.filter((line) => !line.includes('$'));
        expect(runnable).toHaveLength(2);
        for (const line of runnable) {
            const reply = (await client.sendCommand(splitCliLine(line))) as unknown[];
            expect(Array.isArray(reply)).toBe(true);
            expect(reply.length).toBeGreaterThan(0);
        }
    }, 120_000);
});
