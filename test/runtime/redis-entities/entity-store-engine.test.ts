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
import { buildViewModel } from '../../../src/generation/generation-engine.js';
import { redisCoreTarget } from '../../../src/generation/redis-core/redis-core-target.js';
import { redisTarget } from '../../../src/generation/redis/redis-target.js';
import {
    entityCallArgv,
    entityHashFields,
    rowMapKey,
    storedId,
    type EntityStoreSchema,
} from '../../../src/generation/shared/entity-store.js';
import { connectRedis, type RedisLink } from '../../../src/runtime/redis-connection/redis-link.js';
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

/** Every key of a server and its content (entity versions `_v` left out), sorted: what two servers are compared by. */
async function dump(link: RedisLink): Promise<string[]> {
    const out: string[] = [];
    let cursor = '0';
    const keys: string[] = [];
    do {
        const [next, batch] = (await link.send(['SCAN', cursor, 'COUNT', '1000'])) as [string, string[]];
        cursor = String(next);
        keys.push(...batch.map(String));
    } while (cursor !== '0');
    for (const key of [...new Set(keys)].sort()) {
        const type = String(await link.send(['TYPE', key]));
        let content: string[];
        if (type === 'hash') {
            const flat = ((await link.send(['HGETALL', key])) as string[]).map(String);
            content = [];
            for (let i = 0; i < flat.length; i += 2)
                if (!(flat[i] === '_v' && key.startsWith('kvmod:'))) content.push(`${flat[i]}=${flat[i + 1]}`);
            content.sort();
        } else if (type === 'set') content = ((await link.send(['SMEMBERS', key])) as string[]).map(String).sort();
        else if (type === 'zset')
            content = ((await link.send(['ZRANGE', key, '0', '-1', 'WITHSCORES'])) as string[]).map(String);
        else if (type === 'string') content = [String(await link.send(['GET', key]))];
        else content = [];
        out.push(`${key} ${type} ${JSON.stringify(content)}`);
    }
    return out;
}

/**
 * The data as single entity operations through the design's Function: each entity created with its `[1]` references
 * (targets first), then every `[0..1]` set and every `[*]` added in the data's order.
 */
function operationsOf(schema: EntityStoreSchema, data: Record<string, Record<string, unknown>[]>): string[][] {
    const entities = Object.values(schema.entities);
    const order: string[] = [];
    const visit = (name: string, path: string[]) => {
        if (order.includes(name) || path.includes(name)) return;
        for (const reference of schema.entities[name].references)
            if (reference.kind === 'one') visit(reference.target, [...path, name]);
        order.push(name);
    };
    for (const entity of entities) visit(entity.name, []);
    const calls: string[][] = [];
    for (const name of order) {
        const entity = schema.entities[name];
        for (const object of data[name] ?? []) {
            const created: Record<string, unknown> = { ...object };
            for (const reference of entity.references) if (reference.kind !== 'one') delete created[reference.name];
            const id = storedId(schema, name, object[entity.idName]);
            calls.push(
                entityCallArgv(schema, {
                    op: 'create',
                    entity: name,
                    id,
                    fields: entityHashFields(schema, name, created),
                }),
            );
        }
    }
    for (const name of order) {
        const entity = schema.entities[name];
        for (const object of data[name] ?? []) {
            const id = storedId(schema, name, object[entity.idName]);
            for (const reference of entity.references) {
                const value = object[reference.name];
                if (reference.kind === 'optional' && value !== null && value !== undefined)
                    calls.push(
                        entityCallArgv(schema, {
                            op: 'set',
                            entity: name,
                            id,
                            reference: reference.name,
                            target: storedId(schema, reference.target, value),
                        }),
                    );
                if (reference.kind === 'many' && Array.isArray(value) && value.length > 0)
                    calls.push(
                        entityCallArgv(schema, {
                            op: 'add',
                            entity: name,
                            id,
                            reference: reference.name,
                            targets: value.map((target) => storedId(schema, reference.target, target)),
                        }),
                    );
            }
        }
    }
    return calls;
}

describe.each(['redisearch1', 'redis-core'])('the entity store on %s', (engineName) => {
    test.each(EXAMPLES)(
        '%s: bulk load ≡ one operation at a time through the entity Function (every key and value but _v)',
        async (example) => {
            const engine = engineNamed(engineName);
            const design = await loadRuntimeDesign(modelOf(example));
            const schema =
                engineName === 'redis-core'
                    ? (await buildViewModel(redisCoreTarget, design)).entityStore!.schema
                    : (await buildViewModel(redisTarget, design, { dialect: 'redisearch1' })).entityStore!.schema;
            const link = await connectRedis(engine.server.url);
            try {
                await flush(engine);
                expect((await load(engine, example)).code).toBe(0);
                const bulk = await dump(link);
                await flush(engine);
                const empty = join(dir, 'empty.json');
                await writeFile(empty, '{}');
                // The schema (indexes, the Function libraries), no entity, no row.
                expect((await load(engine, example, empty)).code).toBe(0);
                const data = JSON.parse(await readFile(join(dir, `${example}.json`), 'utf8')) as Record<
                    string,
                    Record<string, unknown>[]
                >;
                for (const argv of operationsOf(schema, data)) await link.send(argv);
                expect(await dump(link)).toEqual(bulk);
                expect(bulk.filter((line) => line.startsWith('kvmod:')).length).toBeGreaterThan(20);
                expect(await check(engine, example)).toEqual([]);
            } finally {
                await link.close();
            }
        },
        120_000,
    );

    test.each(EXAMPLES)(
        '%s: after kvmod load, the live check finds nothing and verify --live exits 0',
        async (example) => {
            const engine = engineNamed(engineName);
            await flush(engine);
            const loaded = await load(engine, example);
            expect(loaded.stderr).toMatch(/entity store: [\d,]+ entities written \(new or changed\)/);
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
            expect((await load(engine, example)).stderr).toContain('entity store: 0 entities written (new or changed)');
        },
        60_000,
    );

    test.each(['book-ratings', 'tournament'])(
        "%s, counter keys: bulk load ≡ one operation at a time up to the rows' numbers; the live check finds nothing, then each row map difference",
        async (example) => {
            const engine = engineNamed(engineName);
            const design = await loadRuntimeDesign(modelOf(example), { keyStrategy: 'counter' });
            // Each counter-key collection: its row prefix, id field, counter and row map.
            const counters =
                engineName === 'redis-core'
                    ? (await buildViewModel(redisCoreTarget, design)).collections.map((c) => ({
                          prefix: c.rowPrefix,
                          idField: c.keyField,
                          counter: c.key.counterKey!,
                      }))
                    : (await buildViewModel(redisTarget, design, { dialect: 'redisearch1' })).collections.map((c) => ({
                          prefix: c.keyPrefix,
                          idField: c.idField,
                          counter: c.key.counterKey!,
                      }));
            expect(counters.every((c) => c.counter !== null)).toBe(true);
            const schema =
                engineName === 'redis-core'
                    ? (await buildViewModel(redisCoreTarget, design)).entityStore!.schema
                    : (await buildViewModel(redisTarget, design, { dialect: 'redisearch1' })).entityStore!.schema;
            const checkCounter = async () => liveCheck(engine.server.url, design, engine.options);
            /** The dump with every counter row named by its binding (its number differs between the two paths). */
            const numberless = async (link: RedisLink): Promise<string[]> => {
                const names = new Map<string, string>();
                for (const c of counters) {
                    const map = await link.send(['HGETALL', rowMapKey(c.counter)]);
                    const flat = (map as string[]).map(String);
                    for (let i = 0; i < flat.length; i += 2)
                        names.set(`${c.prefix}${flat[i + 1]}`, `${c.prefix}#${flat[i]}`);
                }
                expect(names.size).toBeGreaterThan(20);
                const numbered = (line: string) =>
                    counters.reduce(
                        (text, c) =>
                            text.replace(
                                new RegExp(`(?<!\\w)${c.prefix.replace(/[^\w:]/g, '\\$&')}(\\d+)(?!\\d)`, 'g'),
                                (found: string) => names.get(found) ?? found,
                            ),
                        line,
                    );
                return (await dump(link))
                    .map((line) => {
                        const key = line.slice(0, line.indexOf(' '));
                        if (counters.some((c) => key === c.counter)) return `${key} counter`;
                        let out = numbered(line);
                        const row = names.has(key) ? counters.find((c) => key.startsWith(c.prefix)) : undefined;
                        if (row !== undefined)
                            out = out.replace(new RegExp(`"${row.idField}=\\d+"`), `"${row.idField}=#"`);
                        if (counters.some((c) => key === rowMapKey(c.counter))) out = out.replace(/=\d+"/g, '=#"');
                        // Numbering changes the order of a set's members: compare contents as sorted lists.
                        const at = out.indexOf(' [');
                        if (at < 0) return out;
                        return `${out.slice(0, at + 1)}${JSON.stringify((JSON.parse(out.slice(at + 1)) as string[]).sort())}`;
                    })
                    .sort();
            };
            const link = await connectRedis(engine.server.url);
            try {
                await flush(engine);
                // --recreate: the server's library was loaded from the natural-key design of the same database.
                expect((await load(engine, example, undefined, ['--key', 'counter', '--recreate'])).code).toBe(0);
                expect(await checkCounter()).toEqual([]);
                const bulk = await numberless(link);
                await flush(engine);
                const empty = join(dir, 'empty.json');
                await writeFile(empty, '{}');
                expect((await load(engine, example, empty, ['--key', 'counter'])).code).toBe(0);
                const data = JSON.parse(await readFile(join(dir, `${example}.json`), 'utf8')) as Record<
                    string,
                    Record<string, unknown>[]
                >;
                for (const argv of operationsOf(schema, data)) await link.send(argv);
                expect(await numberless(link)).toEqual(bulk);
                expect(await checkCounter()).toEqual([]);
                // A row map entry gone, and one no binding makes: each is a difference, the row with it.
                const map = rowMapKey(counters[0].counter);
                const flat = ((await link.send(['HGETALL', map])) as string[]).map(String);
                const [binding, number] = flat;
                await link.send(['HDEL', map, binding]);
                await link.send(['HSET', map, 'ghost', '999']);
                const differences = await checkCounter();
                expect(differences).toContain(
                    `stale row map entry "ghost" → 999 in ${map}: no binding of the entities makes it`,
                );
                expect(differences).toContain(
                    `row map ${map} lacks the row of binding ${JSON.stringify(binding)} (collection ${design.kvlm.collections[0].name})`,
                );
                expect(differences).toContain(
                    `stale row ${counters[0].prefix}${number}: no entity implies it; the entities imply none`,
                );
            } finally {
                // The next tests load natural-key designs: no library of this one left behind.
                await link.send(['FUNCTION', 'FLUSH']);
                await link.close();
            }
        },
        120_000,
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

    test('a stale index entry and an entity hash whose stored form is not its decoding re-encoded are found', async () => {
        const engine = engineNamed(engineName);
        await flush(engine);
        await load(engine, 'airflights');
        const collection = 'Q2_airportsGivenCountrySortedByCities';
        const [row] = await keys(engine, engineName === 'redis-core' ? `${collection}:*` : `${collection}_*:*`);
        let stale: string;
        if (engineName === 'redis-core') {
            // An equality set holding a row whose country is another.
            await cli(engine, ['SADD', `{${collection}}:eq:country:stale`, row]);
            stale = `${JSON.stringify(`{${collection}}:eq:country:stale`)} has a stale ${JSON.stringify(row)}`;
        } else {
            // The index re-indexed with another country, the hash put back: the index alone is stale.
            const index = row.slice(0, row.indexOf(':'));
            const country = await cli(engine, ['HGET', row, 'country']);
            await cli(engine, ['FT.ADD', index, row, '1.0', 'REPLACE', 'PARTIAL', 'FIELDS', 'country', 'Stale']);
            await cli(engine, ['HSET', row, 'country', country]);
            stale = `index ${index}: @country:{stale} finds ${row}, which the entities do not imply there`;
        }
        const [flight] = await keys(engine, 'kvmod:airflights:{Flight:*}');
        const level = await cli(engine, ['HGET', flight, 'level']);
        await cli(engine, ['HSET', flight, 'level', `0${level}`]);
        const differences = await check(engine, 'airflights');
        expect(differences).toContain(stale);
        expect(differences).toContain(
            `entity hash ${flight}: field level is ${JSON.stringify(`0${level}`)}, the entities imply ${JSON.stringify(level)}`,
        );
    }, 60_000);

    test('an entity hash lacking an attribute is named with its key, and the rows it held are stale', async () => {
        const engine = engineNamed(engineName);
        await flush(engine);
        await load(engine, 'airflights');
        const [airport] = await keys(engine, 'kvmod:airflights:{Airport:*}');
        await cli(engine, ['HDEL', airport, 'city']);
        const differences = await check(engine, 'airflights');
        expect(differences).toContain(`entity hash ${airport} cannot be read: it lacks the attribute city`);
        expect(differences.some((difference) => difference.startsWith('stale row '))).toBe(true);
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
