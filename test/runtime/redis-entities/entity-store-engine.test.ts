/**
 * The entity store on real engines (issue 28 items 4 and 5): `kvmod load` writes the entities and reverse hashes
 * beside the rows, `kvmod verify --live` reads them back and finds nothing on a server right after a load, and
 * finds every kind of tampering with its exact sentence; a load of data lacking an entity refuses and writes
 * nothing; `--sync` removes it with its rows. RediSearch 1.2 and a plain redis-server (redis-core).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryIo } from '../../../src/cli/cli-io.js';
import { runDataGenerate } from '../../../src/cli/data-actions.js';
import { main } from '../../../src/cli/main.js';
import { liveCheck } from '../../../src/runtime/live-check.js';
import { loadRuntimeDesign } from '../../../src/runtime/runtime-design.js';
import { redisCli, startRedis, type RedisTestServer } from '../../support/redis-server.js';

const EXAMPLES = ['airflights', 'book-ratings', 'tournament'] as const;
const modelOf = (name: string) => `examples/${name}/${name}.pidm`;

interface Engine {
    name: string;
    server: RedisTestServer;
    /** The command line's target flags. */
    flags: string[];
    options: { target?: string };
}

let dir: string;
const engines: Engine[] = [];

beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kvmod-entity-store-'));
    const [search, plain] = await Promise.all([startRedis(), startRedis({ search: false })]);
    engines.push(
        { name: 'redisearch1', server: search, flags: [], options: {} },
        { name: 'redis-core', server: plain, flags: ['--target', 'redis-core'], options: { target: 'redis-core' } },
    );
    for (const name of EXAMPLES)
        await runDataGenerate(
            { model: modelOf(name), scale: 12, seed: 5, output: join(dir, `${name}.json`) },
            memoryIo(),
        );
}, 60_000);

afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.server.stop()));
    if (dir) await rm(dir, { recursive: true, force: true });
});

async function kvmod(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const io = memoryIo();
    const code = await main(args, io);
    return { code, stdout: io.stdout, stderr: io.stderr };
}

const engineNamed = (name: string) => engines.find((engine) => engine.name === name)!;
/** A redis-cli command's output (it must succeed). */
async function cli(engine: Engine, args: string[]): Promise<string> {
    const result = await redisCli(engine.server.port, args);
    if (result.code !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
}

const flush = (engine: Engine) => cli(engine, ['FLUSHALL']);

async function load(engine: Engine, example: string, data = join(dir, `${example}.json`), more: string[] = []) {
    return kvmod(['load', modelOf(example), '--data', data, '--redis', engine.server.url, ...engine.flags, ...more]);
}

async function check(engine: Engine, example: string): Promise<string[]> {
    return liveCheck(engine.server.url, await loadRuntimeDesign(modelOf(example)), engine.options);
}

async function keys(engine: Engine, pattern: string): Promise<string[]> {
    return (await cli(engine, ['--scan', '--pattern', pattern])).split('\n').filter(Boolean).sort();
}

describe.each(['redisearch1', 'redis-core'])('the entity store on %s', (engineName) => {
    test.each(EXAMPLES)(
        '%s: after kvmod load, the live check finds nothing and verify --live exits 0',
        async (example) => {
            const engine = engineNamed(engineName);
            await flush(engine);
            const loaded = await load(engine, example);
            expect(loaded.stderr).toContain('entity hashes written');
            expect(loaded.code).toBe(0);
            expect(await check(engine, example)).toEqual([]);
            const verified = await kvmod([
                'verify',
                modelOf(example),
                '--live',
                '--redis',
                engine.server.url,
                ...engine.flags,
            ]);
            expect(verified.stdout).toContain(
                'every row, index entry and reverse reference is what the entities imply',
            );
            expect(verified.code).toBe(0);
            // A second load of the same data changes no entity hash.
            expect((await load(engine, example)).stderr).toContain('entity store: 0 entity hashes written');
        },
        60_000,
    );

    test('a changed row field, a deleted row, an extra row and a stale reverse entry are found, each by its key', async () => {
        const engine = engineNamed(engineName);
        await flush(engine);
        await load(engine, 'airflights');
        const passengerKey = 'kvmod:airflights:{Passenger:PA001}';
        expect(await keys(engine, passengerKey)).toEqual([passengerKey]);
        const rows = await keys(
            engine,
            engineName === 'redis-core' ? 'Q3_passengersOfGivenFlight:*' : 'Q3_passengersOfGivenFlight_*:*',
        );
        const [changed, deleted] = rows;
        await cli(engine, ['HSET', changed, 'firstName', 'Tampered']);
        await cli(engine, ['DEL', deleted]);
        const extra = `${changed}x`;
        await cli(engine, ['HSET', extra, 'firstName', 'Nobody']);
        const reverse = (await keys(engine, 'kvmod:airflights:{Passenger:*}:<Flight.registeredPersons'))[0];
        await cli(engine, ['HSET', reverse, 'NOFLIGHT', '']);
        const was = JSON.stringify(await check(engine, 'airflights'));
        const differences = await check(engine, 'airflights');
        expect(JSON.stringify(differences)).toBe(was);
        expect(differences).toContain(`reverse hash ${reverse} has a stale referrer NOFLIGHT`);
        expect(differences).toContain(`missing row ${deleted}`);
        expect(differences).toContain(`stale row ${extra}: no entity implies it; the entities imply none`);
        expect(
            differences.some((line) =>
                line.startsWith(`row ${changed}: field firstName is "Tampered", the entities imply "`),
            ),
        ).toBe(true);
        const verified = await kvmod([
            'verify',
            modelOf('airflights'),
            '--live',
            '--redis',
            engine.server.url,
            ...engine.flags,
        ]);
        expect(verified.stdout).toContain(`missing row ${deleted}\n`);
        expect(verified.code).toBe(1);
    }, 60_000);

    test('load of data lacking an entity refuses and writes nothing; --sync removes it and its rows', async () => {
        const engine = engineNamed(engineName);
        await flush(engine);
        await load(engine, 'airflights');
        const data = JSON.parse(await readFile(join(dir, 'airflights.json'), 'utf8')) as Record<
            string,
            Record<string, unknown>[]
        >;
        const idName = '_id';
        const gone = data.WebSiteAccess.slice(0, 2).map((site) => String(site[idName]));
        data.WebSiteAccess = data.WebSiteAccess.filter((site) => !gone.includes(String(site[idName])));
        for (const objects of Object.values(data))
            for (const object of objects)
                for (const [name, value] of Object.entries(object))
                    if (Array.isArray(value)) object[name] = value.filter((id) => !gone.includes(String(id)));
        const lacking = join(dir, 'airflights-lacking.json');
        await writeFile(lacking, JSON.stringify(data));
        const before = await cli(engine, ['DBSIZE']);
        const refused = await load(engine, 'airflights', lacking);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain(
            `the server holds 2 entities of design airflights that the data lacks: WebSiteAccess 2 (${[...gone].sort().join(', ')}); nothing was written: run with --sync to remove them and their rows, or load data that holds them`,
        );
        expect(await cli(engine, ['DBSIZE'])).toBe(before);
        expect(await check(engine, 'airflights')).toEqual([]);
        const synced = await load(engine, 'airflights', lacking, ['--sync']);
        expect(synced.code).toBe(0);
        expect(synced.stderr).toContain(
            `removed WebSiteAccess 2 (${[...gone].sort().join(', ')}): the data lacks them\n`,
        );
        expect(synced.stderr).toMatch(/deleted \d+ rows no entity implies any more\n/);
        for (const id of gone) expect(await keys(engine, `kvmod:airflights:{WebSiteAccess:${id}}*`)).toEqual([]);
        expect(await check(engine, 'airflights')).toEqual([]);
    }, 60_000);
});
