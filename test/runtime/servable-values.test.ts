/**
 * Values the design cannot serve (a text holding the TAG separator, a NUL byte, a 100 KB text, a backslash before
 * punctuation on RediSearch 1.2) are refused where a query would compare or sort them — by `kvmod data check` and,
 * before anything is written, by `kvmod load` — with the object, the field and the reason; the same values in a
 * projected-only field are stored and come back intact (checked by `kvmod verify` on the real engine).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import type { InstanceData } from '../../src/runtime/instance-data.js';
import { connectRedis } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const MODEL = 'examples/airflights/airflights.pidm';
const COMPARED = 'Q2_airportsGivenCountrySortedByCities, Q4_passengersDepartingGivenCountry';

/** Each class of value, and why the design cannot serve it in a compared field. */
const CLASSES: { name: string; value: string; reason: string; dialects: string[] }[] = [
    {
        name: 'the TAG separator',
        value: 'a\u001fb',
        reason: 'it holds the character U+001F, the TAG separator: the engine would index it as several tags',
        dialects: ['redisearch1', 'redisearch2'],
    },
    {
        name: 'a NUL byte',
        value: 'ab\u0000cd',
        reason: 'it holds a NUL byte: the engine cuts a tag at a NUL, so it would equal a shorter text',
        dialects: ['redisearch1', 'redisearch2'],
    },
    {
        name: 'a 100 KB text',
        value: 'x'.repeat(100_000),
        reason: 'it is 100000 bytes long: the engine indexes only the first 4096 bytes of a tag',
        dialects: ['redisearch1', 'redisearch2'],
    },
    {
        name: 'a backslash before punctuation',
        value: 'a\\,b',
        reason: 'it holds a backslash before a space, punctuation or another backslash, which RediSearch 1.2 cannot match; use the redisearch2 dialect',
        dialects: ['redisearch1'],
    },
];

let server: RedisTestServer;
let dir: string;
let base: InstanceData;

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-servable-'));
    const path = join(dir, 'base.json');
    await runDataGenerate({ model: MODEL, scale: 12, seed: 5, output: path }, memoryIo());
    base = JSON.parse(await readFile(path, 'utf8')) as InstanceData;
});

afterAll(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

/** Writes a copy of the base data with `change` applied; returns its path. */
async function dataWith(name: string, change: (data: InstanceData) => void): Promise<string> {
    const data = structuredClone(base);
    change(data);
    const path = join(dir, `${name.replace(/\W/g, '_')}.json`);
    await writeFile(path, JSON.stringify(data));
    return path;
}

describe('values the design cannot serve', () => {
    for (const klass of CLASSES) {
        test(`${klass.name} in a compared text is refused by data check and by load, naming object, field and reason`, async () => {
            const path = await dataWith(klass.name, (data) => {
                data.Airport![2]!.country = klass.value;
            });
            const id = JSON.stringify(base.Airport![2]!.codeCAO);
            for (const dialect of ['redisearch1', 'redisearch2']) {
                const io = memoryIo();
                const code = await main(['data', 'check', MODEL, '--data', path, '--dialect', dialect], io);
                if (!klass.dialects.includes(dialect)) {
                    expect(code).toBe(0);
                    continue;
                }
                expect(code).toBe(1);
                expect(io.stderr).toBe(
                    `kvmod: ${path} holds values no query could find on ${dialect}; kvmod stores nothing it cannot serve: fix or remove them:\n` +
                        `${path}: Airport[2] (id ${id}).country: ${dialect} cannot serve this text to ${COMPARED}: ${klass.reason}\n`,
                );
            }
            // The test server runs RediSearch 1.2: load detects it, refuses, and writes nothing.
            const link = await connectRedis(server.url);
            try {
                await link.send(['FLUSHALL']);
                const io = memoryIo();
                expect(await main(['load', MODEL, '--data', path, '--redis', server.url], io)).toBe(1);
                expect(io.stderr).toContain(
                    `${path}: Airport[2] (id ${id}).country: redisearch1 cannot serve this text`,
                );
                expect(await link.send(['DBSIZE'])).toBe(0);
            } finally {
                await link.close();
            }
        });
    }

    test('a NUL byte in a sorted text is refused: the engine cuts a sort key at a NUL', async () => {
        const path = await dataWith('nul-sorted', (data) => {
            data.Airport![1]!.city = 'Paris\u0000x';
        });
        const io = memoryIo();
        expect(await main(['data', 'check', MODEL, '--data', path], io)).toBe(1);
        expect(io.stderr).toContain(
            '.city: redisearch2 cannot serve this text to Q2_airportsGivenCountrySortedByCities, Q4_passengersDepartingGivenCountry, Q5_passengersDepartingGivenPeriod: it holds a NUL byte: the engine cuts a sort key at a NUL\n',
        );
    });

    test("several values are listed object by object, each object's fields in the order of the model", async () => {
        const path = await dataWith('several', (data) => {
            data.Airport![3]!.country = 'c\u001fd';
            data.Airport![1]!.city = 'Paris\u0000x';
            data.Airport![1]!.country = 'a\u001fb';
        });
        const io = memoryIo();
        expect(await main(['data', 'check', MODEL, '--data', path], io)).toBe(1);
        const id = (index: number) => JSON.stringify(base.Airport![index]!.codeCAO);
        expect(io.stderr.split('\n').map((line) => line.split(': redisearch2 cannot serve')[0])).toEqual([
            `kvmod: ${path} holds values no query could find on redisearch2; kvmod stores nothing it cannot serve: fix or remove them:`,
            `${path}: Airport[1] (id ${id(1)}).country`,
            `${path}: Airport[1] (id ${id(1)}).city`,
            `${path}: Airport[3] (id ${id(3)}).country`,
            '',
        ]);
    });

    test('the same values in a projected-only text are stored and returned intact (verify on the real engine)', async () => {
        const path = await dataWith('projected', (data) => {
            for (const [i, airport] of data.Airport!.entries())
                airport.nameAirport = CLASSES[i % CLASSES.length]!.value;
        });
        expect(await main(['data', 'check', MODEL, '--data', path, '--dialect', 'redisearch1'], memoryIo())).toBe(0);
        const io = memoryIo();
        const code = await main(['verify', MODEL, '--data', path, '--redis', server.url, '--samples', '12'], io);
        expect(io.stdout).toMatch(/^Q2_airportsGivenCountrySortedByCities\s+\S+\s+\d+\s+[1-9]\d*\s+0$/m);
        expect(io.stdout).toContain('all 9 queries match the oracle');
        expect(code).toBe(0);
        const link = await connectRedis(server.url);
        try {
            // RediSearch 1.2: the stable name's pointer key names the physical index.
            const physical = String(await link.send(['GET', 'kvmod:index:Q2_airportsGivenCountrySortedByCities']));
            const reply = (await link.send([
                'FT.SEARCH',
                physical,
                '*',
                'RETURN',
                '1',
                'nameAirport',
                'LIMIT',
                '0',
                '100',
            ])) as unknown[];
            const names = new Set(
                reply
                    .slice(2)
                    .filter((_, i) => i % 2 === 0)
                    .map((fields) => String((fields as unknown[])[1])),
            );
            expect([...names].sort()).toEqual(CLASSES.map((c) => c.value).sort());
        } finally {
            await link.close();
        }
    });
});

describe('floats RediSearch 1.2 indexes as another number', () => {
    const BOOKS = 'examples/book-ratings/book-ratings.pidm';

    test('a compared price the 1.2 index keeps as a 32-bit float is refused by data check and load; 2.x takes it', async () => {
        const generated = join(dir, 'books.json');
        await runDataGenerate({ model: BOOKS, scale: 6, seed: 3, output: generated }, memoryIo());
        const data = JSON.parse(await readFile(generated, 'utf8')) as InstanceData;
        data.Book![2]!.price = 0.1;
        data.Book![4]!.price = 19.75; // a 32-bit float holds it: served
        const path = join(dir, 'books-0.1.json');
        await writeFile(path, JSON.stringify(data));
        const id = JSON.stringify(data.Book![2]!.isbn);
        const io = memoryIo();
        expect(await main(['data', 'check', BOOKS, '--data', path, '--dialect', 'redisearch1'], io)).toBe(1);
        expect(io.stderr).toBe(
            `kvmod: ${path} holds values no query could find on redisearch1; kvmod stores nothing it cannot serve: fix or remove them:\n` +
                `${path}: Book[2] (id ${id}).price: redisearch1 cannot serve this number (0.1) to Q5_booksAbovePrice, Q7_bargainsOrTopRanked: ` +
                'RediSearch 1.2 indexes it as the 32-bit float 0.10000000149011612, so comparisons with it answer wrongly; use a value a 32-bit float holds exactly (a whole number, 0.25, 19.75) or the redisearch2 dialect\n',
        );
        expect(await main(['data', 'check', BOOKS, '--data', path, '--dialect', 'redisearch2'], memoryIo())).toBe(0);
        // The test server runs RediSearch 1.2: load detects it, refuses, and writes nothing.
        const link = await connectRedis(server.url);
        try {
            await link.send(['FLUSHALL']);
            const loadIo = memoryIo();
            expect(await main(['load', BOOKS, '--data', path, '--redis', server.url], loadIo)).toBe(1);
            expect(loadIo.stderr).toContain(
                `${path}: Book[2] (id ${id}).price: redisearch1 cannot serve this number (0.1)`,
            );
            expect(await link.send(['DBSIZE'])).toBe(0);
        } finally {
            await link.close();
        }
    });
});
