import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataCheck, runDataGenerate, runDataSchema } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { estimateGeneratorHeap, generateInstanceData } from '../../src/runtime/data-generator.js';
import { loadRuntimeModel } from '../../src/runtime/runtime-design.js';

const MODEL = 'examples/tournament/tournament.pidm';
let dir: string;

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-data-'));
});

afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('kvmod data', () => {
    test('generate writes the same file for the same seed and says what it wrote', async () => {
        const first = join(dir, 'a.json');
        const second = join(dir, 'b.json');
        const io = memoryIo();
        expect(await runDataGenerate({ model: MODEL, scale: 12, seed: 4, output: first }, io)).toBe(0);
        expect(io.stderr).toBe(`wrote 36 objects of 3 entities to ${first} (scale 12, seed 4)\n`);
        await runDataGenerate({ model: MODEL, scale: 12, seed: 4, output: second }, memoryIo());
        expect(await readFile(second, 'utf8')).toBe(await readFile(first, 'utf8'));
        expect(await runDataCheck({ model: MODEL, data: first }, memoryIo())).toBe(0);
    });

    test('check reports a dangling reference by entity, object, field and position, and exits 1', async () => {
        const path = join(dir, 'dangling.json');
        await writeFile(
            path,
            JSON.stringify({
                Player: [
                    { username: 'mary', firstName: 'Mary', lastName: 'Wilson', score: 42, games: ['2345', '9999'] },
                ],
                Game: [
                    {
                        code: '2345',
                        startedAt: '2014-06-21T10:00:00',
                        finished: false,
                        firstPlayer: 'mary',
                        secondPlayer: 'rick',
                        rounds: [],
                    },
                ],
            }),
        );
        const io = memoryIo();
        expect(await main(['data', 'check', MODEL, '--data', path], io)).toBe(1);
        expect(io.stderr).toBe(
            `kvmod: ${path} does not fit the model:\n` +
                `${path}: Player[0] (id "mary").games[1]: unknown Game "9999"\n` +
                `${path}: Game[0] (id "2345").secondPlayer: unknown Player "rick"\n`,
        );
    });

    test("schema prints the JSON Schema of the model's data", async () => {
        const io = memoryIo();
        await runDataSchema({ model: MODEL }, io);
        const schema = JSON.parse(io.stdout) as { $defs: Record<string, { required: string[] }> };
        expect(Object.keys(schema.$defs)).toEqual(['Player', 'Game', 'Round']);
        expect(schema.$defs.Round.required).toEqual(['_id', 'number', 'moves', 'comments', 'playedOn']);
        expect(schema.$defs.Game.required).toEqual(['code', 'startedAt', 'finished', 'firstPlayer', 'secondPlayer']);
    });

    test('a non-positive scale is a usage error of the command, not a crash', async () => {
        const io = memoryIo();
        expect(await main(['data', 'generate', MODEL, '--scale', '0'], io)).toBe(2);
        expect(io.stderr).toBe(
            "kvmod: --scale must be a whole number from 1, got 0\nusage: kvmod data generate <model>\nRun 'kvmod data generate --help' for usage.\n",
        );
    });

    test('generate writes, as it makes them, the objects generateInstanceData makes, laid out as JSON.stringify(data, null, 1)', async () => {
        const model = await loadRuntimeModel(MODEL);
        const expected = JSON.stringify(generateInstanceData(model, { scale: 400, seed: 9 }), null, 1) + '\n';
        const path = join(dir, 'streamed.json');
        expect(await runDataGenerate({ model: MODEL, scale: 400, seed: 9, output: path }, memoryIo())).toBe(0);
        expect(await readFile(path, 'utf8')).toBe(expected);
        const io = memoryIo();
        expect(await runDataGenerate({ model: MODEL, scale: 400, seed: 9 }, io)).toBe(0);
        expect(io.stdout).toBe(expected);
    });

    test('a scale whose value pools cannot fit in memory is refused before anything is written, with one that fits', async () => {
        // V8 aborted (heap out of memory, exit 134) after minutes; a scale of millions wrote nothing for minutes.
        const path = join(dir, 'never.json');
        const io = memoryIo();
        expect(await main(['data', 'generate', MODEL, '--scale', '1000000000', '-o', path], io)).toBe(1);
        const refusal =
            /^kvmod: --scale 1000000000 needs about [\d.]+ GB of memory for the values objects draw from \(a third as many per attribute as Round has objects\), more than the [\d.]+ [GM]B this process has left: at most --scale (\d+) here, or run kvmod with NODE_OPTIONS=--max-old-space-size=\d+ on a machine with that much free memory\n$/;
        expect(io.stderr).toMatch(refusal);
        expect(existsSync(path)).toBe(false);
        const fits = Number(refusal.exec(io.stderr)![1]);
        // The budget is what the heap had left at the refusal, which the message states to 0.1 of its unit: the
        // heap left now is another figure.
        const [, stated, unit] = /more than the ([\d.]+) ([GM])B/.exec(io.stderr)!;
        const scale = 1024 ** (unit === 'G' ? 3 : 2);
        const budget = Number(stated) * scale;
        const model = await loadRuntimeModel(MODEL);
        expect(estimateGeneratorHeap(model, { scale: fits, seed: 1 }).bytes).toBeLessThanOrEqual(budget + 0.05 * scale);
        expect(estimateGeneratorHeap(model, { scale: fits * 2, seed: 1 }).bytes).toBeGreaterThan(budget - 0.05 * scale);
    });
});
