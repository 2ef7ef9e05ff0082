/**
 * A generated client's queries against a server that another design serves (issue 30, "the application and the
 * design agree"), on the real engine (a private redis-server with RediSearch 1.2): after `kvmod migrate`, the old
 * client's query of a changed collection fails with an `OtherDesignError` naming both designs, never answering from
 * the new design's index; its queries of unchanged collections, and every query of the new client, still answer.
 * The check is part of the query's own script (no extra round trip); the RediSearch 2.x script is run here on 1.2's
 * FT.INFO, which reports `index_name` the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorReply } from 'redis';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import { PINNED_ALIAS_QUERY_LUA } from '../../src/generation/redis/redis-dialect-strategy.js';
import type { RedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import {
    connectClient,
    OtherDesignError,
    readPage,
    type ClientQuery,
} from '../../src/generation/typescript/client-runtime/kvmod-client.js';
import { buildTsClientDesign } from '../../src/generation/typescript/typescript-design.js';
import { queryData } from '../../src/generation/typescript/typescript-emitter.js';
import { loadMigrationDesigns } from '../../src/runtime/redisearch/migration/migration-design.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const BOOKS = 'examples/book-ratings/book-ratings.pidm';

let server: RedisTestServer;
let dir: string;
let client: Awaited<ReturnType<typeof connectClient>>;

/** The queries of the client generated for a design, as its module hands them to the runtime. */
function clientQueries(view: RedisViewModel): Record<string, ClientQuery> {
    const design = buildTsClientDesign(view);
    return Object.fromEntries(
        design.queries.map((q) => [q.redis.name, queryData(q, view.database) as unknown as ClientQuery]),
    );
}

async function refusal(promise: Promise<unknown>): Promise<OtherDesignError> {
    const error = await promise.then(
        () => null,
        (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OtherDesignError);
    return error as OtherDesignError;
}

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-other-design-'));
    client = await connectClient(server.url);
});

afterAll(async () => {
    await client?.quit();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a generated client's queries on a server another design serves (RediSearch 1.2)", () => {
    test("after a migration the old client's query of a changed collection fails naming both designs; its other queries and the new client's answer", async () => {
        const data = join(dir, 'books.json');
        await runDataGenerate({ model: BOOKS, scale: 12, seed: 5, output: data }, memoryIo());
        const folder = join(dir, 'select');
        await mkdir(folder, { recursive: true });
        const to = join(folder, 'book-ratings.pidm');
        const text = await readFile(BOOKS, 'utf8');
        await writeFile(
            to,
            text.replace('SELECT isbn, title, author, rank\n', 'SELECT isbn, title, author, rank, price\n'),
        );
        const designs = await loadMigrationDesigns({ fromPath: BOOKS, toPath: to, dialect: 'redisearch1' });
        const old = clientQueries(designs.from.view);
        const fresh = clientQueries(designs.to.view);
        const oldQ3 = old.Q3_booksWithTag!;
        const freshQ3 = fresh.Q3_booksWithTag!;
        const physical = (view: RedisViewModel, name: string) =>
            view.collections.find((c) => c.name === name)!.physicalIndex;
        const oldIndex = physical(designs.from.view, 'Q3_booksWithTag');
        const freshIndex = physical(designs.to.view, 'Q3_booksWithTag');
        expect(oldIndex).not.toBe(freshIndex);
        expect(physical(designs.from.view, 'Q1_booksByRank_Q7_bargainsOrTopRanked')).toBe(
            physical(designs.to.view, 'Q1_booksByRank_Q7_bargainsOrTopRanked'),
        );

        await client.sendCommand(['FLUSHALL']);
        expect(await main(['load', BOOKS, '--data', data, '--redis', server.url], memoryIo())).toBe(0);
        const tags = JSON.parse(await readFile(data, 'utf8')) as { Tag?: { name: string }[] };
        const tag = tags.Tag?.[0]?.name ?? 'sf';
        const before = await readPage<Record<string, unknown>>(client, oldQ3, { tag });
        expect(before.total).toBeGreaterThan(0);
        // Before the switch the new client is the one another design serves.
        const early = await refusal(readPage(client, freshQ3, { tag }));
        expect(early.message).toContain(`Q3_booksWithTag -> ${oldIndex} (this client's design: ${freshIndex})`);

        expect(await main(['migrate', BOOKS, to, '--redis', server.url], memoryIo())).toBe(0);

        const refused = await refusal(readPage(client, oldQ3, { tag }));
        expect(refused.code).toBe('other-design');
        expect(refused.collections).toEqual([{ name: 'Q3_booksWithTag', served: freshIndex, expected: oldIndex }]);
        expect(refused.message).toMatch(/^the server serves another design \(.*book-ratings\.pidm\), /);
        expect(refused.message).toContain(
            `, not the design this client was generated for: Q3_booksWithTag -> ${freshIndex} (this client's design: ${oldIndex}). ` +
                'Use the client generated from the design the server serves, or move the server with `kvmod migrate`',
        );
        // The whole-answer paging of a sorted 1.2 search asks again with a page as large as the answer: refused too.
        await refusal(readPage(client, oldQ3, { tag }, { pageSize: 1, offset: 1 }));

        const after = await readPage<Record<string, unknown>>(client, freshQ3, { tag });
        expect(after.total).toBe(before.total);
        expect(after.rows.map((row) => row.isbn)).toEqual(before.rows.map((row) => row.isbn));
        expect(after.rows.every((row) => typeof row.price === 'number')).toBe(true);
        // A collection both designs share answers either client alike.
        const q1 = await readPage<Record<string, unknown>>(client, old.Q1_booksByRank!, {}, { pageSize: 5 });
        expect(q1.total).toBeGreaterThan(0);
        expect(await readPage(client, fresh.Q1_booksByRank!, {}, { pageSize: 5 })).toMatchObject({
            rows: q1.rows,
            total: q1.total,
        });
    });

    test('a query of a collection the new design dropped fails naming both designs, not as a missing index to create', async () => {
        const data = join(dir, 'books.json');
        const folder = join(dir, 'removed');
        await mkdir(folder, { recursive: true });
        const to = join(folder, 'book-ratings.pidm');
        const text = await readFile(BOOKS, 'utf8');
        await writeFile(to, text.replace(/query Q5_booksAbovePrice:[^]*?ORDER BY price DESC\n/, ''));
        const designs = await loadMigrationDesigns({ fromPath: BOOKS, toPath: to, dialect: 'redisearch1' });
        const old = clientQueries(designs.from.view);
        await client.sendCommand(['FLUSHALL']);
        expect(await main(['load', BOOKS, '--data', data, '--redis', server.url], memoryIo())).toBe(0);
        expect((await readPage(client, old.Q5_booksAbovePrice!, { price: 0 })).total).toBeGreaterThan(0);
        expect(await main(['migrate', BOOKS, to, '--redis', server.url], memoryIo())).toBe(0);
        const refused = await refusal(readPage(client, old.Q5_booksAbovePrice!, { price: 0 }));
        expect(refused.message).toContain(
            `, not the design this client was generated for: Q5_booksAbovePrice -> (no index) (this client's design: ${old.Q5_booksAbovePrice!.physicalIndex}). `,
        );
    });

    test('a server that refuses search commands inside a script (several shards): the 2.x query goes to the alias directly, from then on', async () => {
        const designs = await loadMigrationDesigns({ fromPath: BOOKS, toPath: BOOKS, dialect: 'redisearch2' });
        const q1 = clientQueries(designs.from.view).Q1_booksByRank!;
        const sent: string[][] = [];
        // What a coordinator answers a search inside a script (redis.io, "Search commands in MULTI/EXEC transactions
        // and Lua scripts"); an empty answer otherwise.
        const coordinator = {
            sendCommand: async (argv: readonly string[]) => {
                sent.push([...argv]);
                if (argv[0] === 'EVAL')
                    throw new ErrorReply(
                        'ERR Error running script (call to f_1): @user_script:8: Cannot perform FT.SEARCH: Cannot block',
                    );
                return [0];
            },
        };
        for (let round = 0; round < 2; round++) expect((await readPage(coordinator as never, q1, {})).rows).toEqual([]);
        expect(sent.map((argv) => `${argv[0]} ${argv[argv[0] === 'EVAL' ? 3 : 1]}`)).toEqual([
            'EVAL Q1_booksByRank_Q7_bargainsOrTopRanked',
            'FT.SEARCH Q1_booksByRank_Q7_bargainsOrTopRanked',
            'FT.SEARCH Q1_booksByRank_Q7_bargainsOrTopRanked',
        ]);
        // The direct command is the one the script would have run, on the alias.
        const [script, direct] = [sent[0]!, sent[1]!];
        expect(direct).toEqual([script[5], script[3], ...script.slice(6)]);
    });

    test('the RediSearch 2.x query script refuses when the name it reads serves another index, and runs the query otherwise', async () => {
        await client.sendCommand(['FLUSHALL']);
        for (const index of ['served_a', 'other_b'])
            await client.sendCommand(['FT.CREATE', index, 'SCHEMA', 'name', 'TAG']);
        await client.sendCommand(['FT.ADD', 'served_a', 'a:1', '1.0', 'FIELDS', 'name', 'x']);
        const run = (name: string, expected: string) =>
            client.sendCommand([
                'EVAL',
                PINNED_ALIAS_QUERY_LUA,
                '0',
                name,
                expected,
                'FT.SEARCH',
                '*',
                'LIMIT',
                '0',
                '5',
            ]);
        expect(await run('served_a', 'served_a')).toEqual([1, 'a:1', ['name', 'x']]);
        await expect(run('served_a', 'other_b')).rejects.toThrow('other design: served_a serves served_a, not other_b');
        await expect(run('nosuch', 'served_a')).rejects.toThrow(/unknown index name/i);
    });
});
