/**
 * `kvmod migrate` on the real engine (a private redis-server with RediSearch 1.2): for each model edit of the issue,
 * the old design is loaded with data and migrated while a reader runs the old and the new design's queries in a
 * loop; every answer is compared with the oracle of the design that asked, whenever the index that answered
 * belongs to that design (the reader learns which index answered inside the same Lua call that searched it).
 * Afterwards the new design answers like its oracle, no key of the old design is left, and a second run does
 * nothing; a migration stopped before any of its steps completes when run again, to the same end state.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { runDataGenerate } from '../../src/cli/data-actions.js';
import { main } from '../../src/cli/main.js';
import type { RedisQuery, RedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { indexInstanceData, readInstanceData, type InstanceData } from '../../src/runtime/instance-data.js';
import {
    loadMigrationDesigns,
    type MigrationDesigns,
    type MigrationSide,
} from '../../src/runtime/redisearch/migration/migration-design.js';
import { migrateOnRedis, type MigrationStepEvent } from '../../src/runtime/redisearch/migration/migration-run.js';
import { connectRedis, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { runEngineQuery } from '../../src/runtime/redisearch/redis-query.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { materializeModel, type MaterializedCollection } from '../../src/runtime/materialize.js';
import { loadIntoRedis } from '../../src/runtime/redisearch/redis-loader.js';
import { inMemoryExecutor, verifyQueries, type QueryExecutor } from '../../src/runtime/verify.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const BOOKS = 'examples/book-ratings/book-ratings.pidm';

let server: RedisTestServer;
let dir: string;
let link: RedisLink;

/** An edit of the book-ratings model: the old and the new design's files and data. */
interface Edit {
    name: string;
    from: string;
    to: string;
    fromData: string;
    toData: string;
}

async function dataFor(model: string, name: string): Promise<string> {
    const path = join(dir, `${name}.json`);
    await runDataGenerate({ model, scale: 12, seed: 5, output: path }, memoryIo());
    return path;
}

/** Writes `book-ratings.pidm` with an edit into its own folder (the database name comes from the file name). */
async function edited(name: string, change: (text: string) => string): Promise<string> {
    const folder = join(dir, name);
    await mkdir(folder, { recursive: true });
    const path = join(folder, 'book-ratings.pidm');
    const text = await readFile(BOOKS, 'utf8');
    const next = change(text);
    expect(next).not.toBe(text);
    await writeFile(path, next);
    return path;
}

function replaced(from: string | RegExp, to: string): (text: string) => string {
    return (text) => text.replace(from, to);
}

/** The edits of the issue, in the order `edits` makes them. */
const EDITS = [
    'add a SELECT attribute',
    'add a filter',
    'change an ORDER BY',
    'a merge disappears',
    'a merge appears',
    'remove a query',
    'rename an attribute',
];

async function edits(): Promise<Edit[]> {
    const data = await dataFor(BOOKS, 'books');
    const simple = async (name: string, change: (text: string) => string): Promise<Edit> => ({
        name,
        from: BOOKS,
        to: await edited(name, change),
        fromData: data,
        toData: data,
    });
    // The threshold: at 0.8 Q1 and Q7 merge (the committed design); at 1 they do not.
    const folder = join(dir, 'threshold');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'book-ratings.pidm'), await readFile(BOOKS, 'utf8'));
    expect(
        await main(
            ['transform', join(folder, 'book-ratings.pidm'), '--threshold', '1', '-o', join(folder, 'split')],
            memoryIo(),
        ),
    ).toBe(0);
    const split = join(folder, 'split', 'book-ratings.kvlm');
    const renamed = await edited('rename', (text) => text.replace(/\btitle\b/g, 'name'));
    return [
        await simple(
            'add a SELECT attribute',
            replaced('SELECT isbn, title, author, rank\n', 'SELECT isbn, title, author, rank, price\n'),
        ),
        await simple('add a filter', replaced('WHERE author = "?"\n', 'WHERE author = "?" and rank >= "?minRank"\n')),
        await simple('change an ORDER BY', replaced('ORDER BY published ASC', 'ORDER BY rank DESC')),
        { name: 'a merge disappears', from: BOOKS, to: split, fromData: data, toData: data },
        { name: 'a merge appears', from: split, to: BOOKS, fromData: data, toData: data },
        await simple('remove a query', replaced(/query Q5_booksAbovePrice:[^]*?ORDER BY price DESC\n/, '')),
        {
            name: 'rename an attribute',
            from: BOOKS,
            to: renamed,
            fromData: data,
            toData: await dataFor(renamed, 'renamed'),
        },
    ];
}

/** Every key of the server with its value (hashes and strings), sorted: what "the same end state" means. */
async function dump(): Promise<string[]> {
    const lines: string[] = [];
    for (const key of (await link.send(['KEYS', '*'])) as string[]) {
        const type = await link.send(['TYPE', key]);
        if (type === 'hash') {
            const fields = (await link.send(['HGETALL', key])) as string[];
            const pairs: string[] = [];
            for (let i = 0; i < fields.length; i += 2) pairs.push(`${fields[i]}=${fields[i + 1]}`);
            lines.push(`${key} ${pairs.sort().join(' ')}`);
        } else if (type === 'string') lines.push(`${key} = ${String(await link.send(['GET', key]))}`);
        else lines.push(`${key} (${String(type)})`);
    }
    return lines.sort();
}

/** The designs of each edit, loaded once (parsing and transforming is most of a migration's time here). */
const loaded = new Map<Edit, Promise<MigrationDesigns>>();
function designsOf(edit: Edit): Promise<MigrationDesigns> {
    if (!loaded.has(edit)) {
        const options = {
            fromPath: edit.from,
            toPath: edit.to,
            dataPath: edit.toData,
            dialect: 'redisearch1' as const,
        };
        loaded.set(edit, loadMigrationDesigns(options));
    }
    return loaded.get(edit)!;
}

/** The old design's rows, by edit. */
const oldRows = new Map<Edit, MaterializedCollection[]>();

/** An empty server holding the old design and its data, loaded as `kvmod load` loads it. */
async function loadOld(edit: Edit): Promise<void> {
    await link.send(['FLUSHALL']);
    const { from } = await designsOf(edit);
    if (!oldRows.has(edit)) {
        const data = await readInstanceData(edit.fromData, from.design!.model);
        oldRows.set(edit, materializeModel(from.design!.kvlm, data, indexInstanceData(from.design!.model, data)));
    }
    await loadIntoRedis(link, from.view, oldRows.get(edit)!);
}

async function migrate(
    edit: Edit,
    beforeStep?: (step: MigrationStepEvent) => void | Promise<void>,
    onProgress?: (done: number, total: number) => void,
) {
    return migrateOnRedis({
        designs: await designsOf(edit),
        fromPath: edit.from,
        toPath: edit.to,
        dataPath: edit.toData,
        dialect: 'redisearch1',
        redisUrl: server.url,
        beforeStep,
        onProgress,
        batchSize: onProgress ? 5 : undefined,
    });
}

/**
 * Runs a design query like an application (the generated `EVAL` resolving the pointer key), but through a script
 * that also returns the index it resolved, in the same atomic call.
 */
const REPORTING_LUA = [
    "local index = redis.call('GET', KEYS[1])",
    'if not index then return {false} end',
    'return {index, redis.call(ARGV[1], index, unpack(ARGV, 2))}',
].join('\n');

class NotServed extends Error {}

/** A link that runs pointer-resolving queries through `REPORTING_LUA` and records the indexes that answered. */
function reportingLink(base: RedisLink, answered: Set<string>): RedisLink {
    return {
        url: base.url,
        close: () => base.close(),
        async send(argv) {
            if (argv[0] !== 'EVAL') return base.send(argv);
            const reply = (await base.send(['EVAL', REPORTING_LUA, ...argv.slice(2)])) as unknown[];
            if (reply[0] === null || reply[0] === undefined) throw new NotServed('no index behind the stable name');
            answered.add(String(reply[0]));
            return reply[1];
        },
    };
}

/** What the reader saw. */
interface ReaderStats {
    rounds: number;
    /** Answers checked against the oracle, per design side and collection. */
    checked: Map<string, number>;
    /** Answers from an index of the other design (a query of the design not being served). */
    otherDesign: number;
    /** Mismatches and errors, described. */
    wrong: string[];
}

function readerExecutor(
    side: 'old' | 'new',
    view: RedisViewModel,
    reader: RedisLink,
    fallback: QueryExecutor,
    stats: ReaderStats,
): QueryExecutor {
    return async (collection, query, parameters) => {
        const design = view.collections.find((c) => c.name === collection.name)!;
        const served: RedisQuery = design.queries.find((q) => q.name === query.name)!;
        const answered = new Set<string>();
        try {
            const answer = await runEngineQuery(reportingLink(reader, answered), served, parameters);
            if (answered.size === 1 && answered.has(design.physicalIndex)) {
                const key = `${side} ${collection.name}`;
                stats.checked.set(key, (stats.checked.get(key) ?? 0) + 1);
                return { rows: answer.rows };
            }
            if (answered.size > 1) stats.wrong.push(`${side} ${query.name}: pages from ${[...answered].join(', ')}`);
        } catch (error) {
            if (!(error instanceof NotServed) && answered.has(design.physicalIndex)) throw error;
        }
        // The other design's index answered (or none): this design is not the one served; nothing to compare.
        stats.otherDesign++;
        return fallback(collection, query, parameters);
    };
}

/** Reads old and new queries in a loop until `stop` resolves; verify counts every wrong answer as a mismatch. */
async function readLoop(
    sides: { side: 'old' | 'new'; design: MigrationSide; data: InstanceData }[],
    stats: ReaderStats,
    stopped: () => boolean,
): Promise<void> {
    const reader = await connectRedis(server.url);
    try {
        while (!stopped()) {
            for (const { side, design, data } of sides) {
                const { pidm, kvlm, model } = design.design!;
                const execute = readerExecutor(
                    side,
                    design.view,
                    reader,
                    inMemoryExecutor(model, data, redisearchCollation),
                    stats,
                );
                const verdicts = await verifyQueries(pidm, kvlm, model, data, execute, {
                    samples: 2,
                    seed: stats.rounds + 1,
                    collation: redisearchCollation,
                });
                for (const v of verdicts)
                    if (v.mismatches > 0) stats.wrong.push(`${side} ${v.query}: ${v.firstDifference}`);
            }
            stats.rounds++;
        }
    } finally {
        await reader.close();
    }
}

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-migrate-'));
    link = await connectRedis(server.url);
});

afterAll(async () => {
    await link?.close();
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
});

describe('kvmod migrate on RediSearch 1.2', () => {
    let all: Edit[];
    beforeAll(async () => {
        all = await edits();
    });

    test.each(EDITS)(
        '%s: migrates online, the reader never sees a wrong answer, the new design answers like its oracle, no old key is left, a second run does nothing',
        async (name) => {
            const edit = all.find((e) => e.name === name)!;
            await loadOld(edit);
            const designs = await designsOf(edit);
            const fromData = await readInstanceData(edit.fromData, designs.from.design!.model);
            const stats: ReaderStats = { rounds: 0, checked: new Map(), otherDesign: 0, wrong: [] };
            let done = false;
            const reading = readLoop(
                [
                    { side: 'old', design: designs.from, data: fromData },
                    { side: 'new', design: designs.to, data: designs.data!.data },
                ],
                stats,
                () => done,
            );
            // Each step waits for a full round of the reader, so that every phase (before the switch, between the switch
            // and the drops, after) is read at least once.
            const waitForRound = async () => {
                const target = stats.rounds + 1;
                while (stats.rounds < target && stats.wrong.length === 0) await new Promise((r) => setTimeout(r, 5));
            };
            let result;
            try {
                await waitForRound();
                result = await migrate(edit, waitForRound);
                await waitForRound();
            } finally {
                done = true;
                await reading;
            }
            expect(stats.wrong).toEqual([]);
            expect(result.performed.length).toBeGreaterThan(0);
            // Every collection the edit changes was read from its old index before the switch and its new one after.
            for (const change of designs.plan.collections) {
                if (change.change === 'kept') continue;
                if (
                    change.oldIndex &&
                    designs.from.view.collections.find((c) => c.name === change.name)!.queries.length > 0
                )
                    expect(stats.checked.get(`old ${change.name}`)).toBeGreaterThan(0);
                if (change.newIndex) expect(stats.checked.get(`new ${change.name}`)).toBeGreaterThan(0);
            }

            // The new design answers like its oracle, on the migrated server (not reloaded).
            const executor: QueryExecutor = async (collection, query, parameters) => {
                const served = designs.to.view.collections
                    .find((c) => c.name === collection.name)!
                    .queries.find((q) => q.name === query.name)!;
                return { rows: (await runEngineQuery(link, served, parameters)).rows };
            };
            const { pidm, kvlm, model } = designs.to.design!;
            const verdicts = await verifyQueries(pidm, kvlm, model, designs.data!.data, executor, {
                samples: 5,
                seed: 1,
                collation: redisearchCollation,
            });
            expect(verdicts.filter((v) => v.mismatches > 0)).toEqual([]);
            expect(verdicts.reduce((n, v) => n + v.rowsCompared, 0)).toBeGreaterThan(0);

            // No key of the old design is left: keys name only the new design's indexes and pointer keys.
            const newIndexes = new Set(designs.to.view.collections.map((c) => c.physicalIndex));
            const oldOnly = designs.from.view.collections.map((c) => c.physicalIndex).filter((p) => !newIndexes.has(p));
            const keys = (await link.send(['KEYS', '*'])) as string[];
            expect(keys.filter((k) => oldOnly.some((p) => k.includes(p)))).toEqual([]);
            expect(keys.filter((k) => k.startsWith('kvmod:index:')).sort()).toEqual(
                designs.to.view.collections.map((c) => c.pointerKey).sort(),
            );

            const before = await dump();
            expect((await migrate(edit)).performed).toEqual([]);
            expect(await dump()).toEqual(before);
        },
    );

    test('a migration stopped before any of its steps (or in the middle of its writes) completes when run again, to the same end state', async () => {
        const edit = all.find((e) => e.name === 'a merge disappears')!;
        await loadOld(edit);
        const steps = (await migrate(edit)).performed;
        expect(steps.map((s) => s.action)).toEqual([
            'create-index',
            'write-rows',
            'create-index',
            'write-rows',
            'switch',
            'remove-name',
            'drop-index',
        ]);
        const end = await dump();
        for (let k = 0; k <= steps.length; k++) {
            await loadOld(edit);
            // k < steps: killed before step k; k = steps: killed in the middle of the first write, after one batch.
            let seen = 0;
            const killed =
                k < steps.length
                    ? migrate(edit, (step) => {
                          if (seen++ === k) throw new Error(`killed before ${step.action}`);
                      })
                    : migrate(edit, undefined, () => {
                          throw new Error('killed while writing');
                      });
            await expect(killed).rejects.toThrow(
                k < steps.length ? `killed before ${steps[k]!.action}` : 'killed while writing',
            );
            expect((await migrate(edit)).performed.length).toBeGreaterThan(0);
            expect(await dump()).toEqual(end);
            expect((await migrate(edit)).performed).toEqual([]);
        }
    });

    test('plan prints the steps; a plan whose data lacks an attribute the new design needs stops migrate before the server is touched', async () => {
        const edit = all.find((e) => e.name === 'add a SELECT attribute')!;
        const planned = memoryIo();
        expect(
            await main(
                ['plan', edit.from, edit.to, '--data', edit.toData, '--redis', server.url, '--format', 'json'],
                planned,
            ),
        ).toBe(0);
        const plan = JSON.parse(planned.stdout) as {
            dialect: string;
            steps: { action: string; rows: number | null }[];
        };
        expect(plan.dialect).toBe('redisearch1');
        expect(plan.steps.map((s) => s.action)).toEqual(['create-index', 'write-rows', 'switch', 'drop-index']);

        await loadOld(edit);
        const before = await dump();
        const needsIsbn13 = await edited('needs-isbn13', (text) =>
            text
                .replace('  id isbn\n', '  id isbn\n  isbn13 text\n')
                .replace('SELECT isbn, title, author, rank\n', 'SELECT isbn, isbn13, title, author, rank\n'),
        );
        const io = memoryIo();
        expect(
            await main(['migrate', edit.from, needsIsbn13, '--data', edit.fromData, '--redis', server.url], io),
        ).toBe(1);
        expect(io.stderr).toMatch(
            /^kvmod: the migration cannot run online, nothing was changed: the data does not fit the new design: \S+books\.json does not fit the model:\n\S+books\.json: Book\[0\] \(id "BO001"\)\.isbn13: is missing\n/,
        );
        expect(await dump()).toEqual(before);
        const planIo = memoryIo();
        expect(
            await main(['plan', edit.from, needsIsbn13, '--data', edit.fromData, '--dialect', 'redisearch1'], planIo),
        ).toBe(1);
        expect(planIo.stdout).toContain('Cannot run online:');
        expect(planIo.stderr).toMatch(/^kvmod: the migration cannot run online: the data does not fit the new design/);
    });

    test('with one design and --redis, plan and migrate read the old design back from the server (load and migrate record it)', async () => {
        const edit = all.find((e) => e.name === 'add a SELECT attribute')!;
        await link.send(['FLUSHALL']);
        const none = memoryIo();
        expect(await main(['plan', edit.to, '--redis', server.url], none)).toBe(1);
        expect(none.stderr).toMatch(
            /^kvmod: redis:\/\/127\.0\.0\.1:\d+ records no design of database book_ratings \(from the file name .+\/book-ratings\.pidm; the model declares no `database`; kvmod load and kvmod migrate record it in kvmod:design:book_ratings\); give the old design as a file\n$/,
        );
        expect(await main(['load', edit.from, '--data', edit.fromData, '--redis', server.url], memoryIo())).toBe(0);
        const planned = memoryIo();
        expect(await main(['plan', edit.to, '--redis', server.url, '--format', 'json'], planned)).toBe(0);
        const { from } = await designsOf(edit);
        const plan = JSON.parse(planned.stdout) as {
            collections: { name: string; change: string; oldIndex: string }[];
        };
        const q3 = plan.collections.find((c) => c.name === 'Q3_booksWithTag')!;
        expect(q3.change).toBe('rebuilt');
        expect(q3.oldIndex).toBe(from.view.collections.find((c) => c.name === 'Q3_booksWithTag')!.physicalIndex);
        const migrated = memoryIo();
        expect(await main(['migrate', edit.to, '--data', edit.toData, '--redis', server.url], migrated)).toBe(0);
        expect(migrated.stdout.split('\n').filter(Boolean)).toHaveLength(5);
        expect(migrated.stdout).toMatch(
            /^database book_ratings: from the file name .+\/book-ratings\.pidm; the model declares no `database`\n/,
        );
        const after = memoryIo();
        expect(await main(['plan', edit.to, '--redis', server.url], after)).toBe(0);
        expect(after.stdout).toContain('Nothing to do');
    });
});
