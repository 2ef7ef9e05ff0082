// Random entity operations (valid and invalid) from 1 or 2 concurrent writers, live check every `every` ops.
// node workload.mjs <engine> <port> <ops> <writers> <seed> [every]
import { design, connect, prepare, ops, liveCheck, digest } from './es.mjs';
const [engine = 'rs1', port = '7311', total = '2000', writers = '2', seed = '1', every = '100'] = process.argv.slice(2);
const ds = await design('shop.pidm', engine);
const admin = await connect(port);
await admin.sendCommand(['FLUSHALL']);
await prepare(admin, ds);
const o = ops(ds);
let s = Number(seed) >>> 0;
const rnd = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0) / 2 ** 32);
const pick = (a) => a[Math.floor(rnd() * a.length)];
const BOOKS = Array.from({ length: 12 }, (_, i) => `b${i}`), TAGS = ['t0', 't1', 't2', 't3', 'x:y{z}'], PUBS = ['p0', 'p1', 'p2'];
const WORDS = ['Alpha', 'beta', ' Gamma ', 'DELTA', 'é', 'a:b', '%'];
const randomOp = () => {
    const r = rnd();
    if (r < 0.12) return ['create Publisher', (c) => o.create(c, 'Publisher', { code: pick(PUBS), pname: pick(WORDS) })];
    if (r < 0.24) return ['create Tag', (c) => o.create(c, 'Tag', { name: pick(TAGS), label: pick(WORDS) })];
    if (r < 0.40) return ['create Book', (c) => o.create(c, 'Book', { isbn: pick(BOOKS), title: pick(WORDS), author: pick(WORDS), rank: Math.floor(rnd() * 5), tags: [...new Set([pick(TAGS), pick(TAGS)])], publisher: pick(PUBS) })];
    if (r < 0.50) return ['update Book', (c) => o.update(c, 'Book', pick(BOOKS), rnd() < 0.5 ? { rank: Math.floor(rnd() * 5) } : { title: pick(WORDS), author: rnd() < 0.5 ? pick(WORDS) : undefined })];
    if (r < 0.58) return ['update Tag', (c) => o.update(c, 'Tag', pick(TAGS), { label: pick(WORDS) })];
    if (r < 0.64) return ['update Publisher', (c) => o.update(c, 'Publisher', pick(PUBS), { pname: pick(WORDS) })];
    if (r < 0.72) return ['add tags', (c) => o.add(c, 'Book', pick(BOOKS), 'tags', [pick(TAGS)])];
    if (r < 0.80) return ['remove tags', (c) => o.remove(c, 'Book', pick(BOOKS), 'tags', [pick(TAGS)])];
    if (r < 0.85) return ['set publisher', (c) => o.set(c, 'Book', pick(BOOKS), 'publisher', pick(PUBS))];
    if (r < 0.91) return ['delete Book', (c) => o.delete(c, 'Book', pick(BOOKS))];
    if (r < 0.95) return ['delete Tag', (c) => o.delete(c, 'Tag', pick(TAGS))];
    if (r < 0.97) return ['delete Publisher', (c) => o.delete(c, 'Publisher', pick(PUBS))];
    return ['bad number', (c) => o.raw(c, ['update', 'Book', pick(BOOKS), 'rank', 'NaN!'])];
};
const clients = await Promise.all(Array.from({ length: Number(writers) }, () => connect(port)));
const outcome = {};
let done = 0, refusedChecked = 0, diffsTotal = 0, checks = 0;
const t0 = Date.now();
while (done < Number(total)) {
    // one round: each writer sends `every / writers` ops concurrently with the others (pipelined, not awaited one by one)
    const rounds = clients.map((c) => {
        const batch = Array.from({ length: Math.floor(Number(every) / clients.length) }, randomOp);
        return Promise.all(batch.map(([name, run]) => run(c).then(() => [name, 'ok'], (e) => [name, e.message.split(' ')[0]])));
    });
    for (const results of await Promise.all(rounds)) for (const [name, r] of results) {
        const k = `${name} ${r}`;
        outcome[k] = (outcome[k] ?? 0) + 1;
        done++;
    }
    // single-writer probe: a refused op leaves every key as it was
    const before = await digest(admin);
    let refused = false;
    for (let i = 0; i < 20 && !refused; i++) {
        const [, run] = randomOp();
        try { await run(admin); } catch { refused = true; }
        if (!refused) break;
    }
    if (refused) { refusedChecked++; if (before !== await digest(admin)) { console.log('REFUSED OP WROTE SOMETHING'); diffsTotal++; } }
    const diffs = await liveCheck(admin, ds);
    checks++;
    diffsTotal += diffs.length;
    if (diffs.length) { console.log('DIFFS after', done, diffs.slice(0, 5)); break; }
}
console.log(JSON.stringify({ engine, writers: Number(writers), ops: done, checks, refusedChecked, diffs: diffsTotal, seconds: (Date.now() - t0) / 1000 }));
console.log(Object.entries(outcome).sort().map(([k, v]) => `${k}: ${v}`).join('; '));
for (const c of [...clients, admin]) await c.quit();
