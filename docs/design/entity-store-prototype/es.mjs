// Client side of the entity-store prototype: encodes entity values with kvmod's TypeScript encoders (read-only
// import of /work/main/out), calls the library's kv_op, and checks a live server as it is (rows and index entries
// vs what the stored entities imply, through kvmod's own materialization).
import { createClient } from '../../../node_modules/redis/dist/index.js';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadRuntimeDesign } from '../../../out/src/runtime/runtime-design.js';
import { buildRedisViewModel } from '../../../out/src/generation/redis/redis-view-model.js';
import { bindRedisCommand } from '../../../out/src/generation/redis/redis-commands.js';
import { encodeRedisValue, decodeRedisValue, encodeSortKey } from '../../../out/src/generation/redis/redis-encoding.js';
import { equalityForm } from '../../../out/src/generation/redis/redis-text-rules.js';
import { escapeTagValue } from '../../../out/src/generation/redis/redis-escaping.js';
import { materializeCollection } from '../../../out/src/runtime/materialize.js';
import { indexInstanceData } from '../../../out/src/runtime/instance-data.js';
import { rowParameters } from '../../../out/src/runtime/redis-loader.js';
import { generateTarget } from '../../../out/src/generation/generation-engine.js';
import { redisCoreTarget } from '../../../out/src/generation/redis-core/redis-core-target.js';
import { coreRowValues, coreRowKey } from '../../../out/src/runtime/redis-core/core-engine.js';
import { coreEqualityForm } from '../../../out/src/runtime/redis-core/core-consistency.js';

export const PREFIX = 'kv:';
const esc = (s) => s.replace(/%/g, '%25').replace(/:/g, '%3A').replace(/\{/g, '%7B').replace(/\}/g, '%7D');
export const ekey = (E, id) => `${PREFIX}${E}:{${esc(String(id))}}`;

/** The design for an engine: runtime model, KVLM, the engine's view model, the forms each attribute needs. */
export async function design(file, engine) {
    const d = await loadRuntimeDesign(file, { merge: 'none' });
    const lib = execFileSync('node', [new URL('./gen.mjs', import.meta.url).pathname, file, engine], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    let vm, core;
    if (engine === 'core') core = (await generateTarget(redisCoreTarget, d.kvlm)).viewModel;
    else vm = buildRedisViewModel(d.kvlm, { dialect: engine === 'rs1' ? 'redisearch1' : 'redisearch2' });
    // Companion forms an attribute needs (`#sort`, `#eq`), from the fields that copy it.
    const forms = new Map();
    for (const c of vm?.collections ?? []) {
        const nodes = new Map([[c.root.name, c.root.entity], ...c.nodes.map((n) => [n.name, n.entity])]);
        for (const f of c.fields) {
            const [n, a] = f.source.split('.');
            const key = `${nodes.get(n)}.${a}`;
            if (!forms.has(key)) forms.set(key, new Set());
            if (f.sortKey) forms.get(key).add('sort');
            if (f.equalityKey) forms.get(key).add('eq');
        }
    }
    return { ...d, engine, lib, vm, core, forms };
}

/** The stored forms of one attribute value (what the entity hash holds). */
export function storedForms(ds, E, attr, value) {
    const entity = ds.model.entities.get(E);
    const a = entity.attributes.find((x) => x.name === attr);
    if (!a) throw new Error(`${E} has no attribute ${attr}`);
    const enc = encodeRedisValue(a.type, value);
    const out = [attr, enc];
    for (const form of ds.forms.get(`${E}.${attr}`) ?? []) {
        out.push(`${attr}#${form}`, form === 'sort' ? encodeSortKey(enc) : equalityForm(enc));
    }
    return out;
}

export async function connect(port) {
    const client = createClient({ url: `redis://127.0.0.1:${port}`, RESP: 2 });
    client.on('error', () => {});
    await client.connect();
    return client;
}

/** Prepares a server: indexes (rs1) and the function library. */
export async function prepare(client, ds) {
    if (ds.vm) for (const c of ds.vm.collections) {
        try { await client.sendCommand(bindRedisCommand(c.create, {})); } catch (e) { if (!/already exists/i.test(e.message)) throw e; }
    }
    await client.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', ds.lib]);
}

/** The typed-client calls, as the generated client would make them. */
export function ops(ds) {
    const call = (client, args) => client.sendCommand(['FCALL', 'kv_op', '0', ...args]);
    return {
        create(client, E, object) {
            const entity = ds.model.entities.get(E);
            const args = ['create', E, String(object[entity.idName])];
            for (const a of entity.attributes) if (!a.isId || true) args.push(...storedForms(ds, E, a.name, object[a.name]));
            // The id's own forms are sent as attributes too (key parts read them); the server takes `id` from ARGV 3.
            for (const r of entity.references) {
                const v = object[r.name];
                if (v === undefined || v === null) continue;
                args.push(`>${r.name}`, r.kind === 'many' ? (v.length ? JSON.stringify(v.map(String)) : '') : String(v));
            }
            return call(client, args);
        },
        update(client, E, id, patch) {
            const args = ['update', E, String(id)];
            for (const [attr, value] of Object.entries(patch)) if (value !== undefined) args.push(...storedForms(ds, E, attr, value));
            return call(client, args);
        },
        raw: call,
        delete: (client, E, id) => call(client, ['delete', E, String(id)]),
        add: (client, E, id, ref, ids) => call(client, ['add', E, String(id), ref, ...ids.map(String)]),
        remove: (client, E, id, ref, ids) => call(client, ['remove', E, String(id), ref, ...ids.map(String)]),
        set: (client, E, id, ref, target) => call(client, ['set', E, String(id), ref, target == null ? '' : String(target)]),
    };
}

async function scan(client, pattern) {
    const keys = [];
    let cursor = '0';
    do {
        const [next, batch] = await client.sendCommand(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']);
        cursor = String(next);
        keys.push(...batch);
    } while (cursor !== '0');
    return keys;
}
const pairs = (flat) => Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i], flat[2 * i + 1]]));

/** The entities the server holds, as instance data (what `get` returns). */
export async function readEntities(client, ds) {
    const data = {};
    for (const entity of ds.model.entities.values()) {
        data[entity.name] = [];
        for (const key of await scan(client, `${PREFIX}${entity.name}:{*}`)) {
            if (!key.endsWith('}')) continue;
            const h = pairs(await client.sendCommand(['HGETALL', key]));
            const o = {};
            for (const a of entity.attributes) o[a.name] = decodeRedisValue(a.type, h[a.name]);
            for (const r of entity.references) {
                const v = h[`>${r.name}`];
                o[r.name] = r.kind === 'many' ? (v ? JSON.parse(v) : []) : (v ?? null);
            }
            data[entity.name].push(o);
        }
    }
    return data;
}

/**
 * The live check: rows and index entries on the server vs what the stored entities imply, key for key. Returns a
 * list of differences (empty: none). Also checks the reverse-reference sets against the references.
 */
export async function liveCheck(client, ds) {
    const diffs = [];
    const data = await readEntities(client, ds);
    const index = indexInstanceData(ds.model, data);
    // reverse references
    const wantRev = new Map();
    for (const entity of ds.model.entities.values())
        for (const o of data[entity.name])
            for (const r of entity.references) {
                const v = o[r.name];
                for (const t of r.kind === 'many' ? v : v == null ? [] : [v]) {
                    const k = `${ekey(r.target, t)}:<${entity.name}.${r.name}`;
                    if (!wantRev.has(k)) wantRev.set(k, new Set());
                    wantRev.get(k).add(String(o[entity.idName]));
                }
            }
    for (const key of await scan(client, `${PREFIX}*:<*`)) {
        const have = new Set(await client.sendCommand(['SMEMBERS', key]));
        const want = wantRev.get(key) ?? new Set();
        if ([...have].sort().join() !== [...want].sort().join()) diffs.push(`rev ${key}: ${[...have]} vs ${[...want]}`);
        wantRev.delete(key);
    }
    for (const k of wantRev.keys()) diffs.push(`rev ${k} missing`);
    for (const kc of ds.kvlm.collections) {
        const rows = materializeCollection(kc, data, index).rows;
        const want = new Map();
        if (ds.vm) {
            const rc = ds.vm.collections.find((c) => c.name === kc.name);
            for (const row of rows) {
                const argv = bindRedisCommand(rc.insert, rowParameters(rc, row));
                want.set(argv[2], pairs(argv.slice(6)));
            }
            const have = await scan(client, `${rc.keyPrefix}*`);
            for (const key of have) {
                const h = pairs(await client.sendCommand(['HGETALL', key]));
                const w = want.get(key);
                if (!w) diffs.push(`stale row ${key}`);
                else if (JSON.stringify(Object.entries(h).sort()) !== JSON.stringify(Object.entries(w).sort()))
                    diffs.push(`row ${key}: ${JSON.stringify(h)} vs ${JSON.stringify(w)}`);
            }
            for (const key of want.keys()) if (!have.includes(key)) diffs.push(`missing row ${key}`);
            // index entries: all documents, then each indexed value's documents
            const all = await client.sendCommand(['FT.SEARCH', rc.physicalIndex, '*', 'NOCONTENT', 'LIMIT', '0', '1000000']);
            const docs = new Set(all.slice(1));
            if (docs.size !== want.size || [...want.keys()].some((k) => !docs.has(k))) diffs.push(`index ${rc.physicalIndex}: ${docs.size} docs vs ${want.size} rows`);
            for (const f of rc.fields) {
                const name = f.equalityKey ?? (f.index ? f.name : null);
                if (!name) continue;
                const numeric = f.index?.type === 'NUMERIC' && !f.equalityKey;
                const byValue = new Map();
                for (const [key, h] of want) {
                    const v = numeric ? h[name] : h[name].trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
                    if (!byValue.has(v)) byValue.set(v, new Set());
                    byValue.get(v).add(key);
                }
                for (const [v, keys] of byValue) {
                    const q = numeric ? `@${name}:[${v} ${v}]` : `@${name}:{${escapeTagValue(v)}}`;
                    const got = (await client.sendCommand(['FT.SEARCH', rc.physicalIndex, q, 'NOCONTENT', 'LIMIT', '0', '1000000'])).slice(1);
                    if (got.length !== keys.size || got.some((k) => !keys.has(k))) diffs.push(`index ${rc.physicalIndex} ${q}: ${got.length} vs ${keys.size}`);
                }
            }
        } else {
            const cc = ds.core.collections.find((c) => c.name === kc.name);
            for (const row of rows) {
                const values = coreRowValues(cc, row);
                const h = { [cc.keyField]: coreRowKey(cc, row).slice(cc.rowPrefix.length) };
                cc.fields.forEach((f, i) => (h[f.name] = values[i]));
                want.set(coreRowKey(cc, row), { h, values });
            }
            const have = await scan(client, `${cc.rowPrefix}*`);
            for (const key of have) {
                const h = pairs(await client.sendCommand(['HGETALL', key]));
                const w = want.get(key);
                if (!w) diffs.push(`stale row ${key}`);
                else if (JSON.stringify(Object.entries(h).sort()) !== JSON.stringify(Object.entries(w.h).sort()))
                    diffs.push(`row ${key}: ${JSON.stringify(h)} vs ${JSON.stringify(w.h)}`);
            }
            for (const key of want.keys()) if (!have.includes(key)) diffs.push(`missing row ${key}`);
            const rec = pairs(await client.sendCommand(['HGETALL', cc.recordKey]));
            for (const [key, w] of want) {
                const r = JSON.stringify(cc.record.map((c) => w.values[c.position - 1]));
                if (rec[key] !== r) diffs.push(`record ${key}: ${rec[key]} vs ${r}`);
                delete rec[key];
            }
            for (const k of Object.keys(rec)) diffs.push(`stale record ${k}`);
            for (const ix of cc.indexes) {
                if (ix.kind !== 'eq') continue;
                const wantEq = new Map();
                for (const [key, w] of want) {
                    const k = ix.key + coreEqualityForm(w.values[cc.fields.findIndex((f) => f.name === ix.field)]);
                    if (!wantEq.has(k)) wantEq.set(k, new Set());
                    wantEq.get(k).add(key);
                }
                for (const k of await scan(client, `${ix.key.replace(/[{}]/g, '\\$&')}*`)) {
                    const got = await client.sendCommand(['SMEMBERS', k]);
                    const w = wantEq.get(k) ?? new Set();
                    if (got.length !== w.size || got.some((x) => !w.has(x))) diffs.push(`eq ${k}: ${got.length} vs ${w.size}`);
                    wantEq.delete(k);
                }
                for (const k of wantEq.keys()) diffs.push(`eq ${k} missing`);
            }
        }
    }
    return diffs;
}

/** A digest of every key (DUMP), to show that a refused operation wrote nothing. */
export async function digest(client) {
    const keys = (await scan(client, '*')).sort();
    const parts = [];
    for (const k of keys) {
        const type = await client.sendCommand(['TYPE', k]);
        if (type === 'hash') parts.push(k, JSON.stringify(Object.entries(pairs(await client.sendCommand(['HGETALL', k]))).sort()));
        else if (type === 'set') parts.push(k, (await client.sendCommand(['SMEMBERS', k])).sort().join('\0'));
        else if (type === 'zset') parts.push(k, (await client.sendCommand(['ZRANGE', k, '0', '-1', 'WITHSCORES'])).join('\0'));
        else parts.push(k, type);
    }
    return parts.join('\n');
}
