#!/usr/bin/env node
// `npm run bench:writes [-- --ops 1000] [--in-flight 64] [--rounds 3] [--json]`
//
// Entity operations per second through the typed client's runtime (`kvmod-entities.ts`: createEntity, updateEntity,
// deleteEntity, each one FCALL of the design's entity Function), against two floors that write the same keys per
// operation, timed in the same run on the same server (docs/design/entity-store.md section 3):
// - raw floor: plain HSET / DEL / HDEL of exactly the keys and fields the operation changes (the entity hash, each
//   row's changed field, the reverse hashes), with no index upkeep: not a correct way to write an indexed row;
// - row floor: the entity hash and reverse hashes as above, each row written the way the design writes rows today
//   (`kvmod load`): `FT.ADD … REPLACE` (RediSearch 1.2) or the redis-core library's put / del function. The honest one.
// The client keeps `--in-flight` operations in flight on one node-redis connection (node-redis pipelines the commands
// of concurrent calls); the floors, and the client's own FCALLs (the Function alone, without the client), are
// replayed the way `redis-cli --pipe` replays a file (REDIS.md's method: every command written at once on one
// connection, the replies only counted; in process, since starting redis-cli would weigh on short runs), so every
// side is pipelined and the floors are the server's best case. The rounds are interleaved and the fastest of each variant is kept. The ratios
// are throughput over a floor's, for the same keys per operation.
//
// Engines: a redis-server with RediSearch 1.2 (`SAFEMODE TIMEOUT 0`) for the redis target's redisearch1 dialect, and
// a plain redis-server for the redis-core design, both started here on free loopback ports and stopped by pid.
//
// The model (written to a scratch file): Book { isbn, title, author, rank, tags → Tag[*], publisher → Publisher[1] },
// Tag { name, label }, Publisher { code, pname }; Q3 lists the books of a tag with `T.label` (one row per Book × Tag),
// Q6 the books of an author with the publisher's name. Tag t1, t10, t100 are on 1, 10, 100 books, so renaming its
// label rewrites that many Q3 rows; book r0 has tags a, b, c, so a change of its rank (sorted, indexed) moves 4 rows.
import './polyfills.mjs';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchOptions, removeDir, respText, scratchDir, startBenchServer } from './bench-redis.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
// A full collection between timed variants (the flag exposes `gc` to contexts made after it is set).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');
const { option, flag } = benchOptions();
const ops = Number(option('ops', '1000'));
const inFlight = Number(option('in-flight', '64'));
const rounds = Number(option('rounds', '3'));
const json = flag('json');
// Subsets, for profiling one operation: the operations whose name contains `--only`, the engines whose name does `--engine`.
const only = option('only', '');
const engineFilter = option('engine', '');

const { loadRuntimeDesign } = await import(`${root}out/src/runtime/runtime-design.js`);
const { indexInstanceData } = await import(`${root}out/src/runtime/instance-data.js`);
const { materializeModel } = await import(`${root}out/src/runtime/materialize.js`);
const { getGenerationTarget } = await import(`${root}out/src/generation/generation-targets.js`);
const { generateTarget } = await import(`${root}out/src/generation/generation-engine.js`);
const { bindRedisCommand } = await import(`${root}out/src/generation/redis/redis-commands.js`);
const { rowParameters } = await import(`${root}out/src/runtime/redisearch/redis-loader.js`);
const { coreRowKey, coreRowValues } = await import(`${root}out/src/runtime/redis-core/core-engine.js`);
const { attributeFields, entityCallArgv, entityHashFields, entityKey, reverseKey, VERSION_FIELD } = await import(
    `${root}out/src/generation/shared/entity-store.js`
);
const entities = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-entities.js`);
const { connectClient } = await import(`${root}out/src/generation/typescript/client-runtime/kvmod-client.js`);

const MODEL = `entity Book {
  id isbn
  title text
  author text
  rank int
  ref Tag[*] tags
  ref Publisher[1] publisher
}
entity Tag {
  id name
  label text
}
entity Publisher {
  id code
  pname text
}
query Q3_booksWithTag:
SELECT isbn, title, author, rank, T.label
FROM Book
INCLUDE Book.tags as T
WHERE T.name = "?tag"
ORDER BY rank DESC
query Q6_booksOfAuthor:
SELECT title, rank, P.pname
FROM Book
INCLUDE Book.publisher as P
WHERE author = "?"
ORDER BY rank ASC
`;

/** The data every run starts from. */
function initialData() {
    const publishers = Array.from({ length: 5 }, (_, i) => ({ code: `p${i}`, pname: `Publisher ${i}` }));
    const tags = ['t1', 't10', 't100', 'a', 'b', 'c'].map((name) => ({ name, label: `label of ${name}` }));
    const books = Array.from({ length: 100 }, (_, i) => ({
        isbn: `b${i}`,
        title: `Title ${i}`,
        author: `Author ${i % 7}`,
        rank: i,
        tags: ['t100', ...(i < 10 ? ['t10'] : []), ...(i < 1 ? ['t1'] : [])],
        publisher: `p${i % 5}`,
    }));
    books.push({ isbn: 'r0', title: 'Ranked', author: 'Author 0', rank: 1000, tags: ['a', 'b', 'c'], publisher: 'p0' });
    return { Publisher: publishers, Tag: tags, Book: books };
}

/** A value no real one equals: materialized rows carry it where an operation puts its own value. */
const MARK = 'MARK7319';
const NUMBER_MARK = 731973197;
const newBook = (isbn) => ({ isbn, title: 'New', author: 'Author 3', rank: 5, tags: ['a', 'b'], publisher: 'p1' });

const dir = scratchDir(root, 'kvmod-bench-writes');
const servers = [];
try {
    const modelPath = join(dir, 'writes.pidm');
    writeFileSync(modelPath, MODEL);
    const design = await loadRuntimeDesign(modelPath, {});
    const database = design.kvlm.name;
    const results = [];
    const ceilings = [];
    for (const engine of [
        { name: 'RediSearch 1.2', target: 'redis', options: { dialect: 'redisearch1' }, module: true },
        { name: 'redis-core', target: 'redis-core', options: {}, module: false },
    ].filter((e) => e.name.includes(engineFilter))) {
        const server = await startBenchServer(dir, { module: engine.module });
        servers.push(server);
        // The connection the generated client opens (`connectClient`: RESP2, no reconnects, no per-command timer).
        const client = await connectClient(server.url);
        try {
            const measured = await measureEngine(engine, server, client);
            results.push(...measured.results);
            ceilings.push(measured.ceiling);
        } finally {
            await client.quit();
            server.stop();
        }
    }

    async function measureEngine(engine, server, client) {
        // The design as `kvmod generate` makes it from the model: the entity store's schema, and its library (the
        // redis target's entities.lua; the redis-core library.lua, which holds the entity Function too).
        const { viewModel: view, files } = await getGenerationTarget(engine.target).use((target) =>
            generateTarget(target, design, engine.options),
        );
        if (!view.entityStore)
            throw new Error(`the ${engine.target} design of the bench model keeps no entities: ${view.noEntityStore}`);
        const core =
            engine.target === 'redis-core' ? { design: view, library: fileOf(files, 'library.lua') } : undefined;
        const store = { schema: view.entityStore.schema, library: core ? core.library : view.entityStore.library };
        // The schema as `kvmod load` prepares it, then the entity Function and the data, through the client.
        if (core) await client.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', core.library]);
        else
            for (const c of view.collections)
                for (const command of [c.create, c.point]) await client.sendCommand(bindRedisCommand(command, {}));
        await entities.installEntityFunctions(client, store);
        const data = initialData();
        for (const kind of ['Publisher', 'Tag', 'Book'])
            for (const object of data[kind]) await entities.createEntity(client, store, kind, object);

        /** The rows of `data` as the design writes them, with the key and the write and delete commands. */
        const rowsOf = (instance, keep) =>
            materializeModel(design.kvlm, instance, indexInstanceData(design.model, instance)).flatMap((materialized) =>
                materialized.rows
                    .filter((row) => keep(materialized.name, row))
                    .map((row) => writerOf(materialized.name, row)),
            );
        const writerOf = (name, row) => {
            // The field holding the marked value: the one an update changes.
            const markField = Object.keys(row.values).find((f) => [MARK, NUMBER_MARK].includes(row.values[f]));
            if (core) {
                const c = core.design.collections.find((x) => x.name === name);
                const key = coreRowKey(c, row);
                return {
                    key,
                    markField,
                    fields: c.fields.map((f) => f.name),
                    put: ['FCALL', core.design.functions.put, '2', key, c.recordKey, name, ...coreRowValues(c, row)],
                    del: ['FCALL', core.design.functions.del, '2', key, c.recordKey, name],
                };
            }
            const c = view.collections.find((x) => x.name === name);
            const put = bindRedisCommand(c.insert, rowParameters(c, row));
            return { key: put[2], markField, put, del: bindRedisCommand(c.delete, rowParameters(c, row)) };
        };
        const fill = (argv, value) =>
            argv.map((arg) => arg.replaceAll(MARK, value).replaceAll(String(NUMBER_MARK), value));
        const withMark = (edit) => {
            const copy = structuredClone(data);
            edit(copy);
            return copy;
        };

        /** The FCALL of an update of one attribute, as the client builds it (the stored form and its companions). */
        const update = (entity, id, name, value) =>
            entityCallArgv(store.schema, {
                op: 'update',
                entity,
                id,
                fields: attributeFields(
                    store.schema.entities[entity].attributes.find((a) => a.name === name),
                    value,
                ),
            });
        /** One operation: the client's call, and the two floors' commands, for the k-th op of a variant. */
        const operations = [];
        for (const n of [1, 10, 100]) {
            const tag = `t${n}`;
            const marked = withMark((d) => (d.Tag.find((t) => t.name === tag).label = MARK));
            const rows = rowsOf(marked, (name, row) => name.startsWith('Q3') && row.keyParts[1] === tag);
            operations.push({
                name: `rename Tag.label copied in N=${n} rows`,
                ops: n === 100 ? Math.max(1, Math.round(ops / 5)) : ops,
                keys: 1 + rows.length,
                client: (k, tagOf) => entities.updateEntity(client, store, 'Tag', tag, { label: `L${tagOf}${k}` }),
                fcall: (k, tagOf) => [update('Tag', tag, 'label', `L${tagOf}${k}`)],
                raw: (k, tagOf) => [
                    ['HSET', entityKey(database, 'Tag', tag), 'label', `L${tagOf}${k}`, VERSION_FIELD, String(k)],
                    ...rows.map((row) => ['HSET', row.key, row.markField, `L${tagOf}${k}`]),
                ],
                row: (k, tagOf) => [
                    ['HSET', entityKey(database, 'Tag', tag), 'label', `L${tagOf}${k}`, VERSION_FIELD, String(k)],
                    ...rows.map((row) => fill(row.put, `L${tagOf}${k}`)),
                ],
            });
        }
        {
            const marked = withMark((d) => (d.Book.find((b) => b.isbn === 'r0').rank = NUMBER_MARK));
            const rows = rowsOf(marked, (name, row) => row.keyParts[0] === 'r0');
            // Every call a rank the book does not have yet, so that every row moves.
            let last = 10_000;
            const next = () => String(++last);
            operations.push({
                name: 'move Book.rank (sorted, indexed) in 4 rows',
                ops,
                keys: 1 + rows.length,
                client: () => entities.updateEntity(client, store, 'Book', 'r0', { rank: Number(next()) }),
                fcall: () => [update('Book', 'r0', 'rank', Number(next()))],
                raw: (k) => {
                    const rank = next();
                    return [
                        ['HSET', entityKey(database, 'Book', 'r0'), 'rank', rank, VERSION_FIELD, String(k)],
                        ...rows.map((row) => ['HSET', row.key, row.markField, rank]),
                    ];
                },
                row: (k) => {
                    const rank = next();
                    return [
                        ['HSET', entityKey(database, 'Book', 'r0'), 'rank', rank, VERSION_FIELD, String(k)],
                        ...rows.map((row) => fill(row.put, rank)),
                    ];
                },
            });
        }
        {
            const marked = withMark((d) => d.Book.push(newBook(MARK)));
            const rows = rowsOf(marked, (name, row) => row.keyParts[0] === MARK);
            const reverse = (isbn) =>
                [
                    ['Tag', 'a', 'tags'],
                    ['Tag', 'b', 'tags'],
                    ['Publisher', 'p1', 'publisher'],
                ].map(([target, id, reference]) => [reverseKey(database, target, id, 'Book', reference), isbn]);
            const isbn = (k, variant) => `n${variant}${k}`;
            const hash = (id) => [...entityHashFields(store.schema, 'Book', newBook(id)), VERSION_FIELD, '1'];
            const rowHash = (row, id) => {
                const put = fill(row.put, id);
                // A plain HSET of the row's fields: FT.ADD's field/value pairs, or the core row's fields in order.
                if (!core) return ['HSET', put[2], ...put.slice(put.indexOf('FIELDS') + 1)];
                return ['HSET', put[3], ...row.fields.flatMap((f, i) => [f, put[6 + i]])];
            };
            operations.push({
                name: 'create a Book (2 tags, 1 publisher)',
                ops,
                keys: 1 + rows.length + 3,
                client: (k, variant) => entities.createEntity(client, store, 'Book', newBook(isbn(k, variant))),
                fcall: (k, variant) => [
                    entityCallArgv(store.schema, {
                        op: 'create',
                        entity: 'Book',
                        id: isbn(k, variant),
                        fields: entityHashFields(store.schema, 'Book', newBook(isbn(k, variant))),
                    }),
                ],
                raw: (k, variant) => [
                    ['HSET', entityKey(database, 'Book', isbn(k, variant)), ...hash(isbn(k, variant))],
                    ...rows.map((row) => rowHash(row, isbn(k, variant))),
                    ...reverse(isbn(k, variant)).map(([key, id]) => ['HSET', key, id, '']),
                ],
                row: (k, variant) => [
                    ['HSET', entityKey(database, 'Book', isbn(k, variant)), ...hash(isbn(k, variant))],
                    ...rows.map((row) => fill(row.put, isbn(k, variant))),
                    ...reverse(isbn(k, variant)).map(([key, id]) => ['HSET', key, id, '']),
                ],
            });
            operations.push({
                name: 'delete that Book',
                ops,
                keys: 1 + rows.length + 3,
                client: (k, variant) => entities.deleteEntity(client, store, 'Book', isbn(k, variant)),
                fcall: (k, variant) => [
                    entityCallArgv(store.schema, { op: 'delete', entity: 'Book', id: isbn(k, variant), detach: false }),
                ],
                raw: (k, variant) => [
                    ['DEL', entityKey(database, 'Book', isbn(k, variant))],
                    ...rows.map((row) => ['DEL', fill([row.key], isbn(k, variant))[0]]),
                    ...reverse(isbn(k, variant)).map(([key, id]) => ['HDEL', key, id]),
                ],
                row: (k, variant) => [
                    ['DEL', entityKey(database, 'Book', isbn(k, variant))],
                    ...rows.map((row) => fill(row.del, isbn(k, variant))),
                    ...reverse(isbn(k, variant)).map(([key, id]) => ['HDEL', key, id]),
                ],
            });
        }

        /** Runs `count` operations with `inFlight` of them in flight; seconds, and the rows the Function reported. */
        const run = async (count, one) => {
            let next = 0;
            let rows = 0;
            const started = performance.now();
            await Promise.all(
                Array.from({ length: Math.min(inFlight, count) }, async () => {
                    while (next < count) {
                        const write = await one(next++);
                        if (write) rows += write.rowsWritten + write.rowsDeleted;
                    }
                }),
            );
            return { seconds: (performance.now() - started) / 1000, rows: rows / count };
        };
        /** Every command of `count` operations written at once on a fresh connection, replies counted: seconds. */
        const pipe = (count, commands) => {
            const chunks = [];
            let replies = 0;
            for (let k = 0; k < count; k++)
                for (const argv of commands(k)) {
                    chunks.push(respText(argv));
                    replies++;
                }
            return replay(server.port, Buffer.from(chunks.join('')), replies);
        };
        /**
         * The server's CPU time so far (its main thread, INFO cpu), in µs: what a variant costs the server whatever
         * else shares the machine, where wall time on a loaded machine is mostly waiting for a core.
         */
        const serverCpu = async () => {
            const info = String(await client.sendCommand(['INFO', 'cpu']));
            const field = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
            return (field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread')) * 1e6;
        };
        /**
         * `body`'s result with the server's and this process's CPU time during it, in µs. The garbage of what ran
         * before (a floor's replay buffers) is collected first, so that no variant pays for another's.
         */
        const withCpu = async (body) => {
            collectGarbage();
            const server0 = await serverCpu();
            const client0 = process.cpuUsage();
            const result = await body();
            const client1 = process.cpuUsage(client0);
            return { ...result, serverCpu: (await serverCpu()) - server0, clientCpu: client1.user + client1.system };
        };
        // The ceiling: a Function that does nothing, called with the argv of the 1-row rename (the same bytes to parse),
        // replayed as the FCALL pipe is, and sent through node-redis with --in-flight calls in flight: what a call
        // costs the server, and what node-redis can send on one connection, before any entity work.
        await client.sendCommand([
            'FUNCTION',
            'LOAD',
            'REPLACE',
            "#!lua name=kvmod_bench_noop\nredis.register_function('kvmod_bench_noop', function() return { 1, 1, 0 } end)",
        ]);
        const noopArgv = ['FCALL', 'kvmod_bench_noop', ...update('Tag', 't1', 'label', 'no-op').slice(2)];
        const keep = (best, key, value) => (best[key] = Math.min(best[key] ?? Infinity, value));
        const ceiling = {};
        const measureCeiling = async () => {
            const piped = await withCpu(async () => ({ seconds: await pipe(ops, () => [noopArgv]) }));
            keep(ceiling, 'pipe', piped.seconds);
            keep(ceiling, 'pipeServerCpu', piped.serverCpu / ops);
            const sent = await withCpu(() => run(ops, () => client.sendCommand(noopArgv).then(() => undefined)));
            keep(ceiling, 'nodeRedis', sent.seconds);
            keep(ceiling, 'nodeRedisCpu', sent.clientCpu / ops);
        };
        const selected = operations.filter((o) => o.name.includes(only));
        operations.splice(0, operations.length, ...selected);
        const out = operations.map((o) => ({ engine: engine.name, operation: o.name, keys: o.keys, ops: o.ops }));
        const variants = ['client', 'fcall', 'raw', 'row'];
        const best = operations.map(() => ({ rows: 0 }));
        // create and delete go in pairs (the delete removes what its create made), each variant on its own ids.
        for (let round = 0; round < rounds; round++) {
            await measureCeiling();
            for (const [i, o] of operations.entries()) {
                for (const variant of variants) {
                    const arg = `${variant}${round}_`;
                    const timed = await withCpu(async () =>
                        variant === 'client'
                            ? run(o.ops, (k) => o.client(k, arg))
                            : { seconds: await pipe(o.ops, (k) => o[variant](k, arg)) },
                    );
                    if (variant === 'client') {
                        best[i].rows = timed.rows;
                        keep(best[i], 'clientCpu', timed.clientCpu / o.ops);
                    }
                    keep(best[i], variant, timed.seconds);
                    keep(best[i], `${variant}ServerCpu`, timed.serverCpu / o.ops);
                }
            }
        }
        return {
            results: out.map((o, i) => ({
                ...o,
                functionRows: best[i].rows,
                ...Object.fromEntries(variants.map((v) => [v, o.ops / best[i][v]])),
                // CPU µs per operation: the server's in each variant, the client process's in the client's.
                cpu: {
                    ...Object.fromEntries(variants.map((v) => [v, best[i][`${v}ServerCpu`]])),
                    clientProcess: best[i].clientCpu,
                },
            })),
            ceiling: {
                engine: engine.name,
                pipe: ops / ceiling.pipe,
                nodeRedis: ops / ceiling.nodeRedis,
                pipeServerCpu: ceiling.pipeServerCpu,
                nodeRedisCpu: ceiling.nodeRedisCpu,
            },
        };
    }

    const load = loadavg()
        .map((l) => l.toFixed(2))
        .join(' ');
    if (json) console.log(JSON.stringify({ ops, inFlight, rounds, load, results, ceilings }, null, 2));
    else {
        console.log(
            `bench:writes: entity operations through the client runtime vs the same keys written by a raw HSET floor and by the row floor (rows as the design writes them); ${inFlight} in flight; fastest of ${rounds} interleaved rounds; load average ${load} (shared machine)`,
        );
        console.log('');
        const header = [
            'engine',
            'operation',
            'ops',
            'keys/op',
            'rows/op',
            'client op/s',
            'FCALL pipe',
            'raw floor',
            'client/raw',
            'row floor',
            'client/row',
            'FCALL/row',
        ];
        const lines = results.map((r) => [
            r.engine,
            r.operation,
            String(r.ops),
            String(r.keys),
            r.functionRows.toFixed(1),
            fmt(r.client),
            fmt(r.fcall),
            fmt(r.raw),
            (r.client / r.raw).toFixed(2),
            fmt(r.row),
            (r.client / r.row).toFixed(2),
            (r.fcall / r.row).toFixed(2),
        ]);
        table(header, lines);
        console.log('');
        console.log(
            "client = the typed client's runtime over node-redis, --in-flight calls in flight; FCALL pipe = the same FCALLs replayed as redis-cli --pipe does (the Function alone); the floors are replayed so too. Goal: client/row >= 0.50 (the raw floor leaves indexes stale: not a correct write).",
        );
        console.log('');
        console.log(
            'CPU time per operation (µs; the fewest of the rounds): the server main thread in the FCALL pipe, the row floor and the client run, and the client process in the client run. On a loaded machine wall time is mostly waiting for a core; CPU time is what each side costs. The CPU-bound ratios: FCALL/row = row floor µs / FCALL µs; client/row = row floor µs / the busier side of the client run (server and client each on a core, as on an idle 2-core machine).',
        );
        console.log('');
        table(
            ['engine', 'operation', 'FCALL srv', 'row srv', 'client srv', 'client proc', 'FCALL/row', 'client/row'],
            results.map((r) => [
                r.engine,
                r.operation,
                r.cpu.fcall.toFixed(1),
                r.cpu.row.toFixed(1),
                r.cpu.client.toFixed(1),
                r.cpu.clientProcess.toFixed(1),
                (r.cpu.row / r.cpu.fcall).toFixed(2),
                (r.cpu.row / Math.max(r.cpu.client, r.cpu.clientProcess)).toFixed(2),
            ]),
        );
        console.log('');
        console.log(
            `The ceiling: a no-op Function called with the argv of the 1-row rename, replayed as the FCALL pipe (what the server does per call, nothing else), and sent through node-redis with ${inFlight} in flight (what the client's connection carries, nothing else):`,
        );
        for (const c of ceilings)
            console.log(
                `  ${c.engine.padEnd(15)} no-op FCALL pipe ${fmt(c.pipe).padStart(9)} op/s (server ${c.pipeServerCpu.toFixed(1)} µs CPU/call)   node-redis no-op ${fmt(c.nodeRedis).padStart(9)} op/s (client ${c.nodeRedisCpu.toFixed(1)} µs CPU/call)`,
            );
    }
} finally {
    for (const server of servers) server.stop();
    removeDir(dir);
}

/**
 * What `redis-cli --pipe` does, in process (a process start would weigh on short runs): writes `data` (RESP
 * commands) on a new connection and resolves with the seconds until `expected` replies came back; rejects on the
 * first error reply. The replies are counted, not kept.
 */
function replay(port, data, expected) {
    return new Promise((resolveSeconds, reject) => {
        const socket = connect(port, '127.0.0.1');
        let left = Buffer.alloc(0);
        let replies = 0;
        let started;
        socket.once('connect', () => {
            started = performance.now();
            socket.write(data);
        });
        socket.on('error', reject);
        socket.on('data', (chunk) => {
            const buffer = left.length === 0 ? chunk : Buffer.concat([left, chunk]);
            let at = 0;
            for (;;) {
                const end = replyEnd(buffer, at);
                if (end < 0) break;
                if (buffer[at] === 0x2d) {
                    socket.destroy();
                    reject(new Error(`error reply: ${buffer.toString('utf8', at + 1, end - 2)}`));
                    return;
                }
                replies++;
                at = end;
            }
            left = buffer.subarray(at);
            if (replies === expected) {
                const seconds = (performance.now() - started) / 1000;
                socket.destroy();
                resolveSeconds(seconds);
            }
        });
    });
}

/** Where the RESP2 reply starting at `at` ends, or -1 when it is not complete yet. */
function replyEnd(buffer, at) {
    if (at >= buffer.length) return -1;
    const line = buffer.indexOf('\r\n', at);
    if (line < 0) return -1;
    const type = buffer[at];
    if (type === 0x2b || type === 0x2d || type === 0x3a) return line + 2; // + - :
    const n = Number(buffer.toString('latin1', at + 1, line));
    if (type === 0x24) {
        // $: a bulk string of n bytes (or nil)
        if (n < 0) return line + 2;
        return line + 2 + n + 2 <= buffer.length ? line + 2 + n + 2 : -1;
    }
    // *: an array of n replies (or nil)
    let end = line + 2;
    for (let i = 0; i < n; i++) {
        end = replyEnd(buffer, end);
        if (end < 0) return -1;
    }
    return end;
}

/** Prints rows under a header: the first two columns left-aligned, the others right-aligned. */
function table(header, lines) {
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    for (const line of [header, ...lines])
        console.log(line.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
}

/** The text of a generated file. */
function fileOf(files, name) {
    const file = files.find((f) => f.path === name || f.path.endsWith(`/${name}`));
    if (!file) throw new Error(`the design wrote no ${name}`);
    return file.content;
}

function fmt(perSecond) {
    return Math.round(perSecond).toLocaleString('en-US');
}
