/**
 * A load prepares its indexes with `ensureIndexes` (redis-loader.ts): each collection's first reads (the pointer key,
 * the physical index's FT.INFO) are sent ahead, all in one round trip, and the writes follow collection by collection
 * as `ensureIndex` makes them one after the other. Against a real RediSearch 1.2 server, with a link that records
 * what it is asked to send: the same writes in the same order, the same outcomes, errors and stored state as
 * `ensureIndex` collection by collection, in fewer round trips.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { buildRedisViewModel, type RedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { ensureIndex, ensureIndexes, type IndexOutcome } from '../../src/runtime/redisearch/redis-loader.js';
import { connectRedis, type RedisLink } from '../../src/runtime/redis-connection/redis-link.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

let server: RedisTestServer;
let view: RedisViewModel;

beforeAll(async () => {
    server = await startRedis();
    const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
    const kvlm = transformPidmToKvlm(
        workspace.pidm.map((entry) => entry.model),
        { merge: 'safe' },
    ).model;
    view = buildRedisViewModel(kvlm, { dialect: 'redisearch1' });
});

afterAll(async () => {
    await server?.stop();
});

/** What a link was asked to send, and how many round trips it took (a command sent while none was waiting starts one). */
interface Recorded {
    commands: string[];
    roundTrips: number;
}

/** The real link, recording each command it sends (not the replies: those are the server's). */
function recording(link: RedisLink): { link: RedisLink; recorded: Recorded } {
    const recorded: Recorded = { commands: [], roundTrips: 0 };
    let waiting = 0;
    return {
        recorded,
        link: {
            url: link.url,
            close: () => link.close(),
            async send(argv) {
                if (waiting === 0) recorded.roundTrips++;
                waiting++;
                recorded.commands.push(argv.join(' '));
                try {
                    return await link.send(argv);
                } finally {
                    waiting--;
                }
            },
        },
    };
}

/** Whether a command changes the server (FT.INFO and GET only read). */
const isWrite = (command: string) => !/^(FT\.INFO|GET) /.test(command);

type Run = { outcomes?: IndexOutcome[]; error?: string; recorded: Recorded; keys: string[] };

/** Runs `prepare` on a server set up by `setUp` (after FLUSHALL): its outcome or error, what it sent, the keys left. */
async function run(
    setUp: (link: RedisLink) => Promise<void>,
    prepare: (link: RedisLink) => Promise<IndexOutcome[]>,
): Promise<Run> {
    const link = await connectRedis(server.url);
    try {
        await link.send(['FLUSHALL']);
        await setUp(link);
        const { link: watched, recorded } = recording(link);
        const result: Run = { recorded, keys: [] };
        try {
            result.outcomes = await prepare(watched);
        } catch (error) {
            result.error = (error as Error).message;
        }
        // Not RediSearch 1.2's own index structures (numeric ranges, tags, geo, terms): after FT.DROP it frees them in
        // the background, so one may still be there when the keys are listed (seen in CI: `nm:<index>/<field>`). The
        // writes that made and dropped them are compared (`compare`).
        result.keys = ((await link.send(['KEYS', '*'])) as string[])
            .filter((key) => !/^(nm|tag|geo|ft):/.test(key))
            .sort();
        return result;
    } finally {
        await link.close();
    }
}

const oneByOne = (recreate: boolean, fresh: boolean) => async (link: RedisLink) => {
    const outcomes: IndexOutcome[] = [];
    for (const collection of view.collections)
        outcomes.push(await ensureIndex(link, view, collection, recreate, fresh));
    return outcomes;
};
const ahead = (recreate: boolean, fresh: boolean) => (link: RedisLink) =>
    ensureIndexes(link, view, view.collections, recreate, fresh);

/**
 * Both ways on the same server state: the same result, writes and keys; `ensureIndexes` in `roundTrips` round trips
 * (when given; else in no more than one by one). `fresh` is what `kvmod verify` asks for.
 */
async function compare(
    setUp: (link: RedisLink) => Promise<void>,
    recreate: boolean,
    roundTrips: number | undefined,
    fresh = false,
): Promise<Run> {
    const expected = await run(setUp, oneByOne(recreate, fresh));
    const actual = await run(setUp, ahead(recreate, fresh));
    expect(actual.error).toBe(expected.error);
    expect(actual.outcomes).toEqual(expected.outcomes);
    expect(actual.recorded.commands.filter(isWrite)).toEqual(expected.recorded.commands.filter(isWrite));
    expect(actual.keys).toEqual(expected.keys);
    if (roundTrips !== undefined) expect(actual.recorded.roundTrips).toBe(roundTrips);
    else expect(actual.recorded.roundTrips).toBeLessThanOrEqual(expected.recorded.roundTrips);
    return expected;
}

const collections = () => view.collections.length;
const nothing = async () => undefined;
/** Every index of the design created, as a first load leaves them. */
const loaded = (link: RedisLink) => ensureIndexes(link, view, view.collections, false).then(nothing);

describe('ensureIndexes: the reads ahead, the writes as ensureIndex makes them', () => {
    test('an empty server: every index created, the 2 reads of each collection in one round trip (not 2 per collection)', async () => {
        const expected = await compare(nothing, false, 1 + 2 * collections());
        expect(expected.outcomes?.every((outcome) => outcome.action === 'created')).toBe(true);
        // Collection by collection: GET, FT.INFO, FT.CREATE, SET.
        expect(expected.recorded.roundTrips).toBe(4 * collections());
    });

    test('a second load keeps every index: one round trip of reads, then each pointer key set', async () => {
        const expected = await compare(
            (link) => ensureIndexes(link, view, view.collections, false).then(nothing),
            false,
            1 + collections(),
        );
        expect(expected.outcomes?.every((outcome) => outcome.action === 'kept')).toBe(true);
    });

    test('an index with another schema on the third collection: the same error, the first two created, nothing after', async () => {
        const third = view.collections[2]!;
        const setUp = async (link: RedisLink) => {
            await link.send(['FT.CREATE', third.physicalIndex, 'SCHEMA', 'city', 'TEXT']);
        };
        const expected = await compare(setUp, false, 1 + 2 * 2);
        expect(expected.error).toMatch(
            new RegExp(
                `^index ${third.physicalIndex} on redis://127\\.0\\.0\\.1:\\d+ exists with another schema \\(it has: city TEXT; the design needs: .*\\); run again with --recreate to drop it and its rows$`,
            ),
        );
    });

    test('with --recreate the differing index is dropped and created again; the later collections read again after the drop', async () => {
        const third = view.collections[2]!;
        const setUp = async (link: RedisLink) => {
            await link.send(['FT.CREATE', third.physicalIndex, 'SCHEMA', 'city', 'TEXT']);
        };
        // Reads ahead, two collections created (2 each), the third's drop and creation (FT.INFO, FT.DROP, DEL, FT.CREATE,
        // SET), then 4 for each later collection, as without the reads ahead.
        const expected = await compare(setUp, true, 1 + 2 * 2 + 5 + 4 * (collections() - 3));
        expect(expected.outcomes?.map((outcome) => outcome.action)).toEqual(
            view.collections.map((_, position) => (position === 2 ? 'recreated' : 'created')),
        );
    });

    test('a stable name serving another design of the second collection: the same error naming kvmod migrate, after the first', async () => {
        const second = view.collections[1]!;
        const setUp = async (link: RedisLink) => {
            await link.send(['SET', second.pointerKey!, `${second.index}_000000`]);
        };
        const expected = await compare(setUp, false, 1 + 2);
        expect(expected.error).toMatch(
            new RegExp(
                `^collection ${second.name} on redis://127\\.0\\.0\\.1:\\d+ is served by index ${second.index}_000000, another design of it`,
            ),
        );
    });

    test('fresh (kvmod verify) on a loaded server: every index dropped with its rows and created again, the same way', async () => {
        const expected = await compare(loaded, false, undefined, true);
        expect(expected.outcomes?.map((outcome) => outcome.action)).toEqual(view.collections.map(() => 'recreated'));
    });

    test('a read ahead that fails (the third pointer key holds a hash): the same error, the first two created, nothing after', async () => {
        const third = view.collections[2]!;
        for (const fresh of [false, true]) {
            const expected = await compare(
                async (link) => {
                    await link.send(['HSET', third.pointerKey!, 'not', 'kvmod']);
                },
                false,
                undefined,
                fresh,
            );
            expect(expected.error).toBe('WRONGTYPE Operation against a key holding the wrong kind of value');
            expect(expected.outcomes).toBeUndefined();
        }
    });

    test("the first stable name pointing at the third collection's index: with --recreate or fresh, the third is read again after the drop", async () => {
        // The one case where a read made ahead goes stale: dropping what the first collection's name serves drops the
        // third's index, which the reads ahead saw existing.
        const [first, , third] = view.collections;
        const setUp = async (link: RedisLink) => {
            await loaded(link);
            await link.send(['SET', first!.pointerKey!, third!.physicalIndex]);
        };
        for (const [recreate, fresh] of [
            [true, false],
            [false, true],
        ] as const) {
            const expected = await compare(setUp, recreate, undefined, fresh);
            expect(expected.error).toBeUndefined();
            expect(expected.keys).toContain(third!.pointerKey!);
            expect(expected.outcomes?.[2]?.action).not.toBe('kept');
        }
    });
});
