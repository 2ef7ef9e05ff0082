/**
 * The redisearch1 output against the real engine: a private redis-server 7 with RediSearch 1.2. Scripts go
 * through `redis-cli` exactly as a user would pipe them; replies are read back through the node client.
 */
import { describe, expect, test } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { glob } from 'tinyglobby';
import {
    bindRedisCommand,
    displayRedisCommand,
    encodeRedisValue,
    encodeSortKey,
    formatCliCommand,
    generateTarget,
    isEmptyAggregateError,
    RS1_EMPTY_AGGREGATE_ERROR,
    redisTarget,
    splitCliLine,
    type RedisViewModel,
} from '../../src/generation/index.js';
import { redisCli, redisForFile } from '../support/redis-server.js';
import { KVLM_MODELS, loadKvlmFile, repoRoot } from './generation-fixtures.js';
import { AWKWARD_TAG_TEXT, AWKWARD_TEXT, sampleParam, sampleRow, sampleValue } from './redis-samples.js';

const redis = redisForFile();

/** Pipes lines through `redis-cli --no-raw` and returns its output lines; fails on any `(error)`. */
async function pipe(lines: string[]): Promise<string[]> {
    const result = await redisCli(redis.server.port, ['--no-raw'], lines.join('\n') + '\n');
    expect(result.stderr).toBe('');
    const output = result.stdout.split('\n');
    expect(output.filter((l) => /\(error\)/.test(l))).toEqual([]);
    return output;
}

async function send(argv: string[]): Promise<unknown> {
    return redis.client.sendCommand(argv);
}

async function generate(path: string, options: Record<string, unknown> = {}) {
    const kvlm = await loadKvlmFile(path);
    const { files, viewModel } = await generateTarget(redisTarget, kvlm, { dialect: 'redisearch1', ...options });
    return { vm: viewModel as RedisViewModel, file: (name: string) => files.find((f) => f.path === name)!.content };
}

function scriptLines(text: string): string[] {
    return text.split('\n').filter((l) => l !== '');
}

/** FT.INFO's field list as `{ name: 'TYPE[ SORTABLE][ SEPARATOR x]' }`. */
async function indexedFields(index: string): Promise<Record<string, string>> {
    const info = (await send(['FT.INFO', index])) as unknown[];
    const fields = info[info.indexOf('fields') + 1] as string[][];
    return Object.fromEntries(
        fields.map((entry) => {
            const parts = [entry[2]!];
            if (entry.includes('SORTABLE')) parts.push('SORTABLE');
            if (entry.includes('SEPARATOR'))
                parts.push(`SEPARATOR ${JSON.stringify(entry[entry.indexOf('SEPARATOR') + 1])}`);
            return [entry[0]!, parts.join(' ')];
        }),
    );
}

function expectedFields(vm: RedisViewModel, collection: string): Record<string, string> {
    const c = vm.collections.find((x) => x.name === collection)!;
    const indexed = c.fields.filter((f) => f.index);
    if (indexed.length === 0) return { [c.idField]: `TAG SEPARATOR ${JSON.stringify('\u001f')}` };
    return Object.fromEntries(
        indexed.map((f) => {
            const parts: string[] = [f.index!.type];
            if (f.index!.sortable) parts.push('SORTABLE');
            if (f.index!.separator !== null) parts.push(`SEPARATOR ${JSON.stringify(f.index!.separator)}`);
            return [f.name, parts.join(' ')];
        }),
    );
}

const FIXTURES = KVLM_MODELS;

describe('redisearch1 scripts on RediSearch 1.2', () => {
    test.each(FIXTURES)(
        'the index script of %s runs through redis-cli without an error and FT.INFO reports the planned fields',
        async (path) => {
            await send(['FLUSHALL']);
            const { vm, file } = await generate(path);
            const output = await pipe(scriptLines(file('indexes.redis')));
            // One FT.CREATE and one SET of the pointer key per collection.
            expect(output.filter((l) => l === 'OK')).toHaveLength(vm.collections.length * 2);
            for (const collection of vm.collections) {
                expect(await send(['GET', collection.pointerKey!])).toBe(collection.physicalIndex);
                expect(await indexedFields(collection.physicalIndex)).toEqual(expectedFields(vm, collection.name));
            }
        },
    );

    test('the committed redisearch1 index script of every example runs without an error', async () => {
        const scripts = await glob('examples/*/redis/redisearch1/indexes.redis', { cwd: repoRoot });
        expect(scripts.length).toBeGreaterThan(0);
        for (const script of scripts) {
            await send(['FLUSHALL']);
            const lines = scriptLines(await readFile(`${repoRoot}${script}`, 'utf8'));
            const output = await pipe(lines);
            expect(output.filter((l) => l === 'OK')).toHaveLength(lines.length);
        }
    });

    test.each(FIXTURES)(
        'sample writes and every query of %s are accepted by redis-cli, and stored values read back exactly',
        async (path) => {
            await send(['FLUSHALL']);
            const { vm, file } = await generate(path, { dbPrefix: true });
            await pipe(scriptLines(file('indexes.redis')));
            const writes: string[] = [];
            for (const collection of vm.collections) {
                for (let i = 0; i < 3; i++)
                    writes.push(formatCliCommand(bindRedisCommand(collection.insert, sampleRow(collection, i))));
            }
            const output = await pipe(writes);
            expect(output.filter((l) => /^(OK|".*")$/.test(l))).toHaveLength(writes.length);
            for (const collection of vm.collections) {
                const keys = (await send(['KEYS', `${collection.keyPrefix}*`])) as string[];
                const rows = keys.filter((k) => k !== collection.key.counterKey);
                expect(rows).toHaveLength(3);
                for (const key of rows) {
                    const hash = (await redis.client.hGetAll(key)) as Record<string, string>;
                    expect(key).toBe(collection.keyPrefix + hash[collection.idField]);
                    const i = [0, 1, 2].find((n) =>
                        collection.fields.every(
                            (f) => hash[f.name] === encodeRedisValue(f.type, sampleValue(f.type, n)),
                        ),
                    );
                    expect(i).toBeDefined();
                    for (const f of collection.fields.filter((x) => x.sortKey !== null)) {
                        expect(hash[f.sortKey!]).toBe(encodeSortKey(encodeRedisValue(f.type, sampleValue(f.type, i!))));
                    }
                }
            }
            // Parameters take the values of the first sample row, so that every query matches a row (an
            // FT.AGGREGATE that matches nothing is an error reply on RediSearch 1.2, see the test below).
            const queries = vm.collections.flatMap((c) => {
                const row = sampleRow(c, 0);
                return c.queries.map((q) => {
                    const params = q.params.map((p) => [p.name, p.field ? row[p.field] : sampleParam(p.type)]);
                    return formatCliCommand(bindRedisCommand(q.command, Object.fromEntries(params)));
                });
            });
            await pipe(queries); // no `(error)`: so every FT.AGGREGATE found rows (FT.SEARCH may find none)
        },
    );

    test('every line of the placeholder scripts reads back, with redis-cli quoting, as the view model command', async () => {
        for (const path of FIXTURES) {
            const { vm, file } = await generate(path);
            const commands = [
                ...vm.collections.flatMap((c) => [c.create, c.point]),
                ...vm.collections.map((c) => c.insert),
                ...vm.collections.flatMap((c) => c.queries.map((q) => q.command)),
            ];
            const lines = [
                ...scriptLines(file('indexes.redis')),
                ...scriptLines(file('writes.redis')),
                ...scriptLines(file('queries.redis')),
            ];
            expect(lines.map(splitCliLine)).toEqual(commands.map(displayRedisCommand));
        }
    });

    test('an FT.AGGREGATE that matches nothing is an error reply on RediSearch 1.2, which isEmptyAggregateError recognises', async () => {
        await send(['FLUSHALL']);
        const { vm, file } = await generate('test/fixtures/kvlm/airflights-q4q5.kvlm');
        await pipe(scriptLines(file('indexes.redis')));
        const q5 = vm.collections[1]!.queries.find((q) => q.name.startsWith('Q5'))!;
        const error = await send(bindRedisCommand(q5.command, { departureDate: '2024-05-01' })).then(
            () => undefined,
            (e: unknown) => e,
        );
        expect(isEmptyAggregateError(error)).toBe(true);
        expect(String(error)).toContain(RS1_EMPTY_AGGREGATE_ERROR);
    });

    test('an awkward text value round-trips through redis-cli quoting unchanged (ECHO)', async () => {
        for (const value of [
            AWKWARD_TEXT,
            '',
            ' ',
            '"',
            "'",
            '\\',
            '\\x41',
            'a\tb\r\n',
            '\u0000\u001f\u007f',
            'é日本🙂',
            '$code',
        ]) {
            const result = await redisCli(redis.server.port, ['--no-raw'], formatCliCommand(['ECHO', value]) + '\n');
            const reply = (await send(['ECHO', value])) as string;
            expect(reply).toBe(value);
            expect(result.stdout).not.toMatch(/\(error\)|Invalid argument/);
            expect(splitCliLine(formatCliCommand(['ECHO', value]))).toEqual(['ECHO', value]);
        }
    });
});

describe('query results on RediSearch 1.2 (airflights Q3–Q5)', () => {
    const passenger = (id: string, first: string) => ({
        idPassport: id,
        firstName: first,
        lastName: 'L',
        birthdate: '1980-01-02',
        sex: 'F',
        nationality: 'FR',
    });
    const flights = [
        {
            FL_code: 'AF 1',
            FL_departureDate: '2024-05-01',
            FL_departureTime: '10:00:00',
            Origin_city: 'Paris',
            Origin_country: 'France',
            Destination_city: 'Rome',
        },
        {
            FL_code: 'AF:2',
            FL_departureDate: '2024-05-01',
            FL_departureTime: '09:00:00',
            Origin_city: 'Paris',
            Origin_country: 'France',
            Destination_city: 'Oslo',
        },
        {
            FL_code: 'LY-3',
            FL_departureDate: '2024-05-01',
            FL_departureTime: '21:05:00',
            Origin_city: 'Lyon',
            Origin_country: 'France',
            Destination_city: 'Nice',
        },
        {
            FL_code: 'KL,4',
            FL_departureDate: '2024-05-01',
            FL_departureTime: '07:00:00',
            Origin_city: 'Amsterdam',
            Origin_country: 'Netherlands',
            Destination_city: 'Paris',
        },
        {
            FL_code: 'AF 5',
            FL_departureDate: '2024-05-02',
            FL_departureTime: '07:00:00',
            Origin_city: 'Paris',
            Origin_country: 'France',
            Destination_city: 'Rome',
        },
    ];

    test('Q4 sorts by city then by time as numbers (09:00 before 10:00), Q5 by country then city, Q3 finds a code with punctuation', async () => {
        await send(['FLUSHALL']);
        const { vm, file } = await generate('test/fixtures/kvlm/airflights-q4q5.kvlm');
        await pipe(scriptLines(file('indexes.redis')));
        const [q3, q45] = vm.collections;
        const lines: string[] = [];
        for (const flight of flights) {
            const row = { ...passenger('P"1', 'Ann'), ...flight };
            lines.push(formatCliCommand(bindRedisCommand(q45!.insert, row)));
            lines.push(formatCliCommand(bindRedisCommand(q3!.insert, row)));
        }
        await pipe(lines);

        const q4 = q45!.queries.find((q) => q.name.startsWith('Q4'))!;
        const reply4 = (await send(
            bindRedisCommand(q4.command, { departureDate: '2024-05-01', country: 'france' }),
        )) as unknown[];
        const ids4 = reply4.slice(1).map((row) => (row as string[])[1]);
        expect(ids4).toEqual(['P"1:LY-3', 'P"1:AF%3A2', 'P"1:AF 1']);

        const q5 = q45!.queries.find((q) => q.name.startsWith('Q5'))!;
        const reply5 = (await send(bindRedisCommand(q5.command, { departureDate: '2024-05-01' }))) as unknown[];
        const ids5 = reply5.slice(1).map((row) => (row as string[])[1]);
        expect(ids5[0]).toBe('P"1:LY-3');
        expect(ids5.slice(1, 3).sort()).toEqual(['P"1:AF 1', 'P"1:AF%3A2']); // a tie on (France, Paris): any order
        expect(ids5[3]).toBe('P"1:KL,4');

        const reply3 = (await send(bindRedisCommand(q3!.queries[0]!.command, { code: 'KL,4' }))) as unknown[];
        expect(reply3[0]).toBe(1);
        expect(reply3[1]).toBe(`${q3!.keyPrefix}P"1:KL,4`);
    });

    test('Q5 (FT.AGGREGATE) orders text case-folded, exactly as FT.SEARCH SORTBY orders the SORTABLE field, and returns the raw values', async () => {
        await send(['FLUSHALL']);
        const { vm, file } = await generate('test/fixtures/kvlm/airflights-q4q5.kvlm');
        await pipe(scriptLines(file('indexes.redis')));
        const q45 = vm.collections[1]!;
        const countries = ['Japan', 'in', 'Élan', 'zed', 'ITALY', 'aa', 'Ab', 'Straße', 'strasbourg', 'ÖSTERREICH'];
        const lines = countries.map((country, i) =>
            formatCliCommand(
                bindRedisCommand(q45.insert, {
                    ...passenger(`P${i}`, 'Ann'),
                    ...flights[0],
                    FL_code: `F${i}`,
                    Origin_country: country,
                }),
            ),
        );
        await pipe(lines);
        const q5 = q45.queries.find((q) => q.name.startsWith('Q5'))!;
        const reply = (await send(bindRedisCommand(q5.command, { departureDate: '2024-05-01' }))) as string[][];
        const aggregated = reply.slice(1).map((row) => row[row.indexOf('Origin_country') + 1]);
        expect(q5.load).toContain('Origin_country');
        const searched = (await send([
            'FT.SEARCH',
            q45.physicalIndex,
            '*',
            'RETURN',
            '1',
            'Origin_country',
            'SORTBY',
            'Origin_country',
            'ASC',
            'LIMIT',
            '0',
            '100',
        ])) as unknown[];
        const engineOrder = searched.filter((_, i) => i > 0 && i % 2 === 0).map((fields) => (fields as string[])[1]);
        expect(engineOrder).toEqual([
            'aa',
            'Ab',
            'in',
            'ITALY',
            'Japan',
            'strasbourg',
            'Straße',
            'zed',
            'Élan',
            'ÖSTERREICH',
        ]);
        expect(aggregated).toEqual(engineOrder);
    });

    test('an awkward text matches itself through TAG escaping, and a stopword tag value is found (STOPWORDS 0)', async () => {
        await send(['FLUSHALL']);
        const { vm, file } = await generate('test/fixtures/kvlm/redis-edge.kvlm');
        await pipe(scriptLines(file('indexes.redis')));
        const orders = vm.collections.find((c) => c.name === 'Orders')!;
        const row = {
            ref: AWKWARD_TAG_TEXT,
            total: 2.5,
            placed: '2024-02-28T09:00:00',
            paid: true,
            qty: 7,
            city: 'in',
            day: '2024-02-28',
            at: '09:00:00',
            note: 'x',
        };
        const key = (await send(bindRedisCommand(orders.insert, row))) as string;
        await send(bindRedisCommand(orders.insert, { ...row, ref: 'other', city: 'Paris', total: 5 }));
        const byRef = orders.queries.find((q) => q.name === 'Q_byRef')!;
        const reply = (await send(bindRedisCommand(byRef.command, { ref: AWKWARD_TAG_TEXT }))) as unknown[];
        expect(reply[0]).toBe(1);
        expect(reply[1]).toBe(key);
        const range = orders.queries.find((q) => q.name === 'Q_range')!;
        const inRange = (await send(
            bindRedisCommand(range.command, { low: 2.5, high: 3, since: '2024-02-28T08:59:59' }),
        )) as unknown[];
        expect(inRange[0]).toBe(1);
        const outOfRange = (await send(
            bindRedisCommand(range.command, { low: 2.5, high: 3, since: '2024-02-28T09:00:00' }),
        )) as unknown[];
        expect(outOfRange[0]).toBe(0);
        expect(() => bindRedisCommand(byRef.command, { ref: 'a \\ b' })).toThrow(
            /holds a backslash before a space, punctuation or another backslash, which RediSearch 1\.2 cannot match/,
        );
        // Tags are trimmed when indexed: a parameter with surrounding spaces finds the trimmed value.
        const spacedKey = (await send(bindRedisCommand(orders.insert, { ...row, ref: 'spaced' }))) as string;
        const spaced = (await send(bindRedisCommand(byRef.command, { ref: '  spaced\t' }))) as unknown[];
        expect(spaced.slice(0, 2)).toEqual([1, spacedKey]);
    });
});
