/**
 * The generated TypeScript client on the real engine (a private redis-server with RediSearch 1.2): every example's
 * instance data written through the GENERATED entity operations, every query run through the GENERATED page
 * iterator (pages of 3 rows) with parameter sets drawn from the data and compared with the oracle; the known 1.2
 * trap (rows with equal sort keys move between FT.SEARCH pages) beaten on 1,000 tied rows; index creation kept
 * idempotent and a different schema explained; the typed errors.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { buildRedisViewModel, type RedisDialect } from '../../src/generation/redis/redis-view-model.js';
import { buildTsClientDesign, type TsClientDesign } from '../../src/generation/typescript/typescript-design.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import {
    schemaOfCreate as loaderSchemaOfCreate,
    schemaOfInfo as loaderSchemaOfInfo,
} from '../../src/runtime/redisearch/redis-loader.js';
import { schemaOfCreate, schemaOfInfo } from '../../src/generation/redis/redis-index-schema.js';
import { bindRedisCommand } from '../../src/generation/redis/redis-commands.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { loadRuntimeDesign, type RuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verdictStatus, verifyQueries } from '../../src/runtime/verify.js';
import { repoRoot } from '../generation/generation-fixtures.js';
import { call, importClient as importGenerated, writeEntities, type ClientModule } from './generated-client.js';
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
}

let server: RedisTestServer;
let dir: string;
let client: Client;

/** Generates the client of a design (with its entity operations), transpiles it, imports it. */
function importClient(design: RuntimeDesign, dialect: string, name: string): Promise<ClientModule> {
    return importGenerated({ kvlm: design.kvlm, pidm: design.pidm }, { dialect }, join(dir, name, dialect));
}

/** The client's design, as the generator builds it. */
function clientDesign(design: RuntimeDesign, dialect: string): TsClientDesign {
    return buildTsClientDesign(
        buildRedisViewModel(design.kvlm, { dialect: dialect as RedisDialect }, { pidm: design.pidm }),
    );
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

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const probe = createServer();
        probe.once('error', reject);
        probe.listen(0, '127.0.0.1', () => {
            const address = probe.address();
            probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
        });
    });
}

beforeAll(async () => {
    server = await startRedis();
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-client-run-'));
});

afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the generated TypeScript client on RediSearch 1.2', () => {
    // The examples with natural keys (counter-key designs: test/runtime/entities/workload-engine.test.ts).
    test.each(EXAMPLES)(
        '%s: instance data written through the generated entity operations; every query, read page by page, answers like the oracle',
        async (example) => {
            const design = await loadRuntimeDesign(`examples/${example}/${example}.pidm`);
            const module = await importClient(design, 'redisearch1', example);
            const ts = clientDesign(design, 'redisearch1');
            client ??= await call<Client>(module, 'connect', server.url);
            await client.sendCommand(['FLUSHALL']);
            const created = await call<{ action: string }[]>(module, 'createIndexes', client);
            expect(created.map((o) => o.action)).toEqual(ts.collections.map(() => 'created'));
            await call(module, 'installEntityFunctions', client);

            const data = generateInstanceData(design.model, { scale: 40, seed: 3 });
            const written = await writeEntities(module, client, ts.entities!.entities, data);
            expect(written).toBeGreaterThan(100);
            // Idempotent: the same schema is kept.
            const again = await call<{ action: string }[]>(module, 'createIndexes', client);
            expect(again.map((o) => o.action)).toEqual(ts.collections.map(() => 'kept'));

            let multiPage = 0;
            const verdicts = await verifyQueries(
                design.pidm,
                design.kvlm,
                design.model,
                data,
                async (_collection, query, parameters) => {
                    const served = ts.queries.find((q) => q.redis.name === query.name)!;
                    const params = Object.fromEntries(served.params.map((p) => [p.prop, parameters[p.param]]));
                    const { rows, pages } = await collect(
                        call<AsyncIterable<Page>>(module, served.names.pages, client, params, { pageSize: 3 }) as never,
                    );
                    if (pages > 1) multiPage++;
                    return { rows: rows.map((row) => served.columns.map((column) => row[column.prop] as never)) };
                },
                { samples: 6, seed: 1, collation: redisearchCollation },
            );
            expect(verdicts.map((v) => `${v.query}: ${v.firstDifference ?? verdictStatus(v)}`)).toEqual(
                verdicts.map((v) => `${v.query}: match`),
            );
            expect(multiPage).toBeGreaterThan(0); // answers larger than one page went through the iterator
        },
    );

    test('1,000 rows with tied sort keys: the iterator returns every row once, in order (FT.SEARCH and FT.AGGREGATE)', async () => {
        const design = await loadRuntimeDesign('examples/airflights/airflights.pidm');
        const module = await importClient(design, 'redisearch1', 'airflights-ties');
        const ts = clientDesign(design, 'redisearch1');
        client ??= await call<Client>(module, 'connect', server.url);
        await client.sendCommand(['FLUSHALL']);
        await call(module, 'createIndexes', client);
        await call(module, 'installEntityFunctions', client);
        const cities = ['Lyon', 'paris', 'Nice', 'Brest', 'Agen'];
        const airports = ts.collections.find((c) => c.redis.name === 'Q2_airportsGivenCountrySortedByCities')!;
        const airport = (codeCAO: string, city: string, country: string) => ({
            codeCAO,
            nameAirport: `Airport ${codeCAO}`,
            city,
            country,
            landedflights: [],
            departedflights: [],
        });
        // 1,000 French airports (Q2's rows) and 7 Spanish ones, all through createAirport.
        await writeEntities(module, client, ts.entities!.entities, {
            Airport: [
                ...Array.from({ length: 1000 }, (_, i) =>
                    airport(`A${String(i).padStart(4, '0')}`, cities[i % cities.length]!, 'France'),
                ),
                ...Array.from({ length: 7 }, (_, j) => airport(`S${j}`, cities[j % cities.length]!, 'Spain')),
            ],
        });
        const fold = (text: unknown) => String(text).toLowerCase();
        const ordered = (rows: Record<string, unknown>[], key: (row: Record<string, unknown>) => string) =>
            rows.every((row, i) => i === 0 || key(rows[i - 1]!) <= key(row));

        // The trap this guards against: plain LIMIT paging of the same sorted FT.SEARCH repeats and misses rows.
        const naive = new Set<string>();
        for (let offset = 0; offset < 1000; offset += 37) {
            const reply = (await client.sendCommand([
                'FT.SEARCH',
                airports.redis.physicalIndex,
                '@country:{France}',
                'RETURN',
                '1',
                'codeCAO',
                'SORTBY',
                'city',
                'ASC',
                'LIMIT',
                String(offset),
                '37',
            ])) as unknown[];
            for (let i = 1; i < reply.length; i += 2) naive.add(String(reply[i]));
        }
        expect(naive.size).toBeLessThan(1000);

        const first = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'France' },
            {
                pageSize: 37,
            },
        );
        expect([first.total, first.rows.length, first.hasNext]).toEqual([1000, 37, true]);
        const search = await collect(
            call<AsyncIterable<Page>>(
                module,
                'Q2_airportsGivenCountrySortedByCitiesPages',
                client,
                { country: 'France' },
                {
                    pageSize: 37,
                },
            ) as never,
        );
        expect(search.pages).toBe(28);
        const last = await call<Page>(
            module,
            'Q2_airportsGivenCountrySortedByCities',
            client,
            { country: 'France' },
            { offset: 990, pageSize: 37 },
        );
        expect([last.total, last.offset, last.rows.length, last.hasNext]).toEqual([1000, 990, 10, false]);
        expect(new Set(search.rows.map((r) => r.codeCAO)).size).toBe(1000);
        expect(ordered(search.rows, (r) => fold(r.city))).toBe(true);

        // FT.AGGREGATE (Q5: sorted by country then city, both tied) is paged by LIMIT: 1.2 breaks its ties by document id.
        // 1,000 passengers on 7 flights of one day, from French and Spanish airports (Q5's rows: tied sort keys).
        await writeEntities(module, client, ts.entities!.entities, {
            Aircraft: [{ registrationNumber: 'F-GKXA', model: 'A320', capacity: 180, flights: [] }],
            Flight: Array.from({ length: 7 }, (_, j) => ({
                code: `F${j}`,
                departureTime: '08:30:00',
                arrivalTime: '10:30:00',
                departureDate: '2024-05-01',
                arrivalDate: '2024-05-01',
                level: j,
                registeredPositions: [],
                sitesAccessed: [],
                registeredPersons: [],
                usedAircraft: 'F-GKXA',
                origin: j % 2 === 0 ? `A000${j}` : `S${j}`,
                destination: 'A0999',
            })),
            Passenger: Array.from({ length: 1000 }, (_, i) => ({
                idPassport: `P${i}`,
                firstname: `First ${i}`,
                lastname: `Last ${i}`,
                birthdate: '1990-01-01',
                sex: 'F',
                nationality: 'FR',
                flights: [`F${i % 7}`],
                accessedSites: [],
            })),
        });
        const aggregate = await collect(
            call<AsyncIterable<Page>>(
                module,
                'Q5_passengersDepartingGivenPeriodPages',
                client,
                { departureDate: '2024-05-01' },
                { pageSize: 37 },
            ) as never,
        );
        expect(aggregate.pages).toBe(28);
        expect(new Set(aggregate.rows.map((r) => `${r.idPassport}/${r.FL_code}`)).size).toBe(1000);
        expect(ordered(aggregate.rows, (r) => `${fold(r.Origin_country)}\u0000${fold(r.Origin_city)}`)).toBe(true);
        expect(aggregate.rows[0]).toMatchObject({
            Origin_country: 'France',
            FL_departureTime: '08:30:00',
            birthdate: '1990-01-01',
        });

        // Keys, deletes.
        expect(call(module, 'keyOfQ2_airportsGivenCountrySortedByCities', { codeCAO: 'a:b%c' })).toBe(
            'Q2_airportsGivenCountrySortedByCities_9cea6f:a%3Ab%25c',
        );
        await call(module, 'deleteAirport', client, 'A0007');
        const after = await call<Page>(module, 'Q2_airportsGivenCountrySortedByCities', client, { country: 'France' });
        expect([after.total, after.rows.length, after.hasNext]).toEqual([999, 999, false]);
    });

    test('index creation keeps the same schema, explains a different one; queries without an index are a MissingIndexError', async () => {
        const design = await loadRuntimeDesign('examples/airflights/airflights.pidm');
        const module = await importClient(design, 'redisearch1', 'airflights-indexes');
        client ??= await call<Client>(module, 'connect', server.url);
        await client.sendCommand(['FLUSHALL']);
        await expect(
            call(module, 'Q1_aircraftsCapacityWithin', client, { capacity: 1, capacity_2: 2 }),
        ).rejects.toMatchObject({
            name: 'MissingIndexError',
            code: 'missing-index',
            message:
                'the index Q1_aircraftsCapacityWithin does not exist on the server: call createIndexes(client) first',
        });
        // The design's physical index (stable name + storage signature) exists with another schema.
        await client.sendCommand(['FT.CREATE', 'Q1_aircraftsCapacityWithin_117106', 'SCHEMA', 'capacity', 'TAG']);
        await expect(call(module, 'createIndexes', client)).rejects.toMatchObject({
            name: 'IndexSchemaError',
            code: 'index-differs',
            message:
                "the index Q1_aircraftsCapacityWithin_117106 exists with another schema (the design needs capacity NUMERIC; the server's index has capacity TAG SEPARATOR=,): " +
                'recreate it with dropIndexes(client) then createIndexes(client) (dropping deletes its rows), or run `kvmod load <model> --recreate`',
        });
        const dropped = await call<string[]>(module, 'dropIndexes', client);
        expect(dropped).toEqual(['Q1_aircraftsCapacityWithin_117106']);
        const created = await call<{ action: string }[]>(module, 'createIndexes', client);
        expect(created.every((o) => o.action === 'created')).toBe(true);
        // The client compares schemas as `kvmod load` does: same canonical specs from FT.CREATE and from FT.INFO.
        for (const collection of buildRedisViewModel(design.kvlm, { dialect: 'redisearch1' }).collections) {
            const create = bindRedisCommand(collection.create, {});
            const info = await client.sendCommand(['FT.INFO', collection.physicalIndex]);
            expect(schemaOfInfo(info)).toEqual(schemaOfCreate(create));
        }
        // One comparison for both: the loader uses the very functions the client ships.
        expect([loaderSchemaOfCreate, loaderSchemaOfInfo]).toEqual([schemaOfCreate, schemaOfInfo]);
        const empty = await call<Page>(module, 'Q1_aircraftsCapacityWithin', client, { capacity: 1, capacity_2: 2 });
        expect([empty.total, empty.rows, empty.hasNext]).toEqual([0, [], false]);
    });

    test('typed errors: a refused connection, a server without the search module, the wrong dialect', async () => {
        const design = await loadRuntimeDesign('examples/tournament/tournament.pidm');
        const rs1 = await importClient(design, 'redisearch1', 'tournament-errors');
        const rs2 = await importClient(design, 'redisearch2', 'tournament-errors');
        const port = await freePort();
        await expect(call(rs1, 'connect', `redis://:secret@127.0.0.1:${port}`)).rejects.toMatchObject({
            name: 'ConnectionRefusedError',
            code: 'connection-refused',
            message: expect.stringMatching(
                new RegExp(`^cannot connect to redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: .*ECONNREFUSED`),
            ),
        });
        client ??= await call<Client>(rs1, 'connect', server.url);
        await expect(call(rs2, 'createIndexes', client)).rejects.toMatchObject({
            name: 'WrongDialectError',
            message:
                'this client was generated for redisearch2, but the server runs RediSearch 1.2.0 (redisearch1): regenerate it with --dialect redisearch1',
        });
        await expect(call(rs1, 'checkServer', client)).resolves.toEqual({ version: 10200 });
        const plain = await startRedis({ search: false });
        try {
            const other = await call<Client>(rs1, 'connect', plain.url);
            try {
                await expect(call(rs1, 'checkServer', other)).rejects.toMatchObject({
                    name: 'SearchModuleMissingError',
                    code: 'no-search-module',
                });
            } finally {
                await other.close();
            }
        } finally {
            await plain.stop();
        }
    });
});
