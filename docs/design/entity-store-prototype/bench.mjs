// bench: entity operations per second through kv_op vs the floor (the same keys written by plain pipelined commands:
// rs1: HSET entity + FT.ADD REPLACE of each touched row; core: HSET entity + FCALL shop_put of each touched row;
// also a raw HSET of the same keys, no index). node bench.mjs <engine> <port> <N books on the hot tag> [ops]
import { design, connect, prepare, ops, ekey } from './es.mjs';
const [engine = 'rs1', port = '7311', n = '10', count = '2000'] = process.argv.slice(2);
const N = Number(n), OPS = Number(count), DEPTH = 64;
const ds = await design('shop.pidm', engine);
const c = await connect(port);
await c.sendCommand(['FLUSHALL']);
await prepare(c, ds);
const o = ops(ds);
await o.create(c, 'Publisher', { code: 'p', pname: 'Pub' });
for (const t of ['hot', 'a', 'b']) await o.create(c, 'Tag', { name: t, label: t });
const books = Math.max(N, 200);
for (let i = 0; i < books; i++)
    await o.create(c, 'Book', { isbn: `b${i}`, title: `T${i}`, author: `A${i % 7}`, rank: i, tags: i < N ? ['hot', 'a', 'b'] : ['a'], publisher: 'p' });
if (process.env.SETUP_ONLY) { await c.quit(); process.exit(0); }
const q3 = engine === 'core' ? 'Q3_booksWithTag:' : ds.vm.collections.find((x) => x.name === 'Q3_booksWithTag').keyPrefix;
const q6 = engine === 'core' ? 'Q6_booksOfAuthor:' : ds.vm.collections.find((x) => x.name === 'Q6_booksOfAuthor').keyPrefix;
const scenarios = {
    // rename the hot tag: N Q3 rows copy its label
    renameTag: { op: (i) => o.update(c, 'Tag', 'hot', { label: `L${i % 2}` }), entity: ekey('Tag', 'hot'), rows: () => Array.from({ length: N }, (_, i) => [q3, `${q3}b${i}:hot`]) },
    // change a sorted/indexed attribute of a book on 3 tags: 3 Q3 rows + 1 Q6 row move in the indexes
    bookRank: { op: (i) => o.update(c, 'Book', 'b0', { rank: 1000 + (i % 2) }), entity: ekey('Book', 'b0'), rows: () => [[q3, `${q3}b0:hot`], [q3, `${q3}b0:a`], [q3, `${q3}b0:b`], [q6, `${q6}b0`]] },
};
const pairsOf = (flat) => flat;
async function run(label, make) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < OPS; i += DEPTH) await Promise.all(Array.from({ length: Math.min(DEPTH, OPS - i) }, (_, j) => make(i + j)));
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    return OPS / s;
}
const results = [];
for (const [name, sc] of Object.entries(scenarios)) {
    await sc.op(0);
    const rows = sc.rows();
    // the floor's commands, made from the rows as the operation leaves them
    const ent = await c.sendCommand(['HGETALL', sc.entity]);
    const rowCmds = [];
    for (const [prefix, key] of rows) {
        const h = await c.sendCommand(['HGETALL', key]);
        if (h.length === 0) throw new Error(`no row ${key}`);
        if (engine === 'rs1') {
            const idx = ds.vm.collections.find((x) => x.keyPrefix === prefix);
            rowCmds.push(['FT.ADD', idx.physicalIndex, key, '1.0', 'REPLACE', 'FIELDS', ...h]);
        } else {
            const cc = ds.core.collections.find((x) => x.rowPrefix === prefix);
            const m = Object.fromEntries(Array.from({ length: h.length / 2 }, (_, i) => [h[2 * i], h[2 * i + 1]]));
            rowCmds.push(['FCALL', 'shop_put', '2', key, cc.recordKey, cc.name, ...cc.fields.map((f) => m[f.name])]);
        }
    }
    const rawCmds = [['HSET', sc.entity, ...ent], ...(await Promise.all(rows.map(async ([, key]) => ['HSET', key, ...(await c.sendCommand(['HGETALL', key]))])))];
    await c.sendCommand(['CONFIG', 'RESETSTAT']);
    const opRate = await run('op', sc.op);
    const stats = await c.sendCommand(['INFO', 'commandstats']);
    const floorRate = await run('floor', () => Promise.all([c.sendCommand(['HSET', sc.entity, ...ent]), ...rowCmds.map((cmd) => c.sendCommand(cmd))]));
    const rawRate = await run('raw', () => Promise.all(rawCmds.map((cmd) => c.sendCommand(cmd))));
    const fcall = /cmdstat_fcall:calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)/.exec(stats);
    results.push({ engine, scenario: name, N, keysPerOp: 1 + rows.length, opsPerSec: Math.round(opRate), floorPerSec: Math.round(floorRate), ratio: +(opRate / floorRate).toFixed(2), rawHsetPerSec: Math.round(rawRate), ratioRaw: +(opRate / rawRate).toFixed(2), serverUsecPerOp: fcall ? +fcall[3] : null });
}
for (const r of results) console.log(JSON.stringify(r));
await c.quit();
