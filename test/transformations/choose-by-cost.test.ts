/**
 * The cost policy (`--merge cost`, choose-by-cost.ts): the workload decides which collections share a collection,
 * the figures are explained, the annotations change no other policy's design, and every design it chooses answers
 * every query as the oracle does on a real engine and keeps every row true under entity operations.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printKvlm } from '../../src/language/kvlm/kvlm-printer.js';
import { explainDecisions } from '../../src/pipeline/transform.js';
import { buildViewModel } from '../../src/generation/generation-engine.js';
import { getGenerationTarget } from '../../src/generation/generation-targets.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { engineOf } from '../../src/runtime/engine-registry.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { loadRuntimeDesign } from '../../src/runtime/runtime-design.js';
import { verifyQueries } from '../../src/runtime/verify.js';
import { runWorkloadOnEngine } from '../../src/runtime/redis-entities/workload-engine.js';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { collectionsOfQueries } from '../../transformations/pidm-to-kvlm/index.js';
import { chooseByCost, costProgram } from '../../transformations/pidm-to-kvlm/choose-by-cost.js';
import { Workload } from '../../src/language/pidm/pidm-workload.js';
import {
    collectionCost,
    COPY,
    KEY,
    lookupCandidate,
    lookupCost,
    operationsCost,
    pinsEquality,
    readCost,
} from '../../transformations/pidm-to-kvlm/cost-model.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';
import { loadPidm } from './transformation-test-helpers.js';

/** HiGHS (WebAssembly), through its CommonJS entry: the part of its API these tests use. */
type HighsLoader = () => Promise<{
    solve(lp: string, options: object): { Status: string; Columns: Record<string, { Primal: number } | undefined> };
}>;
const loadHighs = createRequire(import.meta.url)('highs') as HighsLoader;

const bookRatings = readFileSync(new URL('../../examples/book-ratings/book-ratings.pidm', import.meta.url), 'utf8');
/** The book rating site without its workload block. */
const withoutWorkload = bookRatings.slice(0, bookRatings.indexOf('\n// The workload'));

/** The example with a read-heavy or a write-heavy workload in place of its own (examples/book-ratings/workloads). */
const variant = (name: string) =>
    readFileSync(new URL(`../../examples/book-ratings/workloads/${name}.pidm`, import.meta.url), 'utf8');
const workloadOf = (text: string) => text.slice(text.indexOf('\n// The workload'));
const READ_HEAVY = workloadOf(variant('read-heavy'));
const WRITE_HEAVY = workloadOf(variant('write-heavy'));

async function chosen(text: string) {
    const result = transformPidmToKvlm(await loadPidm(text), { merge: 'cost', databaseName: 'books' });
    return {
        result,
        collections: result.model.collections.map(
            (collection) => `${collection.name}: ${collection.queries.map((query) => query.name).join(', ')}`,
        ),
    };
}

describe('the cost policy', () => {
    test("the example's workload variants are the example with another workload block", () => {
        for (const name of ['read-heavy', 'write-heavy']) {
            const text = variant(name);
            expect(text.slice(0, text.indexOf('\n// The workload'))).toBe(withoutWorkload);
            expect(workloadOf(text)).toMatch(/^\n\/\/ The workload \(read by `--merge cost` only\): \w+-heavy\./);
        }
    });

    test('the variants declare the sizes bench:cost generates its data with, the same in both', async () => {
        for (const name of ['read-heavy', 'write-heavy']) {
            const workload = new Workload(await loadPidm(withoutWorkload + workloadOf(variant(name))));
            expect([workload.size('Book', 'tags'), workload.size('Book', 'comments')]).toEqual([10, 10]);
        }
    });

    test('a read-heavy and a write-heavy workload of the book rating site get different designs', async () => {
        const read = await chosen(withoutWorkload + READ_HEAVY);
        const write = await chosen(withoutWorkload + WRITE_HEAVY);
        // Reads pay for every field a wider row adds: the safe design's one merge goes, nothing else merges.
        expect(read.collections).toEqual([
            'Q1_booksByRank: Q1_booksByRank',
            'Q2_authorsOfTag: Q2_authorsOfTag',
            'Q3_booksWithTag: Q3_booksWithTag',
            'Q4_commentsOfBook: Q4_commentsOfBook',
            'Q5_booksAbovePrice: Q5_booksAbovePrice',
            'Q6_booksOfAuthor: Q6_booksOfAuthor',
            'Q7_bargainsOrTopRanked: Q7_bargainsOrTopRanked',
        ]);
        // Writes pay for every copy: the collections of one grain share one row per book (per book and tag).
        expect(write.collections).toEqual([
            'Q1_booksByRank_Q5_booksAbovePrice_Q6_booksOfAuthor_Q7_bargainsOrTopRanked: Q1_booksByRank, Q5_booksAbovePrice, Q6_booksOfAuthor, Q7_bargainsOrTopRanked',
            'Q2_authorsOfTag_Q3_booksWithTag: Q2_authorsOfTag, Q3_booksWithTag',
            'Q4_commentsOfBook: Q4_commentsOfBook',
        ]);
        expect(printKvlm(write.result.model)).toContain('merge cost threshold 0.8');
    });

    test('--explain shows each change the greedy took with its figures', async () => {
        const { result } = await chosen(withoutWorkload + WRITE_HEAVY);
        const text = explainDecisions(result.decisions, { merge: 'cost', threshold: 0.8 }, undefined, result.cost);
        expect(text.slice(text.indexOf('Cost decisions'))).toBe(
            [
                'Cost decisions (greedy from the safe design at threshold 0.8; time = reads + writes in field accesses per unit of the workload, a round trip = 10, an entity operation 15 whatever the design)',
                'change  of                                                                           time before  time after  reads after  writes after  memory after  queries',
                '------  ---------------------------------------------------------------------------  -----------  ----------  -----------  ------------  ------------  -----------------------------------------------------------------------------',
                'merge   Q2_authorsOfTag + Q3_booksWithTag                                                   8220        5440          140          5300          6250  Q2_authorsOfTag | Q3_booksWithTag',
                'merge   Q1_booksByRank_Q7_bargainsOrTopRanked + Q6_booksOfAuthor                            1285        1017          317           700           950  Q1_booksByRank, Q7_bargainsOrTopRanked | Q6_booksOfAuthor',
                'merge   Q1_booksByRank_Q6_booksOfAuthor_Q7_bargainsOrTopRanked + Q5_booksAbovePrice         1317        1167          467           700           950  Q1_booksByRank, Q6_booksOfAuthor, Q7_bargainsOrTopRanked | Q5_booksAbovePrice',
                'Safe design: time 15865 (reads 525, writes 15340), memory 17900',
                'Chosen design: time 12667 (reads 667, writes 12000), memory 12450',
                'Narrower collections with a lookup by identifier in the entity store (priced, not served by this target yet: its client does not join, so the choice never takes them)',
                'collection                       time now  time narrowed  reads narrowed  writes narrowed  memory narrowed  looks up',
                '-------------------------------  --------  -------------  --------------  ---------------  ---------------  --------------------',
                'Q2_authorsOfTag_Q3_booksWithTag      5440           4180             180             4000             4250  Book (author, title)',
                'Q4_commentsOfBook                    3060           2580              80             2500             4250  Comment (text)',
                '',
            ].join('\n'),
        );
    });

    test('every entity operation costs OPERATION whatever the design; a collection its index, a row its key', async () => {
        const pidm = await loadPidm(withoutWorkload + WRITE_HEAVY);
        const workload = new Workload(pidm);
        // update Book.rank 50, update Book.title 50, create Book 50, delete Book 50: one call of the entity Function each.
        expect(workload.operationRate()).toBe(200);
        expect(operationsCost(workload)).toEqual({ reads: 0, writes: 3000, time: 3000, memory: 0 });
        const q5 = collectionsOfQueries(pidm, []).find((c) => c.name === 'Q5_booksAbovePrice')!;
        expect(q5.fields.map((field) => field.name)).toEqual(['title', 'price']);
        // 100 books (the variant's count, the bench's data), one row each: its key and 2 fields; the index 250.
        expect(collectionCost(q5, workload).memory).toBe(250 + 100 * (1 + 2));
    });

    test('a narrower collection with a lookup by identifier is priced: one more round trip, no copy of a projected attribute', async () => {
        const pidm = await loadPidm(withoutWorkload + WRITE_HEAVY);
        const workload = new Workload(pidm);
        const q5 = collectionsOfQueries(pidm, []).find((c) => c.name === 'Q5_booksAbovePrice')!;
        const candidate = lookupCandidate(q5)!;
        // price is ranged and sorted: it stays; title is only projected: looked up in the entity store.
        expect(candidate.narrowed.fields.map((field) => field.name)).toEqual(['price']);
        expect(candidate.lookups).toEqual([{ entity: 'Book', fields: ['title'] }]);
        // As it is: a run (a range: no equality pins it) scans every row, a round trip and 100 × SCAN 0.2 × (key
        // + 2 fields); create 50 × (key + 2), delete 50 × key, update Book.title 50 × COPY 0.6 (an unindexed copy).
        expect(collectionCost(q5, workload)).toEqual({ reads: 70, writes: 230, time: 300, memory: 550 });
        // Narrowed: a run scans 100 rows of (key, price), then a round trip and a Book (key, title); a title change
        // writes no row of it.
        expect(lookupCost(candidate, workload)).toEqual({ reads: 62, writes: 150, time: 212, memory: 450 });
        // A collection whose fields are all indexed (or identifiers) has no narrower form.
        // Q7 filters on author, ranges price and rank, sorts on title: no narrower form.
        const q7 = collectionsOfQueries(pidm, []).find((c) => c.name === 'Q7_bargainsOrTopRanked')!;
        expect(lookupCandidate(q7)).toBe(undefined);
    });

    test('a narrower form cheaper than the chosen collection is shown, never chosen (no target joins)', async () => {
        const pidm = await loadPidm(withoutWorkload + WRITE_HEAVY);
        const choice = chooseByCost(collectionsOfQueries(pidm, []), 0.8, new Workload(pidm));
        const tags = choice.lookups.find((lookup) => lookup.collection === 'Q2_authorsOfTag_Q3_booksWithTag')!;
        expect(tags.narrowed.time).toBeLessThan(tags.materialized.time);
        const chosen = choice.collections.find((c) => c.name === 'Q2_authorsOfTag_Q3_booksWithTag')!;
        expect(chosen.fields.map((field) => field.attribute)).toContain('title');
    });

    test("a read pinned by an equality reads one instance's rows; a range read scans every row, so a merge that widens them costs it", async () => {
        const pidm = await loadPidm(withoutWorkload + READ_HEAVY);
        const workload = new Workload(pidm);
        const byName = new Map(collectionsOfQueries(pidm, []).map((c) => [c.name, c]));
        const pinned = (name: string) => pinsEquality(byName.get(name)!.queries[0].where);
        // Q6 (author = ?) and Q3 (T.name = ?) pin an equality; Q1 (no filter), Q5 (price > ?) and Q7 (an `or`, a
        // `not`) do not.
        expect(
            [
                'Q1_booksByRank',
                'Q3_booksWithTag',
                'Q5_booksAbovePrice',
                'Q6_booksOfAuthor',
                'Q7_bargainsOrTopRanked',
            ].map(pinned),
        ).toEqual([false, true, false, true, false]);
        const q1 = byName.get('Q1_booksByRank')!;
        // 100 books × SCAN 0.2 × (key + 5 fields) + a round trip, 100 runs; the one rank change: 1 row × (key + 2).
        expect(collectionCost(q1, workload)).toEqual({ reads: 100 * (10 + 120), writes: 3, time: 13003, memory: 850 });
        // A run of the same query over 3 more fields scans 20% of 3 more accesses per row.
        expect(readCost(q1.queries[0], 1, 100, 8) - readCost(q1.queries[0], 1, 100, 5)).toBeCloseTo(100 * 0.2 * 3, 9);
        // A pinned run reads its instance's rows whole, whatever the collection holds.
        const q6 = byName.get('Q6_booksOfAuthor')!;
        expect(readCost(q6.queries[0], 1, 100, 3)).toBe(10 + 4);
        expect(readCost(q6.queries[0], 1, 100000, 3)).toBe(10 + 4);
    });

    test('a copy of an unindexed attribute costs COPY a row, an indexed one KEY + 2 (its index entry moves)', async () => {
        const pidm = await loadPidm(withoutWorkload + WRITE_HEAVY);
        const workload = new Workload(pidm);
        const byName = new Map(collectionsOfQueries(pidm, []).map((c) => [c.name, c]));
        // Q6 copies title and rank, projected only (it filters on author, sorts on published); Q7 sorts on title and
        // ranges rank.
        const q6 = collectionCost(byName.get('Q6_booksOfAuthor')!, workload);
        const q7 = collectionCost(byName.get('Q7_bargainsOrTopRanked')!, workload);
        // create 50 × (key + 4 fields), delete 50 × key; rank and title 50 each × COPY (Q6) or × (key + 2) (Q7).
        expect(q6.writes).toBeCloseTo(50 * 5 + 50 + 100 * COPY, 9);
        expect(q7.writes).toBe(50 * 5 + 50 + 100 * 3);
        expect(COPY).toBeLessThan(KEY + 2);
    });

    test('the workload changes no design of the other policies', async () => {
        for (const merge of ['safe', 'paper', 'none'] as const) {
            const plain = transformPidmToKvlm(await loadPidm(withoutWorkload), { merge, databaseName: 'books' });
            const annotated = transformPidmToKvlm(await loadPidm(bookRatings), { merge, databaseName: 'books' });
            expect(printKvlm(annotated.model)).toBe(printKvlm(plain.model));
        }
    });
});

describe('the greedy against the exact choice (an integer program solved by HiGHS)', () => {
    const models: [string, () => string][] = [
        ['book-ratings, read-heavy', () => withoutWorkload + READ_HEAVY],
        ['book-ratings, write-heavy', () => withoutWorkload + WRITE_HEAVY],
        ...['airflights', 'book-ratings', 'tournament'].map((name): [string, () => string] => [
            `${name}, its own workload`,
            () => readFileSync(new URL(`../../examples/${name}/${name}.pidm`, import.meta.url), 'utf8'),
        ]),
    ];

    test.each(models)('%s: the greedy finds the optimum', async (_name, text) => {
        const pidm = await loadPidm(text());
        const collections = collectionsOfQueries(pidm, []);
        const workload = new Workload(pidm);
        const program = costProgram(collections, workload);
        const highs = await loadHighs();
        const solution = highs.solve(program.lp, { output_flag: false });
        expect(solution.Status).toBe('Optimal');
        const chosenGroups = program.groups
            .filter((_, i) => Math.round(solution.Columns[`x${i}`]?.Primal ?? 0) === 1)
            .map((group) => group.members.map((index) => collections[index].name).join(' + '));
        const optimum = program.groups.reduce(
            (sum, group, i) => sum + (Math.round(solution.Columns[`x${i}`]?.Primal ?? 0) === 1 ? group.cost.time : 0),
            0,
        );
        const greedy = chooseByCost(collections, 0.8, workload);
        // The greedy's total adds what every design pays alike (the entity operations' calls); the program leaves it out.
        expect(greedy.cost.time).toBeCloseTo(optimum + operationsCost(workload).time, 6);
        // Every collection in exactly one group of the optimum.
        expect(chosenGroups.join(' + ').split(' + ').sort()).toEqual(collections.map((c) => c.name).sort());
    });
});

describe('every design the cost policy chooses answers as the oracle does (RediSearch)', () => {
    let server: RedisTestServer;
    let folder: string;

    beforeAll(async () => {
        server = await startRedis();
        folder = mkdtempSync(join(tmpdir(), 'kvmod-cost-'));
    });

    afterAll(async () => {
        await server?.stop();
        if (folder) rmSync(folder, { recursive: true, force: true });
    });

    const cases: [string, () => string][] = [
        ['book-ratings, read-heavy', () => withoutWorkload + READ_HEAVY],
        ['book-ratings, write-heavy', () => withoutWorkload + WRITE_HEAVY],
        ...['airflights', 'book-ratings', 'tournament'].map((name): [string, () => string] => [
            `${name}, its own workload`,
            () => readFileSync(new URL(`../../examples/${name}/${name}.pidm`, import.meta.url), 'utf8'),
        ]),
    ];

    test.each(cases)('%s', async (name, text) => {
        const path = join(folder, `${name.replace(/\W+/g, '_')}.pidm`);
        writeFileSync(path, text());
        const design = await loadRuntimeDesign(path, { merge: 'cost' });
        expect(design.kvlm.policy).toBe('cost');
        const data = generateInstanceData(design.model, { scale: 12, seed: 5 });
        const engine = await engineOf(getGenerationTarget('redis'));
        let mismatches = -1;
        let verdicts = 0;
        await engine.use(async (typed) => {
            const session = await typed.connect({ urls: [server.url], timeoutSeconds: 10 });
            try {
                const view = await buildViewModel(typed.target, design, session.probe.options);
                await session.prepareSchema(view, 'fresh');
                const rows = materializeModel(design.kvlm, data, indexInstanceData(design.model, data));
                await session.writeRows(view, rows, { batchSize: 100 });
                const results = await verifyQueries(
                    design.pidm,
                    design.kvlm,
                    design.model,
                    data,
                    (collection, query, parameters) => session.runQuery(view, collection.name, query.name, parameters),
                    { samples: 4, seed: 1, collation: typed.collation },
                );
                verdicts = results.length;
                mismatches = results.reduce((sum, verdict) => sum + verdict.mismatches, 0);
            } finally {
                await session.close();
            }
        });
        expect(verdicts).toBeGreaterThan(0);
        expect(mismatches).toBe(0);
    });

    test.each(cases)(
        '%s: entity operations through the client leave 0 differences',
        async (name, text) => {
            const path = join(folder, `${name.replace(/\W+/g, '_')}-entities.pidm`);
            writeFileSync(path, text());
            const { report } = await runWorkloadOnEngine({
                modelPath: path,
                merge: 'cost',
                server: server.url,
                target: 'redis',
                targetOptions: { dialect: 'redisearch1' },
                operations: 150,
                seed: 9,
                writers: 1,
                checkEvery: 50,
            });
            expect(report.failure).toBeUndefined();
            expect(report.operations).toBe(150);
            expect(report.checks).toBe(3);
            const done = Object.values(report.intents).reduce((sum, tally) => sum + tally.done, 0);
            expect(done).toBeGreaterThan(50);
        },
        120_000,
    );
});
