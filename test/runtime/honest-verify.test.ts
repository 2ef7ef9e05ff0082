/**
 * Verify is honest about what it proved: the data generator puts the WHERE clauses' literals into the data
 * (a query on `status = "completed"` gets rows to compare), a data spec sets counts and value domains, a
 * query with no row compared is reported as untested (a warning; --strict fails), and --format json gives
 * the result to machines. Against the real engine.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import type { VerifyReport } from '../../src/cli/verify-actions.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

const RIDE = 'test/fixtures/pidm/ride-literals.pidm';

let server: RedisTestServer;
let dir: string;

async function kvmod(...args: string[]) {
    const io = memoryIo();
    const status = await main(args, io);
    return { status, stdout: io.stdout, stderr: io.stderr };
}

beforeAll(async () => {
    server = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'kvmod-honest-'));
});

afterAll(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
});

describe('verify tests what it claims', () => {
    test('the replay: a query filtering on status = "completed" gets rows compared', async () => {
        const data = join(dir, 'default.json');
        expect((await kvmod('data', 'generate', RIDE, '-o', data)).status).toBe(0);
        const run = await kvmod('verify', RIDE, '--data', data, '--redis', server.url, '--format', 'json', '--strict');
        const report = JSON.parse(run.stdout) as VerifyReport;
        expect(run.status).toBe(0);
        expect(report.queries.map((q) => [q.query, q.status])).toEqual([
            ['Q1_completedRides', 'match'],
            ['Q2_ridesOfRider', 'match'],
            ['Q3_expensive', 'match'],
        ]);
        for (const query of report.queries) expect(query.rowsCompared).toBeGreaterThan(0);
        expect(report.summary).toEqual({ queries: 3, match: 3, differ: 0, untested: 0 });
    });

    test('status = "cancelled" and clinic = ?c: its parameter sets are clinics with a cancelled appointment', async () => {
        const model = 'test/fixtures/pidm/clinic-literals.pidm';
        const data = join(dir, 'clinic.json');
        expect((await kvmod('data', 'generate', model, '-o', data)).status).toBe(0);
        const run = await kvmod('verify', model, '--data', data, '--redis', server.url, '--format', 'json', '--strict');
        const report = JSON.parse(run.stdout) as VerifyReport;
        expect([run.status, report.summary]).toEqual([0, { queries: 1, match: 1, differ: 0, untested: 0 }]);
        // Every set drawn from the data finds rows (the made-up one none): more rows than sets drawn.
        expect(report.queries[0].rowsCompared).toBeGreaterThanOrEqual(report.queries[0].parameterSets - 1);
    });

    test('a query whose filter matches no data is untested: a warning, and a failure with --strict', async () => {
        const spec = join(dir, 'spec.json');
        await writeFile(
            spec,
            '{ "scale": 30, "entities": { "Ride": { "count": 90, "attributes": { "status": { "values": ["completed", "requested"] }, "fare": { "min": 5, "max": 150 } } }, "Rider": { "count": 10 } } }',
        );
        const data = join(dir, 'spec-data.json');
        const generated = await kvmod('data', 'generate', RIDE, '--spec', spec, '-o', data);
        expect(generated.stderr).toBe(`wrote 130 objects of 3 entities to ${data} (scale 30, seed 1, spec ${spec})\n`);
        const objects = JSON.parse(await readFile(data, 'utf8')) as Record<string, Record<string, unknown>[]>;
        expect([objects.Rider.length, objects.Driver.length, objects.Ride.length]).toEqual([10, 30, 90]);
        expect(new Set(objects.Ride.map((ride) => ride.status))).toEqual(new Set(['completed', 'requested']));
        for (const ride of objects.Ride) expect(ride.fare).toEqual(expect.any(Number));
        expect(objects.Ride.every((ride) => (ride.fare as number) >= 5 && (ride.fare as number) <= 150)).toBe(true);

        const text = await kvmod('verify', RIDE, '--data', data, '--redis', server.url);
        expect(text.status).toBe(0);
        expect(text.stderr).toContain(
            'kvmod: warning: Q3_expensive was not tested: no parameter set gave a row to compare (its filter matches no data; generate data that holds its values: kvmod data generate --spec)\n',
        );
        expect(text.stdout.trimEnd().split('\n').at(-1)).toBe(
            '2 of 3 queries match the oracle; 1 untested (no rows compared): Q3_expensive',
        );

        const strict = await kvmod('verify', RIDE, '--data', data, '--redis', server.url, '--strict');
        expect(strict.status).toBe(1);
        expect(strict.stderr).toContain('kvmod: --strict: 1 untested query fails the run\n');

        const json = await kvmod('verify', RIDE, '--data', data, '--redis', server.url, '--format', 'json', '--strict');
        const report = JSON.parse(json.stdout) as VerifyReport;
        expect(json.status).toBe(1);
        expect(report).toMatchObject({
            model: RIDE,
            target: 'redis',
            engine: 'redisearch1',
            rowsLoaded: 180,
            summary: { queries: 3, match: 2, differ: 0, untested: 1 },
            ok: false,
        });
        expect(report.queries[2]).toMatchObject({ query: 'Q3_expensive', status: 'untested', rowsCompared: 0 });
    });
});

describe('the data spec', () => {
    test.each([
        [
            'a schema error, at the value it concerns',
            '{\n  "entities": { "Ride": { "count": 0 } },\n  "extra": 1\n}',
            ["2:36: 'entities.Ride.count' must be >= 1", "3:3: unknown property 'extra' in the file"],
        ],
        ['a JSON syntax error', '{\n  "scale": 3,\n}\n}', ['4:1: not valid JSON: end of file expected']],
        [
            'names and values that do not fit the model',
            [
                '{ "entities": {',
                '  "Rid": { "count": 3 },',
                '  "Ride": { "attributes": {',
                '    "rideId": { "values": ["a"] },',
                '    "fare": { "min": 9, "values": [1.5] },',
                '    "status": { "values": [1] },',
                '    "stauts": { "values": ["x"] },',
                '    "startedAt": { "min": "2020-02-30T00:00:00" },',
                '    "rating": { "min": 1 }',
                '  } } } }',
            ].join('\n'),
            [
                "2:3: unknown entity 'Rid'. Did you mean 'Ride'?",
                "4:5: 'rideId' is the identifier of Ride: identifiers are generated unique",
                "5:35: give 'fare' either values or a min/max range, not both",
                "6:28: value 1 of 'status', 1, is not a string",
                "7:5: entity Ride has no attribute 'stauts'. Did you mean 'status'?",
                '8:27: min of \'startedAt\', "2020-02-30T00:00:00", is not a datetime YYYY-MM-DDTHH:MM:SS',
                "9:5: entity Ride has no attribute 'rating'.",
            ],
        ],
    ])('reports %s as file:line:col, exit 1', async (_, text, problems) => {
        const spec = join(dir, `bad-${problems.length}.json`);
        await writeFile(spec, text);
        const run = await kvmod('data', 'generate', RIDE, '--spec', spec);
        expect(run.status).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(`kvmod: ${problems.map((p) => `${spec}:${p}`).join('\n')}\n`);
    });
});
