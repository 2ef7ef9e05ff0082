/**
 * The transformation options (`--threshold`, `--merge`, `--key`) are one set, described once and accepted
 * by every command that transforms a `.pidm`: transform, generate, load and verify. They reach the
 * transformation wherever a `.pidm` is transformed, and a `.kvlm` input (already transformed) gets a warning.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const PIDM = 'examples/airflights/airflights.pidm';
const KVLM = 'examples/airflights/airflights.kvlm';

let dir: string;

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-transform-options-'));
});

afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The help of --threshold, --merge and --key (up to the next option), spaces collapsed: the column widths
 * depend on the command's longest option name.
 */
async function transformOptionHelp(command: string): Promise<string> {
    const io = memoryIo();
    expect(await main([command, '--help'], io)).toBe(0);
    const lines = io.stdout.split('\n');
    const start = lines.findIndex((line) => /^\s+--threshold\b/.test(line));
    const end = lines.findIndex((line, i) => i > start && /^\s+(-\w, )?--(?!merge|key)\w/.test(line));
    expect(start).toBeGreaterThan(0);
    return lines.slice(start, end).join('\n').replace(/\s+/g, ' ');
}

/** The view model `kvmod generate --dump-view-model` prints for the airflights model with these options. */
async function viewModelWith(options: string[]): Promise<{ collections: { name: string; key: { kind: string } }[] }> {
    const io = memoryIo();
    expect(await main(['generate', PIDM, '--dump-view-model', ...options], io)).toBe(0);
    return JSON.parse(io.stdout);
}

describe('one set of transformation options', () => {
    it('transform, generate, load and verify describe them in the same words, with their defaults', async () => {
        const transform = await transformOptionHelp('transform');
        expect(transform).toMatch(/--threshold +Merge two collections when common\/n1 >= t and common\/n2 >= t/);
        expect(transform).toMatch(/\[number\] \[default: 0\.8\]/);
        expect(transform).toMatch(/\[choices: "safe", "paper", "none", "cost"\] \[default: safe\]/);
        expect(transform).toMatch(/\[choices: "natural", "counter"\] \[default: natural\]/);
        expect(transform).toContain('ignored for a');
        for (const command of ['generate', 'load', 'verify'])
            expect(await transformOptionHelp(command)).toBe(transform);
    });

    it('generate passes --threshold, --merge and --key to the transformation of a .pidm', async () => {
        const defaults = await viewModelWith([]);
        expect(defaults.collections).toHaveLength(8);
        expect(new Set(defaults.collections.map((c) => c.key.kind))).toEqual(new Set(['natural']));
        expect((await viewModelWith(['--threshold', '1'])).collections).toHaveLength(9);
        expect((await viewModelWith(['--merge', 'none'])).collections).toHaveLength(9);
        expect((await viewModelWith(['--merge', 'paper', '--threshold', '0.3'])).collections).toHaveLength(7);
        const counter = await viewModelWith(['--key', 'counter']);
        expect(new Set(counter.collections.map((c) => c.key.kind))).toEqual(new Set(['counter']));
    });

    it('generate warns that the options do not apply to a .kvlm input, and generates it unchanged', async () => {
        const io = memoryIo();
        const out = join(dir, 'with-options');
        expect(await main(['generate', KVLM, '-o', out, '--merge', 'none', '--key', 'counter'], io)).toBe(0);
        expect(io.stderr.split('\n')[0]).toBe(
            `kvmod: warning: --merge, --key apply to .pidm models only; ignored for ${KVLM}`,
        );
        const plain = memoryIo();
        expect(await main(['generate', KVLM, '-o', join(dir, 'plain')], plain)).toBe(0);
        expect(plain.stderr).not.toContain('warning');
        for (const file of ['indexes.redis', 'writes.redis', 'queries.redis']) {
            expect(await readFile(join(out, 'airflights', 'redis', 'redisearch2', file), 'utf8')).toBe(
                await readFile(join(dir, 'plain', 'airflights', 'redis', 'redisearch2', file), 'utf8'),
            );
        }
    });

    it('load and verify warn about options given with a .kvlm design before they run', async () => {
        for (const command of ['load', 'verify']) {
            const io = memoryIo();
            const missing = join(dir, 'no-data.json');
            expect(
                await main(
                    [command, KVLM, '--data', missing, '--redis', 'redis://127.0.0.1:1', '--threshold', '0.5'],
                    io,
                ),
            ).toBe(1);
            expect(io.stderr.split('\n')[0]).toBe(
                `kvmod: warning: --threshold applies to .pidm models only; ignored for ${KVLM}`,
            );
        }
    });
});

describe('load and verify transform a .pidm with the options (real engine)', () => {
    let server: RedisTestServer;
    let data: string;

    beforeAll(async () => {
        server = await startRedis();
        data = join(dir, 'data.json');
        expect(await main(['data', 'generate', PIDM, '--scale', '5', '-o', data], memoryIo())).toBe(0);
    });

    afterAll(async () => {
        await server?.stop();
    });

    it('load --merge none --key counter writes one collection per query, keyed by counters', async () => {
        const io = memoryIo();
        expect(
            await main(
                ['load', PIDM, '--data', data, '--redis', server.url, '--merge', 'none', '--key', 'counter'],
                io,
            ),
        ).toBe(0);
        const collections = io.stdout.trimEnd().split('\n');
        expect(collections).toHaveLength(9);
        expect(collections[0]).toBe('Q1_aircraftsCapacityWithin: 5 rows');
        const link = await connectRedis(server.url);
        try {
            // The counter lives under the physical index the stable name (pointer key) serves.
            const physical = String(await link.send(['GET', 'kvmod:index:Q1_aircraftsCapacityWithin']));
            expect(physical).toMatch(/^Q1_aircraftsCapacityWithin_[0-9a-f]{6}$/);
            expect(await link.send(['EXISTS', `${physical}:counter`])).toBe(1);
        } finally {
            await link.close();
        }
    });

    it('verify --threshold 1 checks the unmerged design', async () => {
        const io = memoryIo();
        expect(
            await main(
                ['verify', PIDM, '--data', data, '--redis', server.url, '--threshold', '1', '--samples', '2'],
                io,
            ),
        ).toBe(0);
        const table = io.stdout.split('\n\n')[0].split('\n').slice(1);
        expect(table).toHaveLength(9);
        // Each query is answered by its own collection.
        for (const row of table) {
            const [query, collection] = row.split(/\s+/);
            expect(collection).toBe(query);
        }
    });
});
