/**
 * The generated client's entity operations on the real engine (a private redis-server with RediSearch 1.2), for the
 * shop model (`[1]`, `[0..1]` and `[*]` references): create, patch, get, reference operations and delete through
 * the GENERATED functions, the rows asserted through the client's own queries, and the refusals with their codes
 * (`entity.not-found`, `entity.still-referenced` with referrers, `entity.unservable-value` refused before sending,
 * `entity.conflict` with ifVersion) writing nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { loadTexts } from '../../src/pipeline/load.js';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { repoRoot } from '../generation/generation-fixtures.js';
import { SHOP_PIDM } from './entities/entity-fixtures.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { call, importClient, type ClientModule } from './generated-client.js';

interface Client {
    sendCommand(args: string[]): Promise<unknown>;
    close(): Promise<void>;
}

interface Page {
    rows: Record<string, unknown>[];
    total: number;
}

let server: RedisTestServer;
let dir: string;
let client: Client;
let shop: ClientModule;

/** Every key and its content (a digest of the server): a refused operation leaves it equal. */
async function snapshot(): Promise<string> {
    const keys = ((await client.sendCommand(['KEYS', '*'])) as string[]).sort();
    const parts: string[] = [];
    for (const key of keys) {
        const type = String(await client.sendCommand(['TYPE', key]));
        parts.push(key, type, type === 'hash' ? JSON.stringify(await client.sendCommand(['HGETALL', key])) : '');
    }
    return parts.join('\n');
}

async function rows(query: string, params: object): Promise<Record<string, unknown>[]> {
    const page = await call<Page>(shop, query, client, params);
    return page.rows;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string; referrers?: unknown }> {
    try {
        await promise;
    } catch (error) {
        const e = error as { name: string; code: string; message: string; referrers?: unknown };
        expect(e.name).toBe('EntityError');
        return { code: e.code, message: e.message, ...(e.referrers === undefined ? {} : { referrers: e.referrers }) };
    }
    throw new Error('the operation was not refused');
}

beforeAll(async () => {
    server = await startRedis();
    await mkdir(join(repoRoot, '.kvmod-tmp'), { recursive: true });
    dir = await mkdtemp(join(repoRoot, '.kvmod-tmp', 'ts-client-entities-'));
    const workspace = await loadTexts([{ path: 'shop.pidm', text: SHOP_PIDM }]);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const kvlm = transformPidmToKvlm(pidm, { merge: 'safe', keyStrategy: 'natural' }).model;
    shop = await importClient({ kvlm, pidm }, { dialect: 'redisearch1' }, join(dir, 'shop'));
    client = await call<Client>(shop, 'connect', server.url);
    await call(shop, 'createIndexes', client);
    await call(shop, 'installEntityFunctions', client);
});

afterAll(async () => {
    await client?.close().catch(() => undefined);
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the generated entity operations on RediSearch 1.2', () => {
    test('create, patch, get, references and delete keep the query rows true; each refusal writes nothing', async () => {
        await call(shop, 'createPublisher', client, { code: 'ace', pname: 'Ace' });
        await call(shop, 'createPublisher', client, { code: 'tor', pname: 'Tor' });
        await call(shop, 'createTag', client, { name: 't1', label: 'SF' });
        await call(shop, 'createTag', client, { name: 't2', label: 'Classic' });
        const book = {
            isbn: 'b1',
            title: 'Dune',
            author: 'Herbert',
            rank: 1,
            price: 9.5,
            blurb: 'sand',
            tags: ['t1', 't2'],
            publisher: 'ace',
            sequelOf: null,
        };
        expect(await call(shop, 'createBook', client, book)).toMatchObject({ version: 1 });
        await call(shop, 'createBook', client, {
            ...book,
            isbn: 'b3',
            title: 'Messiah',
            rank: 3,
            tags: [],
            sequelOf: 'b1',
        });
        expect(await rows('Q3_booksWithTag', { tag: 't1' })).toEqual([
            { isbn: 'b1', title: 'Dune', author: 'Herbert', rank: 1, T_label: 'SF' },
        ]);

        // Rename: one patch; every row that copies the title follows (Q3 per tag, Q6, Q8 of the sequel).
        const renamed = await call<{ version: number }>(shop, 'updateBook', client, 'b1', { title: 'Dune I' });
        expect(renamed.version).toBe(2);
        expect((await rows('Q3_booksWithTag', { tag: 't2' })).map((r) => r.title)).toEqual(['Dune I']);
        expect(await rows('Q8_sequels', { isbn: 'b1' })).toEqual([{ title: 'Messiah', S_title: 'Dune I' }]);
        // An undefined property is no change: the rows stay, the other attributes too.
        await call(shop, 'updateBook', client, 'b1', { title: undefined, rank: 5 });
        expect(await call(shop, 'getBook', client, 'b1')).toEqual({ ...book, title: 'Dune I', rank: 5, version: 3 });
        expect(await call(shop, 'getBook', client, 'nope')).toBeNull();

        // References: [*] add/remove, [1] set, [0..1] unset.
        await call(shop, 'removeBookTags', client, 'b1', ['t1']);
        expect(await rows('Q3_booksWithTag', { tag: 't1' })).toEqual([]);
        await call(shop, 'addBookTags', client, 'b3', ['t1']);
        expect((await rows('Q3_booksWithTag', { tag: 't1' })).map((r) => r.isbn)).toEqual(['b3']);
        await call(shop, 'setBookPublisher', client, 'b3', 'tor');
        expect(
            (await rows('Q6_booksOfAuthor', { author: 'Herbert', price: 100 })).map((r) => [r.title, r.P_pname]),
        ).toEqual([
            ['Messiah', 'Tor'],
            ['Dune I', 'Ace'],
        ]);
        await call(shop, 'setBookSequelOf', client, 'b3', null);
        expect(await rows('Q8_sequels', { isbn: 'b1' })).toEqual([]);

        // Refusals: nothing written.
        const before = await snapshot();
        expect(await refusal(call(shop, 'updateBook', client, 'b9', { title: 'x' }))).toMatchObject({
            code: 'entity.not-found',
        });
        expect(await refusal(call(shop, 'deletePublisher', client, 'ace'))).toEqual({
            code: 'entity.still-referenced',
            message: expect.any(String),
            referrers: [{ entity: 'Book', reference: 'publisher', count: 1, sample: ['b1'] }],
        });
        expect(await refusal(call(shop, 'updateBook', client, 'b1', { price: 0.1 }))).toMatchObject({
            code: 'entity.unservable-value',
        });
        expect(await refusal(call(shop, 'updateBook', client, 'b1', { rank: 7 }, { ifVersion: 2 }))).toMatchObject({
            code: 'entity.conflict',
        });
        expect(await refusal(call(shop, 'createBook', client, { ...book, isbn: 'b4', tags: ['t9'] }))).toMatchObject({
            code: 'entity.missing-target',
        });
        expect(await refusal(call(shop, 'createBook', client, book))).toMatchObject({ code: 'entity.exists' });
        expect(await snapshot()).toBe(before);

        // The version an ifVersion names: the one get reads.
        const { version } = await call<{ version: number }>(shop, 'getBook', client, 'b1');
        await call(shop, 'updateBook', client, 'b1', { rank: 7 }, { ifVersion: version });

        // Delete: one call; its rows go.
        await call(shop, 'deleteBook', client, 'b3');
        expect(await rows('Q3_booksWithTag', { tag: 't1' })).toEqual([]);
        expect((await rows('Q6_booksOfAuthor', { author: 'Herbert', price: 100 })).map((r) => r.title)).toEqual([
            'Dune I',
        ]);
        expect(await call(shop, 'getBook', client, 'b3')).toBeNull();
        // Detach: a tag still listed is removed from its books' lists in the same call.
        await call(shop, 'deleteTag', client, 't2', { detach: true });
        expect(await call(shop, 'getBook', client, 'b1')).toMatchObject({ tags: [] });
        expect(await rows('Q3_booksWithTag', { tag: 't2' })).toEqual([]);
    });
});
