// Builds the entity-store Lua library for a PIDM model from kvmod's own design (read-only import of /work/main/out):
// the model tables (entities, referrers, collections as node trees with field sources as stored forms) + entity.lua.
// Usage: node gen.mjs shop.pidm rs1|rs2|core > lib-<engine>.lua
import { readFileSync } from 'node:fs';
import { loadRuntimeDesign } from '../../../out/src/runtime/runtime-design.js';
import { buildRedisViewModel } from '../../../out/src/generation/redis/redis-view-model.js';
import { generateTarget } from '../../../out/src/generation/generation-engine.js';
import { redisCoreTarget } from '../../../out/src/generation/redis-core/redis-core-target.js';

const [file = 'shop.pidm', engine = 'rs1'] = process.argv.slice(2);
const d = await loadRuntimeDesign(file, { merge: 'none' });
const lua = (v) => {
    if (v === null || v === undefined) return 'nil';
    if (typeof v === 'string') return JSON.stringify(v).replace(/\\u00([0-9a-f]{2})/g, (_, h) => '\\' + String(parseInt(h, 16)).padStart(3, '0'));
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (Array.isArray(v)) return `{ ${v.map(lua).join(', ')} }`;
    return `{ ${Object.entries(v).map(([k, x]) => `[${lua(k)}] = ${lua(x)}`).join(', ')} }`;
};
const entities = {};
for (const e of d.model.entities.values()) {
    entities[e.name] = {
        id: e.idName,
        attrs: Object.fromEntries(e.attributes.filter((a) => !a.isId).map((a) => [a.name, a.type])),
        refs: Object.fromEntries(e.references.map((r) => [r.name, { target: r.target, kind: r.kind, min: r.minItems }])),
        referrers: [],
    };
}
for (const [name, e] of Object.entries(entities))
    for (const [ref, r] of Object.entries(e.refs)) entities[r.target].referrers.push({ entity: name, ref });

// A field's source `node.attribute` as the stored form the entity hash holds: `attr`, `attr#sort`, `attr#eq`.
const colls = [];
let prelude = '';
if (engine === 'core') {
    const { viewModel, files } = await generateTarget(redisCoreTarget, d.kvlm);
    prelude = files.find((f) => f.path === 'library.lua').content;
    for (const c of viewModel.collections) {
        const k = d.kvlm.collections.find((x) => x.name === c.name);
        const nodes = [{ name: k.root.name, entity: k.root.entity }, ...k.nodes.map((n) => ({ name: n.name, entity: n.entity, parent: n.parent.ref?.name ?? n.parent.$refText, ref: n.reference, kind: n.cardinality }))];
        const pos = (name) => nodes.findIndex((n) => n.name === name) + 1;
        colls.push({
            name: c.name, prefix: c.rowPrefix, idField: c.keyField,
            nodes: nodes.map((n) => ({ entity: n.entity, parent: n.parent ? pos(n.parent) : 0, ref: n.ref ?? '' })),
            key: k.strategy.parts.map((p) => ({ node: pos(p.node.ref?.name ?? p.node.$refText), form: p.attribute })),
            fields: c.fields.map((f) => { const [n, a] = f.source.split('.'); return { name: f.name, node: pos(n), form: a, indexed: c.record.some((r) => r.field === f.name) }; }),
            ids: k.strategy.parts.every((p) => d.model.entities.get(nodes[pos(p.node.ref?.name ?? p.node.$refText) - 1].entity).idName === p.attribute),
        });
    }
} else {
    const vm = buildRedisViewModel(d.kvlm, { dialect: engine === 'rs1' ? 'redisearch1' : 'redisearch2' });
    for (const c of vm.collections) {
        const nodes = [{ name: c.root.name, entity: c.root.entity }, ...c.nodes];
        const pos = (name) => nodes.findIndex((n) => n.name === name) + 1;
        const fields = [];
        for (const f of c.fields) {
            const [n, a] = f.source.split('.');
            const inSchema = (name) => c.schemaFields.includes(name);
            fields.push({ name: f.name, node: pos(n), form: a, indexed: inSchema(f.name) });
            if (f.sortKey) fields.push({ name: f.sortKey, node: pos(n), form: `${a}#sort`, indexed: inSchema(f.sortKey) });
            if (f.equalityKey) fields.push({ name: f.equalityKey, node: pos(n), form: `${a}#eq`, indexed: inSchema(f.equalityKey) });
        }
        colls.push({
            name: c.name, index: c.physicalIndex, prefix: c.keyPrefix, idField: c.idField,
            nodes: nodes.map((n) => ({ entity: n.entity, parent: n.parent ? pos(n.parent) : 0, ref: n.reference ?? '' })),
            key: c.key.parts.map((p) => { const [n, a] = p.source.split('.'); return { node: pos(n), form: a }; }),
            ids: c.key.parts.every((p) => { const [n, a] = p.source.split('.'); return d.model.entities.get(nodes[pos(n) - 1].entity).idName === a; }),
            fields,
        });
        if (engine !== 'core') console.error(vm.collections.length && c.create.argv.map((a) => a.join('')).join(' '));
    }
}
const body = readFileSync(new URL('./entity.lua', import.meta.url), 'utf8');
const head = prelude ? prelude : '#!lua name=kvmod_entities\n';
process.stdout.write(`${head}\n-- ===== entity store (prototype) =====\nlocal ENGINE = ${lua(engine)}\nlocal ENTITIES = ${lua(entities)}\nlocal ECOLLS = ${lua(colls)}\n${body}`);
