/**
 * The generated TypeScript client of the redis-core design on a plain redis-server (no module): every example's
 * instance data loaded by `kvmod load --target redis-core`, then every query run through the GENERATED page iterator
 * (pages of 3 rows) with parameter sets drawn from the data and compared with the oracle; 1,000 rows with tied sort
 * keys paged without a repeat or a miss; the library loaded by the client's own setup function; the typed errors.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorReply } from 'redis';
import ts from 'typescript';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import type { KvlmModel } from '../../src/language/generated/ast.js';
import { querySignature } from '../../src/generation/redis-core/redis-core-lua.js';
import { buildTsCoreClientDesign } from '../../src/generation/typescript/typescript-core-design.js';
import { generateFromKvlm } from '../../src/pipeline/generate.js';
import { readInstanceData } from '../../src/runtime/instance-data.js';
import { connectCore, type CoreConnection } from '../../src/runtime/redis-core/core-connection.js';
import { buildCoreDesign, putCoreRow } from '../../src/runtime/redis-core/core-engine.js';
import { redisCoreCollation } from '../../src/runtime/redis-core/core-runtime.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verdictStatus, verifyQueries } from '../../src/runtime/verify.js';
import { repoRoot } from '../generation/generation-fixtures.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const EXAMPLES = ['airflights', 'book-ratings', 'tournament'];

/** What the tests use of a node-redis client. */
interface Client {
    sendCommand(args: string[]): Promise<unknown>;
    close(): Promise<void>;
}

/** A page as the generated client returns it. */
interface Page {
    rows: Record<string, unknown>[];
    total: number;
    offset: number;
    hasNext: boolean;
    next(): Promise<Page | undefined>;
}

/** The generated module, called by name (its types are proven by the compile test). */
type ClientModule = Record<string, unknown>;

let server: RedisTestServer;
let connection: CoreConnection;
let dir: string;
let client: Client;

/** Generates the redis-core client, transpiles it to JavaScript next to itself, imports it. */
async function importClient(kvlm: KvlmModel, name: string): Promise<ClientModule> {
    const { files } = await generateFromKvlm(kvlm, { target: 'typescript', targetOptions: { design: 'redis-core' } });
    const out = join(dir, name);
    for (const file of files) {
        const js = ts.transpileModule(file.content, {
            compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
        }).outputText;
        const path = join(out, file.path.replace(/\.ts$/, '.js'));
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, js);
    }
    return (await import(pathToFileURL(join(out, 'client.js')).href)) as ClientModule;
}

function call<T>(module: ClientModule, name: string, ...args: unknown[]): Promise<T> {
    const fn = module[name];
    if (typeof fn !== 'function') throw new Error(`the generated client has no function ${name}`);
    return (fn as (...a: unknown[]) => Promise<T>)(...args);
}

async function collect(iterator: AsyncIterable<Page>): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
    const rows: Record<string, unknown>[] = [];
    let pages = 0;
    for await (const page of iterator) {
        pages++;
        rows.push(...page.rows);
    }
    return { rows, pages };
}

beforeAll(async () => {
    server = await startRedis({ search: false });
    connection = await connectCore(server.url);
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-core-client-run-'));
});

afterAll(async () => {
    await client?.close().catch(() => undefined);
    await connection?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the generated TypeScript client of the redis-core design on a plain redis-server', () => {
    test.each([
        ...EXAMPLES.map((example) => [example, 'redis-core'] as const),
        // The target a project's config names for its client: load and verify run the design the client runs.
        ['book-ratings', 'typescript --design redis-core'] as const,
    ])(
        '%s: data loaded by kvmod load --target %s; every query, read page by page, answers like the oracle',
        async (example, target) => {
            const model = `examples/${example}/${example}.pidm`;
            const design = await loadRuntimeDesign(model);
            const module = await importClient(design.kvlm, example);
            const tsDesign = buildTsCoreClientDesign(design.kvlm, {});
            client ??= await call<Client>(module, 'connect', server.url);
            await client.sendCommand(['FLUSHALL']);
            await client.sendCommand(['FUNCTION', 'FLUSH']);

            const file = join(dir, `${example}.json`);
            expect(await runDataGenerate({ model, scale: 40, seed: 3, output: file }, memoryIo())).toBe(0);
            const load = memoryIo();
            const args = ['load', model, '--data', file, '--redis', server.url, '--target', ...target.split(' ')];
            expect(await main(args, load)).toBe(0);
            expect(load.stdout + load.stderr).toMatch(/function library kvmod_\w+: created/);
            // The library `kvmod load` loaded is the one the client ships.
            await expect(call(module, 'checkServer', client)).resolves.toBeUndefined();
            expect(await call(module, 'loadLibrary', client)).toBe(`kvmod_${design.kvlm.name.replace(/-/g, '_')}`);
            const data = await readInstanceData(file, design.model);

            let multiPage = 0;
            let rowsRead = 0;
            const verdicts = await verifyQueries(
                design.pidm,
                design.kvlm,
                design.model,
                data,
                async (_collection, query, parameters) => {
                    const served = tsDesign.queries.find((q) => q.core.name === query.name)!;
                    const params = Object.fromEntries(served.params.map((p) => [p.prop, parameters[p.param]]));
                    const pages = call<AsyncIterable<Page>>(module, served.names.pages, client, params, {
                        pageSize: 3,
                    });
                    const { rows, pages: count } = await collect((await pages) as AsyncIterable<Page>);
                    if (count > 1) multiPage++;
                    rowsRead += rows.length;
                    return { rows: rows.map((row) => served.columns.map((column) => row[column.prop] as never)) };
                },
                { samples: 6, seed: 1, collation: redisCoreCollation },
            );
            expect(verdicts.map((v) => `${v.query}: ${v.firstDifference ?? verdictStatus(v)}`)).toEqual(
                verdicts.map((v) => `${v.query}: match`),
            );
            expect(verdicts.length).toBe(tsDesign.queries.length);
            expect(multiPage).toBeGreaterThan(0); // answers larger than one page went through the iterator
            expect(rowsRead).toBeGreaterThan(20);
        },
    );

    test('1,000 rows with tied sort keys: every page of one answer comes from one reply, each row once, in order', async () => {
        const design = await loadRuntimeDesign('examples/airflights/airflights.pidm');
        const module = await importClient(design.kvlm, 'airflights-ties');
        client ??= await call<Client>(module, 'connect', server.url);
        await client.sendCommand(['FLUSHALL']);
        await client.sendCommand(['FUNCTION', 'FLUSH']);
        expect(await call(module, 'loadLibrary', client)).toBe('kvmod_airflights');
        const { design: core } = await buildCoreDesign(design.kvlm);
        const airports = core.collections.find((c) => c.name === 'Q2_airportsGivenCountrySortedByCities')!;
        const cities = ['Lyon', 'paris', 'Nice', 'Brest', 'Agen'];
        for (let i = 0; i < 1000; i += 100)
            await Promise.all(
                Array.from({ length: 100 }, (_, j) => {
                    const n = i + j;
                    const code = `A${String(n).padStart(4, '0')}`;
                    // Fields in the collection's order: nameAirport, codeCAO, city, country.
                    const values = [
                        `Airport ${n}`,
                        code,
                        cities[n % cities.length]!,
                        n % 10 === 0 ? 'Spain' : 'France',
                    ];
                    return putCoreRow(connection, core, airports, `${airports.rowPrefix}${code}`, values);
                }),
            );
        const first = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'france' },
            {
                pageSize: 37,
            },
        );
        expect([first.total, first.offset, first.rows.length, first.hasNext]).toEqual([900, 0, 37, true]);
        expect(first.rows[0]).toEqual({ nameAirport: expect.any(String), codeCAO: expect.any(String), city: 'Agen' });
        const all = await collect(
            (await call<AsyncIterable<Page>>(
                module,
                'Q2_airportsGivenCountrySortedByCitiesPages',
                client,
                { country: 'France' },
                { pageSize: 37 },
            )) as AsyncIterable<Page>,
        );
        expect(all.pages).toBe(25);
        expect(new Set(all.rows.map((r) => r.codeCAO)).size).toBe(900);
        const fold = (row: Record<string, unknown>) => String(row.city).toLowerCase();
        expect(all.rows.every((row, i) => i === 0 || fold(all.rows[i - 1]!) <= fold(row))).toBe(true);

        // A page's next() reads nothing: a row written after the first page does not shift the following pages.
        const page = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'France' },
            {
                pageSize: 450,
            },
        );
        await putCoreRow(connection, core, airports, `${airports.rowPrefix}A9999`, ['New', 'A9999', 'Aa', 'France']);
        const second = (await page.next())!;
        expect([second.total, second.offset, second.rows.length, second.hasNext]).toEqual([900, 450, 450, false]);
        expect(await second.next()).toBeUndefined();
        expect(new Set([...page.rows, ...second.rows].map((r) => r.codeCAO)).size).toBe(900);
        // A new call reads the server again.
        const again = await call<Page>(module, 'Q2_airportsGivenCountrySortedByCities', client, { country: 'France' });
        expect([again.total, again.rows.length, again.hasNext, again.rows[0]!.codeCAO]).toEqual([
            901,
            901,
            false,
            'A9999',
        ]);

        const last = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'France' },
            {
                offset: 890,
                pageSize: 37,
            },
        );
        expect([last.total, last.offset, last.rows.length, last.hasNext]).toEqual([901, 890, 11, false]);
        const beyond = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'France' },
            {
                offset: 5000,
            },
        );
        expect([beyond.total, beyond.rows, beyond.hasNext]).toEqual([901, [], false]);
        await expect(
            call(module, 'Q2_airportsGivenCountrySortedByCities', client, { country: 'France' }, { pageSize: 0 }),
        ).rejects.toThrow('pageSize must be an integer from 1 to 1000000, got 0');
        // Parameters are encoded as the design encodes them: an ISO date, an int.
        const none = await call<Page>(module, 'Q1_aircraftsCapacityWithin', client, { capacity: 1, capacity_2: 500 });
        expect([none.total, none.rows]).toEqual([0, []]);
        await expect(
            call(module, 'Q1_aircraftsCapacityWithin', client, { capacity: 1.5, capacity_2: 500 }),
        ).rejects.toThrow('an int value must be an integer, got 1.5');
    });

    test("another design's library loaded since: a query it reads otherwise fails naming both signatures; one it reads alike answers", async () => {
        const model = 'examples/book-ratings/book-ratings.pidm';
        const design = await loadRuntimeDesign(model);
        const module = await importClient(design.kvlm, 'book-ratings-other');
        // Design B answers Q3 with one more column: its collection, plan and signature differ; Q4's do not.
        const other = join(dir, 'other', 'book-ratings.pidm');
        await mkdir(dirname(other), { recursive: true });
        const text = await readFile(model, 'utf8');
        const changed = text.replace(
            'query Q3_booksWithTag:\nSELECT isbn, title, author, rank\n',
            'query Q3_booksWithTag:\nSELECT isbn, title, author, rank, price\n',
        );
        expect(changed).not.toBe(text);
        await writeFile(other, changed);
        const otherQ3 = buildTsCoreClientDesign((await loadRuntimeDesign(other)).kvlm, {}).queries.find(
            (q) => q.core.name === 'Q3_booksWithTag',
        )!;
        const ownQ3 = buildTsCoreClientDesign(design.kvlm, {}).queries.find((q) => q.core.name === 'Q3_booksWithTag')!;
        client ??= await call<Client>(module, 'connect', server.url);
        await client.sendCommand(['FLUSHALL']);
        await client.sendCommand(['FUNCTION', 'FLUSH']);
        const file = join(dir, 'book-ratings-other.json');
        expect(await runDataGenerate({ model, scale: 12, seed: 3, output: file }, memoryIo())).toBe(0);
        const load = memoryIo();
        expect(await main(['load', other, '--data', file, '--redis', server.url, '--target', 'redis-core'], load)).toBe(
            0,
        );

        const [own, served] = [
            querySignature(ownQ3.core, ownQ3.collection),
            querySignature(otherQ3.core, otherQ3.collection),
        ];
        expect(own).not.toBe(served);
        const error = await call(module, 'Q3_booksWithTag', client, { tag: 'x' }).then(
            () => null,
            (e: unknown) => e,
        );
        expect(error).toMatchObject({
            name: 'OtherDesignError',
            code: 'other-design',
            collections: [{ name: 'Q3_booksWithTag', served, expected: own }],
            message:
                `the server's library kvmod_book_ratings serves another design, not the one this client was generated for: ` +
                `Q3_booksWithTag reads as ${served} (this client's design: ${own}). Use the client generated from the design ` +
                'the server serves, or load this design (loadLibrary) on a server of its own',
        });
        // Q4 reads the same rows in both designs: the old client's query still answers, every comment of the book.
        const books = JSON.parse(await readFile(file, 'utf8')).Book as { isbn: string; comments: string[] }[];
        const book = books.find((b) => b.comments.length > 0)!;
        const page = await call<Page>(module, 'Q4_commentsOfBook', client, { isbn: book.isbn });
        expect(page.total).toBe(book.comments.length);
        // A query the server's library does not serve at all.
        await expect(
            client.sendCommand(['FCALL_RO', 'book_ratings_query', '1', '{Q3_booksWithTag:x}:rec', `Q9_gone@${own}`]),
        ).rejects.toThrow(`kvmod: other design: query Q9_gone ${own} is not served in this library`);
    });

    test('typed errors: no library loaded, a server without Redis Functions', async () => {
        const design = await loadRuntimeDesign('examples/tournament/tournament.pidm');
        const module = await importClient(design.kvlm, 'tournament-errors');
        client ??= await call<Client>(module, 'connect', server.url);
        await client.sendCommand(['FLUSHALL']);
        await client.sendCommand(['FUNCTION', 'FLUSH']);
        const missing = {
            name: 'MissingLibraryError',
            code: 'missing-library',
            message:
                'the function library kvmod_tournament is not loaded on the server: call loadLibrary(client) first',
        };
        await expect(call(module, 'checkServer', client)).rejects.toMatchObject(missing);
        const query = tsQueryName(design.kvlm);
        await expect(call(module, query.run, client, query.params)).rejects.toMatchObject(missing);
        // Another library whose name the design's starts with is not the design's.
        await client.sendCommand([
            'FUNCTION',
            'LOAD',
            "#!lua name=kvmod_tournament_other\nredis.register_function('kvmod_other_f', function() return 1 end)",
        ]);
        await expect(call(module, 'checkServer', client)).rejects.toMatchObject(missing);
        expect(await call(module, 'loadLibrary', client)).toBe('kvmod_tournament');
        await expect(call(module, 'checkServer', client)).resolves.toBeUndefined();
        const empty = await call<Page>(module, query.run, client, query.params);
        expect([empty.total, empty.rows, empty.hasNext]).toEqual([0, [], false]);

        // A server without FUNCTION / FCALL_RO (Redis 6): as the server answers it.
        const old = {
            sendCommand: async (argv: string[]) => {
                throw new ErrorReply(`ERR unknown command '${argv[0]}', with args beginning with: `);
            },
        };
        for (const [name, args] of [
            ['loadLibrary', []],
            ['checkServer', []],
            [query.run, [query.params]],
        ] as const)
            await expect(call(module, name, old, ...args)).rejects.toMatchObject({
                name: 'FunctionsMissingError',
                code: 'no-functions',
                message: expect.stringContaining('the redis-core design needs Redis 7 or later'),
            });
    });
});

/** The function of the design's first query, with parameters of its types. */
function tsQueryName(kvlm: KvlmModel): { run: string; params: Record<string, unknown> } {
    const query = buildTsCoreClientDesign(kvlm, {}).queries[0]!;
    const sample = {
        text: 'x',
        int: 1,
        float: 1.5,
        boolean: true,
        date: '2024-01-01',
        time: '10:00:00',
        datetime: '2024-01-01T10:00:00',
    };
    return { run: query.names.run, params: Object.fromEntries(query.params.map((p) => [p.prop, sample[p.type]])) };
}
