// The bulk path: entities + reverse references + rows written in bulk (rows through kvmod's existing loaders, from
// its TypeScript materialization) must leave exactly the keys that creating the same entities one kv_op at a time
// leaves. node load.mjs <engine> <port> [books]
import { design, connect, prepare, ops, digest, liveCheck, storedForms, ekey } from './es.mjs';
import { indexInstanceData } from '../../../out/src/runtime/instance-data.js';
import { streamModel } from '../../../out/src/runtime/materialize.js';
import { connectRedis } from '../../../out/src/runtime/redis-link.js';
import { loadIntoRedis } from '../../../out/src/runtime/redis-loader.js';
import { connectCore } from '../../../out/src/runtime/redis-core/core-connection.js';
import { writeCoreRows } from '../../../out/src/runtime/redis-core/core-engine.js';
const [engine = 'rs1', port = '7311', b = '300'] = process.argv.slice(2);
const B = Number(b);
const ds = await design('shop.pidm', engine);
const data = {
    Publisher: Array.from({ length: 5 }, (_, i) => ({ code: `p${i}`, pname: `Pub ${i}` })),
    Tag: Array.from({ length: 20 }, (_, i) => ({ name: i === 3 ? 'a:b{c}%' : `tag${i}`, label: `Label ${i}` })),
};
data.Book = Array.from({ length: B }, (_, k) => ({ isbn: `b${k}`, title: `Title ${k}`, author: `Author ${k % 9}`, rank: k % 50, tags: [...new Set([k % 20, (k * 7) % 20])].map((i) => data.Tag[i].name), publisher: `p${k % 5}` }));
const c = await connect(port);
// A: one operation at a time
await c.sendCommand(['FLUSHALL']);
await prepare(c, ds);
const o = ops(ds);
let t = Date.now();
for (const E of ['Publisher', 'Tag', 'Book']) for (const x of data[E]) await o.create(c, E, x);
const opsMs = Date.now() - t;
const a = await digest(c);
// B: bulk
await c.sendCommand(['FLUSHALL']);
await prepare(c, ds);
t = Date.now();
const writes = [];
for (const entity of ds.model.entities.values()) for (const x of data[entity.name]) {
    const args = ['HSET', ekey(entity.name, x[entity.idName])];
    for (const attr of entity.attributes) args.push(...storedForms(ds, entity.name, attr.name, x[attr.name]));
    for (const r of entity.references) {
        const v = x[r.name];
        if (r.kind === 'many' ? v.length : v != null) args.push(`>${r.name}`, r.kind === 'many' ? JSON.stringify(v.map(String)) : String(v));
        for (const tid of r.kind === 'many' ? v : v == null ? [] : [v]) writes.push(['SADD', `${ekey(r.target, tid)}:<${entity.name}.${r.name}`, String(x[entity.idName])]);
    }
    args.push('_v', '1');
    writes.push(args);
}
await Promise.all(writes.map((w) => c.sendCommand(w)));
const rows = streamModel(ds.kvlm, data, indexInstanceData(ds.model, data));
if (engine === 'rs1') {
    const link = await connectRedis(`redis://127.0.0.1:${port}`);
    await loadIntoRedis(link, ds.vm, rows, { skipIndexes: true });
    await link.close?.();
} else {
    const conn = await connectCore(`redis://127.0.0.1:${port}`);
    await writeCoreRows(conn, ds.core, rows);
    await conn.close?.();
}
const bulkMs = Date.now() - t;
const bDigest = await digest(c);
const keys = a.split('\n').length / 2;
console.log(`${engine}: ${keys} keys; one op at a time ${opsMs} ms, bulk ${bulkMs} ms; identical keys and values: ${a === bDigest}; live check after bulk: ${JSON.stringify(await liveCheck(c, ds))}`);
if (a !== bDigest) {
    const x = a.split('\n'), y = bDigest.split('\n');
    for (let i = 0; i < Math.max(x.length, y.length); i++) if (x[i] !== y[i]) { console.log('first difference:', x[i], '|', y[i]); break; }
}
await c.quit();
process.exit(0);
