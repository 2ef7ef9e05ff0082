// Memory of the entity store vs the rows: B books (3 tags of T, a publisher of P) created through kv_op, then
// MEMORY USAGE summed per key class. node mem.mjs <engine> <port> [B]
import { design, connect, prepare, ops } from './es.mjs';
const [engine = 'rs1', port = '7311', b = '5000'] = process.argv.slice(2);
const B = Number(b), T = 100, P = 20;
const ds = await design('shop.pidm', engine);
const c = await connect(port);
await c.sendCommand(['FLUSHALL']);
await prepare(c, ds);
const o = ops(ds);
for (let i = 0; i < P; i++) await o.create(c, 'Publisher', { code: `p${i}`, pname: `Publisher number ${i}` });
for (let i = 0; i < T; i++) await o.create(c, 'Tag', { name: `tag${i}`, label: `Label of tag ${i}` });
const t0 = Date.now();
for (let i = 0; i < B; i += 64)
    await Promise.all(Array.from({ length: Math.min(64, B - i) }, (_, j) => {
        const k = i + j;
        return o.create(c, 'Book', { isbn: `978-${100000 + k}`, title: `A title of book ${k}`, author: `Author ${k % 500}`, rank: k, tags: [`tag${k % T}`, `tag${(k * 7 + 1) % T}`, `tag${(k * 13 + 2) % T}`].filter((x, y, a) => a.indexOf(x) === y), publisher: `p${k % P}` });
    }));
const seconds = (Date.now() - t0) / 1000;
const classes = { 'entity Book': /^kv:Book:\{[^}]*\}$/, 'entity Tag': /^kv:Tag:\{[^}]*\}$/, 'entity Publisher': /^kv:Publisher:\{[^}]*\}$/, 'rev sets': /^kv:.*:</, 'rows Q3': /^Q3_booksWithTag[_:]/, 'rows Q6': /^Q6_booksOfAuthor[_:]/, 'core index keys': /^\{Q[36]/ };
const sum = {};
let cursor = '0';
do {
    const [next, keys] = await c.sendCommand(['SCAN', cursor, 'COUNT', '1000']);
    cursor = String(next);
    for (const key of keys) {
        const cls = Object.entries(classes).find(([, re]) => re.test(key))?.[0] ?? `other ${key}`;
        const bytes = Number(await c.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0']));
        sum[cls] ??= { keys: 0, bytes: 0 };
        sum[cls].keys++;
        sum[cls].bytes += bytes;
    }
} while (cursor !== '0');
console.log(`${engine}: ${B} books created through kv_op in ${seconds}s (${Math.round(B / seconds)}/s, 64 in flight, node client)`);
for (const [k, v] of Object.entries(sum).sort()) console.log(`${k.padEnd(18)} keys=${String(v.keys).padStart(6)} bytes=${String(v.bytes).padStart(9)} per key=${Math.round(v.bytes / v.keys)}`);
if (engine === 'rs1') for (const ix of ds.vm.collections) {
    const info = await c.sendCommand(['FT.INFO', ix.physicalIndex]);
    const m = Object.fromEntries(Array.from({ length: info.length / 2 }, (_, i) => [info[2 * i], info[2 * i + 1]]));
    console.log(`index ${ix.physicalIndex}: docs=${m.num_docs} inverted_sz_mb=${m.inverted_sz_mb} offset_vectors_sz_mb=${m.offset_vectors_sz_mb} doc_table_size_mb=${m.doc_table_size_mb} sortable_values_size_mb=${m.sortable_values_size_mb} key_table_size_mb=${m.key_table_size_mb}`);
}
console.log('used_memory', (await c.sendCommand(['INFO', 'memory'])).match(/used_memory:(\d+)/)[1]);
await c.quit();
