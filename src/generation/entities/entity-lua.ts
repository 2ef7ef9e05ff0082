/**
 * The Lua of a design's entity Function (issue 28; docs/design/entity-store.md section 4): generic code, the same for
 * every design, driven by tables generated from the design — `ENTITIES` (attributes with their stored forms,
 * references, referrers), `ENODES` (node trees) and `ECOLLS` (per collection its node tree, key parts and fields as
 * stored forms of the entity bound at a node). The server copies strings from entity hashes into rows and never
 * encodes a value: the writers store the encoded forms (src/generation/shared/entity-store.ts). Each operation reads
 * and checks everything and plans every write in memory first (phase 1), then writes (phase 2): a refused operation
 * has written nothing.
 *
 * The row writers differ per engine: `rs1` (RediSearch 1.2: `FT.ADD … REPLACE [PARTIAL]`, `FT.DEL … DD`), `rs2`
 * (RediSearch 2.x indexes hashes itself: `DEL` + `HSET`), `core` (the redis-core library's own `row_put`,
 * `index_put`, `remove_entries`: the entity code is appended to that library, whose locals it calls).
 */
import { ENTITY_KEY_ROOT, type EntityStoreSchema } from '../shared/entity-store.js';
import type { RedisLogicalType } from '../shared/redis-encoding.js';

/** A string as a Lua literal: printable ASCII as is, `"` `\\` and every other byte as a three-digit decimal escape. */
export function luaString(text: string): string {
    if (PLAIN_LUA.test(text)) return `"${text}"`;
    let out = '"';
    for (const byte of Buffer.from(text, 'utf8')) {
        const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
        out += plain ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
    }
    return `${out}"`;
}

/** Text a Lua literal holds as is: printable ASCII but `"` and `\\`. */
const PLAIN_LUA = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const LUA_KEYWORDS = new Set(
    'and break do else elseif end false for function if in local nil not or repeat return then true until while'.split(
        ' ',
    ),
);

/** A table key: a name as is, anything else bracketed. */
function luaKey(key: string): string {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) && !LUA_KEYWORDS.has(key) ? key : `[${luaString(key)}]`;
}

/** Which row writer the Function uses. */
export type EntityEngine = 'rs1' | 'rs2' | 'core';

/** A collection as the Function reads it: where every key part and field comes from. */
export interface EntityLuaCollection {
    name: string;
    /** The physical index (rs1 writes rows through it); '' elsewhere. */
    index: string;
    /** The row keys' prefix. */
    prefix: string;
    /** The hash field holding the row key after the prefix. */
    idField: string;
    /** Nodes, root first: entity, parent position (1-based; 0 for the root), reference followed from the parent. */
    nodes: { entity: string; parent: number; ref: string }[];
    /**
     * Key parts: the node (1-based) and stored form they read; `iso`: a key part no field holds takes the value's
     * identity (`2024-01-31`, `true`), not its stored form, as the loaders write it.
     */
    key: { node: number; form: string; iso?: RedisLogicalType }[];
    /** Row fields in write order: hash field, node, stored form (`attr`, `attr#sort`, `attr#eq`), whether indexed. */
    fields: { name: string; node: number; form: string; indexed: boolean }[];
    /** A counter-key collection (no key parts): its counter and its row map (binding → row number). */
    counter?: { key: string; map: string };
    /**
     * A collection a migration is building (its rows are written by the fill, root by root): a row the entities imply
     * may not exist yet, so the Function writes its rows whole, never in part (see e_fast_shape).
     */
    building?: boolean;
}

/** Key-part types whose identity differs from their stored form. */
const ISO_TYPES: ReadonlySet<RedisLogicalType> = new Set(['date', 'time', 'datetime', 'boolean']);

/** The `iso` of a key part that no field holds, read from the attribute's type. */
export function isoOfKeyOnly(type: RedisLogicalType | undefined): RedisLogicalType | undefined {
    return type !== undefined && ISO_TYPES.has(type) ? type : undefined;
}

/**
 * The model tables of the Function, as Lua source: sized by what the Function reads, each string written once where
 * it is read — a collection's fields as one text (row field, node, stored form per field: a library load parses one
 * string, not a table per field) and the positions of its indexed fields, node trees shared by the collections that
 * have the same one. What the Function derives from them (per node the forms it reads, per entity where it is
 * bound) it derives in Lua when first needed.
 */
export function entityLuaTables(
    schema: EntityStoreSchema,
    engine: EntityEngine,
    collections: EntityLuaCollection[],
): string {
    const lines = [
        `local ENGINE = ${luaString(engine)}`,
        `local ROOT = ${luaString(`${ENTITY_KEY_ROOT}:${schema.database}:`)}`,
        'local ENTITIES = {',
    ];
    for (const entity of Object.values(schema.entities)) {
        const attrs = entity.attributes.map((attribute) => {
            const numeric = attribute.type !== 'text';
            // An attribute without companions gets no `forms` table (the Function reads a missing one as empty).
            const forms =
                attribute.forms.length === 0
                    ? ''
                    : `, forms = {${attribute.forms.map((f) => `${f} = true`).join(', ')}}`;
            return `${luaKey(attribute.name)} = {numeric = ${numeric}${forms}}`;
        });
        const refs = entity.references.map(
            (reference) =>
                `${luaKey(reference.name)} = {target = ${luaString(reference.target)}, kind = ${luaString(reference.kind)}, min = ${reference.minItems}${reference.maxItems !== undefined ? `, max = ${reference.maxItems}` : ''}}`,
        );
        const referrers = entity.referrers.map((referrer) => {
            const from = schema.entities[referrer.entity].references.find(
                (reference) => reference.name === referrer.reference,
            )!;
            return `{entity = ${luaString(referrer.entity)}, ref = ${luaString(referrer.reference)}, kind = ${luaString(from.kind)}, min = ${from.minItems}}`;
        });
        lines.push(
            `    ${luaKey(entity.name)} = {id = ${luaString(entity.idName)}, attrs = {${attrs.join(', ')}}, attrOrder = {${entity.attributes.map((a) => luaString(a.name)).join(', ')}}, refs = {${refs.join(', ')}}, refOrder = {${entity.references.map((r) => luaString(r.name)).join(', ')}}, referrers = {${referrers.join(', ')}}},`,
        );
    }
    lines.push('}');
    // Node trees: the collections of a design often follow the same path (the same tree is written once).
    const trees = new Map<string, number>();
    const treeLines: string[] = [];
    const treeOf = (nodes: EntityLuaCollection['nodes']): number => {
        const text = `{${nodes.map((node) => `{entity = ${luaString(node.entity)}, parent = ${node.parent}, ref = ${luaString(node.ref)}}`).join(', ')}}`;
        let at = trees.get(text);
        if (at === undefined) {
            at = trees.size + 1;
            trees.set(text, at);
            treeLines.push(`    ${text},`);
        }
        return at;
    };
    const collLines = collections.map((collection) => {
        const tree = treeOf(collection.nodes);
        // The fast path (see the Lua): every key part is the identifier of the entity bound at its node.
        const ids = collection.key.every(
            (part) => schema.entities[collection.nodes[part.node - 1].entity]?.idName === part.form,
        );
        const key = collection.key.map(
            (part) =>
                `{node = ${part.node}, form = ${luaString(part.form)}${part.iso ? `, iso = ${luaString(part.iso)}` : ''}}`,
        );
        const fields: string[] = [];
        const indexed: number[] = [];
        collection.fields.forEach((field, i) => {
            if (/\s/.test(field.name) || /\s/.test(field.form) || field.name === '' || field.form === '')
                throw new Error(`entity Lua: the field ${JSON.stringify(field.name)} of ${collection.name} is no name`);
            fields.push(field.name, String(field.node), field.form);
            if (field.indexed) indexed.push(i + 1);
        });
        const counter = collection.counter
            ? `, counter = ${luaString(collection.counter.key)}, map = ${luaString(collection.counter.map)}`
            : '';
        const building = collection.building === true ? ', building = true' : '';
        return `    {name = ${luaString(collection.name)}, index = ${luaString(collection.index)}, prefix = ${luaString(collection.prefix)}, idField = ${luaString(collection.idField)}, nodes = ENODES[${tree}], key = {${key.join(', ')}}, fields = ${luaString(fields.join(' '))}, indexed = {${indexed.join(', ')}}, ids = ${ids}${counter}${building}},`;
    });
    lines.push('local ENODES = {', ...treeLines, '}', 'local ECOLLS = {', ...collLines, '}');
    return lines.join('\n');
}

/** The entity code (tables and functions) of a design: what the redis-core library appends to its own code. */
export function entityLuaCode(
    schema: EntityStoreSchema,
    engine: EntityEngine,
    collections: EntityLuaCollection[],
): string {
    return [
        '-- Entity operations (issue 28): one atomic call per operation on an entity, keeping every row true.',
        `-- FCALL ${schema.functionName} 0 <op> <Entity> <stored id> …  (see README.md, "Entities")`,
        entityLuaTables(schema, engine, collections),
        ENTITY_LUA_BODY.replace('__FUNCTION__', schema.functionName).trim(),
    ].join('\n');
}

/** The entity library of a redis-target design (`entities.lua`): a library of its own. */
export function entityLibraryText(
    schema: EntityStoreSchema,
    engine: 'rs1' | 'rs2',
    collections: EntityLuaCollection[],
): string {
    return [
        `#!lua name=${entityLibraryName(schema.database)}`,
        `-- The entity Function of the KVLM design \`${schema.database}\`, generated by kvmod (target redis, ${engine === 'rs1' ? 'redisearch1' : 'redisearch2'}).`,
        '-- Load it once per server:  redis-cli -x FUNCTION LOAD REPLACE < entities.lua',
        entityLuaCode(schema, engine, collections),
        '',
    ].join('\n');
}

/** The name of a redis-target design's entity library. */
export function entityLibraryName(database: string): string {
    return `kvmod_${database}_entities`;
}

/** The generic code (the Function's body), in Lua 5.1 as Redis runs it. */
const ENTITY_LUA_BODY = String.raw`
-- (per call, what the interpreter does counts: loops over lists are numeric where they are hot, since ipairs and
-- pairs call a C function per step, and tables and strings are made only where needed)
-- Escapes seen lately (a pattern match costs several table lookups; an id is escaped for every key it is in):
-- e_esc_seen[s] is s escaped, e_part_seen[s] a key part, each dropped whole past 4,096 entries.
local e_esc_seen, e_esc_count, e_part_seen, e_part_count = {}, 0, {}, 0
local function e_esc_id(s)
    local known = e_esc_seen[s]
    if known then return known end
    local out = s
    if string.find(s, '[%%:{}]') then
        out = string.gsub(out, '%%', '%%25')
        out = string.gsub(out, ':', '%%3A')
        out = string.gsub(out, '{', '%%7B')
        out = string.gsub(out, '}', '%%7D')
    end
    if e_esc_count >= 4096 then e_esc_seen, e_esc_count = {}, 0 end
    e_esc_seen[s], e_esc_count = out, e_esc_count + 1
    return out
end
local function e_key(E, id) return ROOT .. '{' .. E .. ':' .. e_esc_id(id) .. '}' end
local function e_revkey(E, id, from, ref) return ROOT .. '{' .. E .. ':' .. e_esc_id(id) .. '}:<' .. from .. '.' .. ref end
-- A reference's hash field ('>' .. ref) and the key its decoded list is kept under in a map ('\0' .. ref).
local e_ref_field, e_ref_list = {}, {}
local function e_rfield(ref)
    local f = e_ref_field[ref]
    if f == nil then
        f = '>' .. ref
        e_ref_field[ref], e_ref_list[ref] = f, '\0' .. ref
    end
    return f
end

-- A key part's identity from its stored form (dates, times, booleans), as the loaders write a key part no field holds.
local function e_iso(s, t)
    if t == 'boolean' then
        if s == '1' then return 'true' end
        return 'false'
    end
    local width = (t == 'date' and 8) or (t == 'time' and 6) or 14
    if #s < width then s = string.rep('0', width - #s) .. s end
    local sub = string.sub
    if t == 'date' then return sub(s, 1, 4) .. '-' .. sub(s, 5, 6) .. '-' .. sub(s, 7, 8) end
    if t == 'time' then return sub(s, 1, 2) .. ':' .. sub(s, 3, 4) .. ':' .. sub(s, 5, 6) end
    return sub(s, 1, 4) .. '-' .. sub(s, 5, 6) .. '-' .. sub(s, 7, 8) .. 'T' .. sub(s, 9, 10) .. ':' .. sub(s, 11, 12) .. ':' .. sub(s, 13, 14)
end
local function e_key_part(s, part)
    if part.iso then s = e_iso(s, part.iso) end
    local known = e_part_seen[s]
    if known then return known end
    local out = s
    if string.find(s, '[%%:{}]') then
        out = string.gsub(out, '%%', '%%25')
        out = string.gsub(out, ':', '%%3A')
        if ENGINE == 'core' then
            out = string.gsub(out, '{', '%%7B')
            out = string.gsub(out, '}', '%%7D')
        end
    end
    if e_part_count >= 4096 then e_part_seen, e_part_count = {}, 0 end
    e_part_seen[s], e_part_count = out, e_part_count + 1
    return out
end

-- JSON as JavaScript's JSON.stringify writes it (cjson writes an empty list as {} and escapes '/').
local JSON_ESCAPES = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function e_json_escape(c) return JSON_ESCAPES[c] or string.format('\\u%04x', string.byte(c)) end
local function e_json_string(s)
    if not string.find(s, '[%z\1-\31"\\]') then return '"' .. s .. '"' end
    return '"' .. (string.gsub(s, '[%z\1-\31"\\]', e_json_escape)) .. '"'
end
local function e_json_list(list)
    local parts = {}
    for i = 1, #list do parts[i] = e_json_string(list[i]) end
    return '[' .. table.concat(parts, ',') .. ']'
end
local function e_quote(s) return '"' .. s .. '"' end

-- An entity's spec as the operations read it, completed on first use (loading a library runs no loops): every
-- attribute's companion set, and the field names a writer sends (each stored form and companion): { attr, form, a }.
local function e_spec(E)
    local spec = ENTITIES[E]
    if spec ~= nil and spec.formOf == nil then
        local formOf, companions = {}, {}
        for attr, a in pairs(spec.attrs) do
            a.forms = a.forms or {}
            formOf[attr] = { attr, '', a }
            local forms = {}
            for form in pairs(a.forms) do
                formOf[attr .. '#' .. form] = { attr, form, a }
                forms[#forms + 1] = form
            end
            -- (the attributes with companions, each with the list of its forms)
            if #forms > 0 then
                table.sort(forms)
                companions[#companions + 1] = { attr, forms }
            end
        end
        spec.formOf, spec.companions = formOf, companions
    end
    return spec
end

local function e_refuse(code, message) return redis.error_reply('KVMOD_' .. code .. ' ' .. message) end

-- One operation's view of the entities: the store as it is ('old'), and after the operation ('new': the
-- entities the operation changes, false for a deleted one, over the old store).
local e_loaded, e_new, X
local function e_load(E, id)
    local k = E .. '\0' .. id
    local m = e_loaded[k]
    -- (a map e_row_load read holds only the fields rows read: the whole entity is read again)
    if m == nil or (m and m['\0#partial']) then
        local flat = redis.call('HGETALL', e_key(E, id))
        if #flat == 0 then m = false else
            m = {}
            for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
        end
        e_loaded[k] = m
    end
    return m
end
local function e_view(state, E, id)
    if state == 'new' then
        local m = e_new[E .. '\0' .. id]
        if m ~= nil then return m end
    end
    return e_load(E, id)
end
-- A copy of an entity's fields (without the decoded lists cached beside them).
local function e_copy(m)
    local out = {}
    for k, v in pairs(m) do if string.byte(k, 1) ~= 0 then out[k] = v end end
    return out
end
local function e_decode_list(raw)
    local ok, list = pcall(cjson.decode, raw)
    if not ok or type(list) ~= 'table' then return nil end
    local n = #list
    for i = 1, n do if type(list[i]) ~= 'string' then return nil end end
    -- (a list has no other key: next after the last item)
    if next(list, n > 0 and n or nil) ~= nil then return nil end
    return list
end
local E_NONE = {}
local function e_targets(m, ref, kind)
    local v = m[e_ref_field[ref] or e_rfield(ref)]
    if v == nil or v == '' then return E_NONE end
    if kind == 'many' then
        local at = e_ref_list[ref]
        local l = m[at]
        if not l then
            l = e_decode_list(v) or {}
            m[at] = l
        end
        return l
    end
    return { v }
end

-- What the Function derives from a collection's tables, once per library load (on first use; a load only reads
-- the text): per field i (of C.nf, from C.fields: "<row field> <node> <stored form> …") its row field C.fname[i],
-- node C.fnode[i] and stored form C.fform[i]; C.isIndexed[i]; per node n the forms its fields and key parts read
-- (C.reads[n]), the fields of each form (C.fieldsAt[n][form]) and the references followed from it (C.children[n]).
local function e_prep(C)
    if C.nf then return C end
    local fname, fnode, fform, reads, fieldsAt, children, isIndexed = {}, {}, {}, {}, {}, {}, {}
    for n = 1, #C.nodes do
        reads[n], fieldsAt[n], children[n] = {}, {}, {}
    end
    for n, node in ipairs(C.nodes) do
        if node.parent > 0 then children[node.parent][node.ref] = true end
    end
    local nf = 0
    for name, node, form in string.gmatch(C.fields, '(%S+) (%d+) (%S+)') do
        nf = nf + 1
        fname[nf], fnode[nf], fform[nf] = name, tonumber(node), form
    end
    for i = 1, nf do
        local n, form = fnode[i], fform[i]
        reads[n][form] = true
        local at = fieldsAt[n][form]
        if at == nil then
            at = {}
            fieldsAt[n][form] = at
        end
        at[#at + 1] = i
    end
    for _, p in ipairs(C.key) do reads[p.node][p.form] = true end
    for _, i in ipairs(C.indexed) do isIndexed[i] = true end
    C.reads, C.fieldsAt, C.children, C.isIndexed, C.fastAt, C.onPathAt = reads, fieldsAt, children, isIndexed, {}, {}
    C.fname, C.fnode, C.fform, C.nf = fname, fnode, fform, nf
    return C
end
-- Where each entity is bound: { C, n } in collection order, then node order (built on first use).
local e_occurrences = {}
local function e_occ(E)
    local list = e_occurrences[E]
    if list == nil then
        list = {}
        for _, C in ipairs(ECOLLS) do
            for n, node in ipairs(C.nodes) do
                if node.entity == E then list[#list + 1] = { C = e_prep(C), n = n } end
            end
        end
        e_occurrences[E] = list
    end
    return list
end

-- Every binding of collection C rooted at root, in a state, with node fn bound to fid.
local function e_bindings(C, root, state, fn, fid, out)
    local nodes = C.nodes
    local b = {}
    local function bind(i)
        if i > #nodes then
            local copy = {}
            for j = 1, #nodes do copy[j] = b[j] end
            out[#out + 1] = copy
            return
        end
        local node = nodes[i]
        local parent = b[node.parent]
        local kind = ENTITIES[nodes[node.parent].entity].refs[node.ref].kind
        for _, tid in ipairs(e_targets(parent.m, node.ref, kind)) do
            if fn ~= i or tid == fid then
                local m = e_view(state, node.entity, tid)
                if m then
                    b[i] = { id = tid, m = m }
                    bind(i + 1)
                end
            end
        end
    end
    if fn == 1 and root ~= fid then return end
    local m = e_view(state, nodes[1].entity, root)
    if not m then return end
    b[1] = { id = root, m = m }
    bind(2)
end

-- A counter-key collection's rows are named in its row map by their bindings (stored ids, root first, escaped as in
-- entity keys, ':'-joined). A binding the map lacks gets the key '\0' .. prefix .. '\0' .. binding until e_write_row
-- numbers it.
-- e_binds: the binding of each counter row key seen by the call (its map entry goes with the row; made on first use).
local e_binds
local function e_counter_key(C, bind)
    local n = redis.call('HGET', C.map, bind)
    local key
    if n then key = C.prefix .. n else key = '\0' .. C.prefix .. '\0' .. bind end
    if not e_binds then e_binds = {} end
    e_binds[key] = bind
    return key, n
end
local function e_row_of(C, binding)
    if C.counter then
        local ids, values, fnode, fform = {}, {}, C.fnode, C.fform
        for j = 1, #C.nodes do ids[j] = e_esc_id(binding[j].id) end
        for i = 1, C.nf do values[i] = binding[fnode[i]].m[fform[i]] end
        local key, n = e_counter_key(C, table.concat(ids, ':'))
        return key, n, values
    end
    local parts = {}
    for i, p in ipairs(C.key) do parts[i] = e_key_part(binding[p.node].m[p.form], p) end
    local suffix = table.concat(parts, ':')
    local values, fnode, fform = {}, C.fnode, C.fform
    for i = 1, C.nf do values[i] = binding[fnode[i]].m[fform[i]] end
    return C.prefix .. suffix, suffix, values
end

-- The root ids whose bindings hold id at node n (the reverse hashes, walked up to the root).
local function e_roots_of(C, n, id, acc)
    if n == 1 then
        acc[id] = true
        return acc
    end
    local node = C.nodes[n]
    local parent = C.nodes[node.parent]
    for _, pid in ipairs(redis.call('HKEYS', e_revkey(node.entity, id, parent.entity, node.ref))) do
        e_roots_of(C, node.parent, pid, acc)
    end
    return acc
end

-- Plans the row changes of the changed entities: rows (old state) to delete, rows (new state) to write.
-- A change is { E, id, touched(C, n) }: whether the entity bound at node n of C changes a row of C.
local function e_plan_rows(changes)
    local dels, puts, order, before = {}, {}, {}, {}
    local function plan(C, n, ch)
        for root in pairs(e_roots_of(C, n, ch.id, {})) do
            local old, new = {}, {}
            e_bindings(C, root, 'old', n, ch.id, old)
            e_bindings(C, root, 'new', n, ch.id, new)
            for _, b in ipairs(old) do
                local key, _, values = e_row_of(C, b)
                -- (a counter row its map lacks is no row to delete: the new state's is written anew)
                if string.byte(key, 1) ~= 0 then
                    dels[key] = C
                    before[key] = values
                end
            end
            for _, b in ipairs(new) do
                local key, suffix, values = e_row_of(C, b)
                if not puts[key] then order[#order + 1] = key end
                puts[key] = { C = C, suffix = suffix, values = values }
            end
        end
    end
    if #changes == 1 then
        local ch = changes[1]
        for _, o in ipairs(e_occ(ch.E)) do
            if ch.touched(o.C, o.n) then plan(o.C, o.n, ch) end
        end
    else
        for _, C in ipairs(ECOLLS) do
            e_prep(C)
            for n, node in ipairs(C.nodes) do
                for _, ch in ipairs(changes) do
                    if node.entity == ch.E and ch.touched(C, n) then plan(C, n, ch) end
                end
            end
        end
    end
    -- A row whose key and values stay as they are is neither deleted nor written; a kept row gets its changed fields
    -- (a row of a collection being built, all of them: it may not exist yet).
    local changed = {}
    for _, key in ipairs(order) do
        local row, was = puts[key], before[key]
        dels[key] = nil
        local same = was ~= nil
        if same then
            for i = 1, row.C.nf do
                if was[i] ~= row.values[i] then
                    same = false
                    break
                end
            end
        end
        if not same then
            changed[#changed + 1] = key
            if was ~= nil and not row.C.building then
                local fields, indexed = {}, false
                for i = 1, row.C.nf do
                    if was[i] ~= row.values[i] then
                        fields[#fields + 1] = i
                        indexed = indexed or row.C.isIndexed[i] == true
                    end
                end
                row.partial = { C = row.C, key = key, fields = fields, indexed = indexed, values = row.values }
            end
        end
    end
    return dels, puts, changed
end

-- The fast path of a change of X at node n of C that moves no row (an attribute update whose key forms stay, a
-- delete of the root): when every key part of C is either a form of X (node n) or the identifier of the entity
-- bound at its node, the rows of C holding X at n are named by identifiers alone — walk up the reverse hashes to
-- the root, then down the references of the nodes off that path — and no other entity is read. A binding's
-- targets exist (every writer refuses a missing target, and a delete a referenced entity), so each walk is a row.
-- Not so in a collection a migration is building: a row the fill has not reached yet does not exist, and a write
-- in part would make a row of some fields — one RediSearch 1.2 has not indexed, so no FT.DEL … DD removes it.
local function e_fast_shape(C, n)
    local known = C.fastAt[n]
    if known ~= nil then return known end
    known = not C.building
    if known and not C.ids then
        for _, p in ipairs(C.key) do
            if p.node ~= n and ENTITIES[C.nodes[p.node].entity].id ~= p.form then known = false end
        end
    end
    C.fastAt[n] = known
    return known
end
-- Whether every node of C lies on the path from n up to the root.
local function e_all_on_path(C, n)
    local known = C.onPathAt[n]
    if known ~= nil then return known end
    local on, i = {}, n
    while i > 0 do
        on[i] = true
        i = C.nodes[i].parent
    end
    known = true
    for j = 1, #C.nodes do if not on[j] then known = false end end
    C.onPathAt[n] = known
    return known
end
local function e_paths_of(C, n, id, ids, out)
    ids[n] = id
    if n == 1 then
        local copy = {}
        for j = 1, #C.nodes do copy[j] = ids[j] end
        out[#out + 1] = copy
        return
    end
    local node = C.nodes[n]
    local parent = C.nodes[node.parent]
    local pids = redis.call('HKEYS', e_revkey(node.entity, id, parent.entity, node.ref))
    for i = 1, #pids do e_paths_of(C, node.parent, pids[i], ids, out) end
end
-- The targets of reference ref of entity E id: X's from what the call read of it, another's with one HGET.
local function e_ref_targets(E, id, ref)
    local kind = ENTITIES[E].refs[ref].kind
    if E == X.E and id == X.id and (not X.partial or X.old['>' .. ref] ~= nil or X.readSet['>' .. ref]) then
        return e_targets(X.old, ref, kind)
    end
    local known = e_loaded[E .. '\0' .. id]
    if known then return e_targets(known, ref, kind) end
    local raw = redis.call('HGET', e_key(E, id), '>' .. ref)
    if not raw then return {} end
    return e_targets({ ['>' .. ref] = raw }, ref, kind)
end
local function e_fast_part(n, ids, p)
    if p.node == n then return e_key_part(X.old[p.form], p) end
    return e_key_part(ids[p.node], p)
end
-- The key of a row of C holding X at node n (C of the fast shape), from X's forms and the ids of its binding.
local function e_fast_key(C, n, ids)
    if C.counter then
        local esc = {}
        for j = 1, #C.nodes do esc[j] = e_esc_id(ids[j]) end
        local key, found = e_counter_key(C, table.concat(esc, ':'))
        -- A binding its map lacks has no row to change.
        if not found then return nil end
        return key
    end
    local key = C.key
    if #key == 1 then return C.prefix .. e_fast_part(n, ids, key[1]) end
    if #key == 2 then return C.prefix .. e_fast_part(n, ids, key[1]) .. ':' .. e_fast_part(n, ids, key[2]) end
    local parts = {}
    for i, p in ipairs(key) do parts[i] = e_fast_part(n, ids, p) end
    return C.prefix .. table.concat(parts, ':')
end
-- Every row of C holding X at node n (C of the fast shape): its key, from X's forms and the ids of its binding.
-- The rows below node j of a walk (ids bound on the path and above j): down the references of the nodes off the path.
local function e_fast_down(C, n, ids, j, out)
    local nodes = C.nodes
    if j > #nodes then
        out[#out + 1] = e_fast_key(C, n, ids)
        return
    end
    if ids[j] ~= nil then return e_fast_down(C, n, ids, j + 1, out) end
    local node = nodes[j]
    local targets = e_ref_targets(nodes[node.parent].entity, ids[node.parent], node.ref)
    for ti = 1, #targets do
        ids[j] = targets[ti]
        e_fast_down(C, n, ids, j + 1, out)
    end
    ids[j] = nil
end
local function e_fast_keys(C, n, out)
    -- At the root the walk up is X alone.
    if n == 1 then
        e_fast_down(C, 1, { X.id }, 1, out)
        return out
    end
    local paths = {}
    e_paths_of(C, n, X.id, {}, paths)
    if e_all_on_path(C, n) then
        -- Every node on the path: the walks are the rows, named by ids (no entity read).
        for _, ids in ipairs(paths) do out[#out + 1] = e_fast_key(C, n, ids) end
        return out
    end
    for _, ids in ipairs(paths) do e_fast_down(C, n, ids, 1, out) end
    return out
end
local function e_partial_rows(C, n, changed, out)
    local fields, indexed, at = {}, false, C.fieldsAt[n]
    for form in pairs(changed) do
        for _, i in ipairs(at[form] or {}) do
            fields[#fields + 1] = i
            indexed = indexed or C.isIndexed[i] == true
        end
    end
    if #fields == 0 then return end
    table.sort(fields)
    for _, key in ipairs(e_fast_keys(C, n, {})) do
        out[#out + 1] = { C = C, key = key, fields = fields, indexed = indexed }
    end
end

-- Writes fields (positions in C) of the row key: values[i], or without values X's new form of field i.
local function e_write_fields(C, key, fields, indexed, values)
    local fname, args, a = C.fname, nil, 0
    if ENGINE == 'rs1' and indexed then
        args, a = { 'FT.ADD', C.index, key, '1.0', 'REPLACE', 'PARTIAL', 'FIELDS' }, 7
    else
        args, a = { 'HSET', key }, 2
    end
    local new, fform = X.new, C.fform
    for j = 1, #fields do
        local i = fields[j]
        args[a + 1] = fname[i]
        if values then args[a + 2] = values[i] else args[a + 2] = new[fform[i]] end
        a = a + 2
    end
    redis.call(unpack(args))
    if ENGINE == 'core' and indexed then
        local c = COLLECTIONS[C.name]
        index_put(c, key, values or redis.call('HMGET', key, unpack(c.fields)))
    end
end
local function e_write_partial(p) return e_write_fields(p.C, p.key, p.fields, p.indexed, p.values) end

local function e_write_row(C, key, row)
    if C.counter and string.byte(key, 1) == 0 then
        -- A new binding: the next number of the counter, and its row map entry.
        local bind, n = string.sub(key, #C.prefix + 3), redis.call('INCR', C.counter)
        key, row.suffix = C.prefix .. n, tostring(n)
        redis.call('HSET', C.map, bind, row.suffix)
    end
    if ENGINE == 'core' then
        local c = COLLECTIONS[C.name]
        row_put(c, key, row.values)
        index_put(c, key, row.values)
        return
    end
    local args
    if ENGINE == 'rs1' then
        args = { 'FT.ADD', C.index, key, '1.0', 'REPLACE', 'FIELDS', C.idField, row.suffix }
    else
        args = { 'HSET', key, C.idField, row.suffix }
    end
    local values, fname, a = row.values, C.fname, #args
    for i = 1, C.nf do
        local v = values[i]
        if v ~= nil then
            args[a + 1], args[a + 2] = fname[i], v
            a = a + 2
        end
    end
    -- RediSearch 2.x indexes the hash itself: a whole row replaces the old one.
    if ENGINE == 'rs2' then redis.call('DEL', key) end
    redis.call(unpack(args))
end
local function e_delete_row(C, key)
    if C.counter and e_binds and e_binds[key] then redis.call('HDEL', C.map, e_binds[key]) end
    if ENGINE == 'core' then
        remove_entries(COLLECTIONS[C.name], key)
        redis.call('DEL', key)
    elseif ENGINE == 'rs1' then
        redis.call('FT.DEL', C.index, key, 'DD')
    else
        redis.call('DEL', key)
    end
end

local function e_apply(dels, puts, order)
    local deleted, written = 0, 0
    for key, C in pairs(dels) do
        e_delete_row(C, key)
        deleted = deleted + 1
    end
    for _, key in ipairs(order) do
        if puts[key].partial then e_write_partial(puts[key].partial) else e_write_row(puts[key].C, key, puts[key]) end
        written = written + 1
    end
    return deleted, written
end

local function e_uses_form(C, n, changed)
    local reads = C.reads[n]
    for form in pairs(changed) do if reads[form] then return true end end
    return false
end
local function e_follows(C, n, refs)
    local children = C.children[n]
    for ref in pairs(refs) do if children[ref] then return true end end
    return false
end
local function e_root_only(_, n) return n == 1 end

local function e_name(E, id) return E .. ' ' .. e_quote(id) end

-- The references some collection follows from a node where E is bound: their targets are read to write rows, so
-- checking that one exists reads it (once) rather than asking EXISTS first.
local e_followed_refs = {}
local function e_followed(E, ref)
    local refs = e_followed_refs[E]
    if refs == nil then
        refs = {}
        for _, o in ipairs(e_occ(E)) do
            for r in pairs(o.C.children[o.n]) do refs[r] = true end
        end
        e_followed_refs[E] = refs
    end
    return refs[ref] == true
end

-- What rows read of an entity of kind T wherever it is bound (the forms its fields and key parts read, the
-- references followed from it) and its version: a create reads its targets so (HMGET), not whole.
local e_row_reads_of = {}
local function e_row_reads(T)
    local reads = e_row_reads_of[T]
    if reads == nil then
        reads = { '_v' }
        local seen = { _v = true }
        local function want(f)
            if not seen[f] then
                seen[f] = true
                reads[#reads + 1] = f
            end
        end
        for _, o in ipairs(e_occ(T)) do
            for form in pairs(o.C.reads[o.n]) do want(form) end
            for ref in pairs(o.C.children[o.n]) do want('>' .. ref) end
        end
        e_row_reads_of[T] = reads
    end
    return reads
end
-- An entity's fields that rows read (e_row_reads), marked partial ('\0#partial': e_load reads it whole when asked), or
-- false when it does not exist.
local function e_row_load(E, id)
    local k = E .. '\0' .. id
    local m = e_loaded[k]
    if m == nil then
        local reads = e_row_reads(E)
        local values = redis.call('HMGET', e_key(E, id), unpack(reads))
        m = false
        for i = 1, #reads do
            local v = values[i]
            if v then
                if not m then m = { ['\0#partial'] = true } end
                m[reads[i]] = v
            end
        end
        e_loaded[k] = m
    end
    return m
end

local function e_missing_target(E, ref, target, ids, partial)
    local read = e_followed(E, ref)
    for ti = 1, #ids do
        local tid, exists = ids[ti], nil
        if read then
            if partial then exists = e_row_load(target, tid) ~= false else exists = e_load(target, tid) ~= false end
        else
            exists = redis.call('EXISTS', e_key(target, tid)) == 1
        end
        if not exists then
            return e_refuse('MISSING_TARGET', E .. '.' .. ref .. ': ' .. e_name(target, tid) .. ' does not exist')
        end
    end
end

-- An attribute form of a field name (attr, attr#sort, attr#eq), or a refusal.
local function e_form_of(E, spec, name)
    local known = spec.formOf[name]
    if known then return known[1], nil, known[2], known[3] end
    if string.byte(name, 1) == 62 then
        return nil, e_refuse('BAD_VALUE', E .. '.' .. string.sub(name, 2) .. ' is a reference: a patch changes attributes only (use set, unset, add or remove)')
    end
    local attr, form = string.match(name, '^([^#]*)#?(.*)$')
    local a = spec.attrs[attr]
    if a == nil then return nil, e_refuse('BAD_VALUE', E .. ' has no attribute ' .. e_quote(attr)) end
    if form ~= '' and not a.forms[form] then
        return nil, e_refuse('BAD_VALUE', E .. '.' .. attr .. ' stores no form ' .. e_quote(form) .. ' in this design')
    end
    return attr, nil, form, a
end
local function e_bad_number(E, attr, a, form, value)
    if form == '' and a.numeric and tonumber(value) == nil then
        return e_refuse('BAD_VALUE', E .. '.' .. attr .. ' must be a stored number, got ' .. e_quote(value))
    end
end
-- Every companion form of a given attribute must come with it (the rows copy them).
local function e_missing_forms(E, spec, fields)
    local companions = spec.companions
    for c = 1, #companions do
        local name, forms = companions[c][1], companions[c][2]
        if fields[name] ~= nil then
            for f = 1, #forms do
                local form = forms[f]
                if fields[name .. '#' .. form] == nil then
                    return e_refuse('BAD_VALUE', E .. '.' .. name .. ' comes without its form ' .. e_quote(form))
                end
            end
        end
    end
end
local function e_next_version(m) return tostring((tonumber(m._v) or 0) + 1) end

-- The collections rooted at entity E: a create writes their rows, and only theirs (a new entity has no referrer, so
-- no row binds it below the root).
local e_rooted_at = {}
local function e_rooted(E)
    local list = e_rooted_at[E]
    if list == nil then
        list = {}
        for _, o in ipairs(e_occ(E)) do if o.n == 1 then list[#list + 1] = o.C end end
        e_rooted_at[E] = list
    end
    return list
end
-- The rows of C a create makes (the new state's bindings, as e_plan_rows binds them): nodes 1..i-1 bound (their
-- maps m, their ids bid), the entities at node i and below the targets of each node's reference from its parent
-- (read as rows read them: e_row_load), inner join. A binding is a row in puts (by key; the last binding of a key
-- wins) and order.
local function e_create_walk(C, i, m, bid, puts, order)
    local nodes = C.nodes
    if i > #nodes then
        local key, suffix
        local values, fnode, fform = {}, C.fnode, C.fform
        for f = 1, C.nf do values[f] = m[fnode[f]][fform[f]] end
        if C.counter then
            local esc = {}
            for j = 1, #nodes do esc[j] = e_esc_id(bid[j]) end
            key, suffix = e_counter_key(C, table.concat(esc, ':'))
        else
            local keyParts = C.key
            if #keyParts == 1 then
                local p = keyParts[1]
                suffix = e_key_part(m[p.node][p.form], p)
            else
                local parts = {}
                for j = 1, #keyParts do
                    local p = keyParts[j]
                    parts[j] = e_key_part(m[p.node][p.form], p)
                end
                suffix = table.concat(parts, ':')
            end
            key = C.prefix .. suffix
        end
        if not puts[key] then order[#order + 1] = key end
        puts[key] = { C = C, suffix = suffix, values = values }
        return
    end
    local node = nodes[i]
    local kind = ENTITIES[nodes[node.parent].entity].refs[node.ref].kind
    local targets = e_targets(m[node.parent], node.ref, kind)
    for ti = 1, #targets do
        local tid, t = targets[ti], nil
        if node.entity == X.E and tid == X.id then t = X.new else t = e_row_load(node.entity, tid) end
        if t then
            m[i], bid[i] = t, tid
            e_create_walk(C, i + 1, m, bid, puts, order)
        end
    end
    m[i], bid[i] = nil, nil
end

-- How a create writes the rows of each collection rooted at E: direct[k] for a natural-key collection of one node
-- (X) or two (X and a target of one of its references, at most one row per target): C and the position of that
-- reference in spec.refOrder (false for one node); walk: the others (e_create_walk). Once per entity.
local e_create_plans = {}
local function e_create_plan(E, spec)
    local plan = e_create_plans[E]
    if plan == nil then
        local refAt = {}
        for i, ref in ipairs(spec.refOrder) do refAt[ref] = i end
        local direct, walk = {}, {}
        for _, C in ipairs(e_rooted(E)) do
            local nodes, ok, child = C.nodes, not C.counter and #C.key > 0, false
            if #nodes == 2 and nodes[2].parent == 1 then
                child = refAt[nodes[2].ref]
                -- (one row per target: the key names it, or the reference holds one)
                local named = spec.refs[nodes[2].ref].kind ~= 'many'
                for _, p in ipairs(C.key) do if p.node == 2 then named = true end end
                ok = ok and named
            elseif #nodes ~= 1 then
                ok = false
            end
            if ok then direct[#direct + 1] = { C = C, child = child } else walk[#walk + 1] = C end
        end
        plan = { direct = direct, walk = walk }
        e_create_plans[E] = plan
    end
    return plan
end
-- Writes the row of C bound to new at the root and tm (a target's map, or nil) at node 2.
local function e_create_row(C, new, tm)
    local keyParts, suffix = C.key, nil
    for j = 1, #keyParts do
        local p = keyParts[j]
        local m = new
        if p.node == 2 then m = tm end
        local part = e_key_part(m[p.form], p)
        if j == 1 then suffix = part else suffix = suffix .. ':' .. part end
    end
    local key, fnode, fform = C.prefix .. suffix, C.fnode, C.fform
    if ENGINE == 'rs1' then
        local args, fname, a = { 'FT.ADD', C.index, key, '1.0', 'REPLACE', 'FIELDS', C.idField, suffix }, C.fname, 8
        for i = 1, C.nf do
            local v
            if fnode[i] == 1 then v = new[fform[i]] else v = tm[fform[i]] end
            if v ~= nil then
                args[a + 1], args[a + 2] = fname[i], v
                a = a + 2
            end
        end
        redis.call(unpack(args))
        return
    end
    local values = {}
    for i = 1, C.nf do
        if fnode[i] == 1 then values[i] = new[fform[i]] else values[i] = tm[fform[i]] end
    end
    e_write_row(C, key, { suffix = suffix, values = values })
end

local function e_create(args)
    local E, id, spec = X.E, X.id, X.spec
    if X.old then return e_refuse('EXISTS', e_name(E, id) .. ' exists already') end
    if (#args - 3) % 2 ~= 0 then return e_refuse('BAD_VALUE', 'fields come in name/value pairs') end
    -- new: the hash as a map; flat: the same as HSET's field/value list (a repeated field: the last wins in both).
    local new, given, flat, f, formOf, byte = {}, {}, {}, 0, spec.formOf, string.byte
    for i = 4, #args, 2 do
        local name, value = args[i], args[i + 1]
        if byte(name, 1) == 62 then
            local ref = string.sub(name, 2)
            if spec.refs[ref] == nil then return e_refuse('BAD_VALUE', E .. ' has no reference ' .. e_quote(ref)) end
            given[ref] = value
        else
            local known, attr, form, a, e = formOf[name], nil, nil, nil, nil
            if known then attr, form, a = known[1], known[2], known[3] else
                attr, e, form, a = e_form_of(E, spec, name)
                if e then return e end
            end
            if form == '' and a.numeric and tonumber(value) == nil then return e_bad_number(E, attr, a, form, value) end
            if attr == spec.id and form == '' and value ~= id then
                return e_refuse('BAD_VALUE', 'a new ' .. E .. ' has the identifier ' .. e_quote(value) .. ', not ' .. e_quote(id))
            end
            new[name] = value
            flat[f + 1], flat[f + 2] = name, value
            f = f + 2
        end
    end
    if new[spec.id] == nil then
        new[spec.id] = id
        flat[f + 1], flat[f + 2] = spec.id, id
        f = f + 2
    end
    local attrOrder = spec.attrOrder
    for i = 1, #attrOrder do
        if new[attrOrder[i]] == nil then return e_refuse('BAD_VALUE', 'a new ' .. E .. ' needs its attribute ' .. attrOrder[i]) end
    end
    local e = e_missing_forms(E, spec, new)
    if e then return e end
    local adds, refOrder, tmaps = {}, spec.refOrder, {}
    for ri = 1, #refOrder do
        local ref = refOrder[ri]
        local r = spec.refs[ref]
        local raw = given[ref]
        local ids = E_NONE
        if r.kind == 'many' then
            if raw ~= nil and raw ~= '' then
                ids = e_decode_list(raw)
                if ids == nil then return e_refuse('BAD_VALUE', E .. '.' .. ref .. ' holds a JSON list of identifiers') end
            end
            if #ids > 1 then
                local seen = {}
                for ti = 1, #ids do
                    local tid = ids[ti]
                    if seen[tid] then return e_refuse('BAD_VALUE', e_name(E, id) .. '.' .. ref .. ' lists ' .. e_name(r.target, tid) .. ' twice') end
                    seen[tid] = true
                end
            end
            if #ids < r.min then
                return e_refuse('REQUIRED_REFERENCE', e_name(E, id) .. '.' .. ref .. ' must list at least ' .. r.min .. ' ' .. r.target)
            end
            if r.max and #ids > r.max then
                return e_refuse('BAD_VALUE', e_name(E, id) .. '.' .. ref .. ' can list at most ' .. r.max .. ' ' .. r.target)
            end
            local field, stored = e_rfield(ref), e_json_list(ids)
            new[field], new[e_ref_list[ref]] = stored, ids
            flat[f + 1], flat[f + 2] = field, stored
            f = f + 2
        elseif raw ~= nil and raw ~= '' then
            ids = { raw }
            local field = e_rfield(ref)
            new[field] = raw
            flat[f + 1], flat[f + 2] = field, raw
            f = f + 2
        elseif r.kind == 'one' then
            return e_refuse('REQUIRED_REFERENCE', e_name(E, id) .. '.' .. ref .. ' is required ([1]): name a ' .. r.target)
        end
        if #ids > 0 and e_followed(E, ref) then
            -- Read as rows read them (the rows below take them from tmaps).
            local ms = {}
            for ti = 1, #ids do
                local m = e_row_load(r.target, ids[ti])
                if not m then return e_refuse('MISSING_TARGET', E .. '.' .. ref .. ': ' .. e_name(r.target, ids[ti]) .. ' does not exist') end
                ms[ti] = m
            end
            tmaps[ri] = ms
        else
            e = e_missing_target(E, ref, r.target, ids, true)
            if e then return e end
        end
        adds[ri] = ids
    end
    new._v = '1'
    flat[f + 1], flat[f + 2] = '_v', '1'
    X.new = new
    e_new[E .. '\0' .. id] = new
    local plan, puts, order = e_create_plan(E, spec), {}, {}
    local walk = plan.walk
    if #walk > 0 then
        local m, bid = { new }, { id }
        for c = 1, #walk do e_create_walk(walk[c], 2, m, bid, puts, order) end
    end
    -- phase 2: writes
    redis.call('HSET', e_key(E, id), unpack(flat))
    for ri = 1, #refOrder do
        local ref, ids = refOrder[ri], adds[ri]
        local target = spec.refs[ref].target
        for ti = 1, #ids do redis.call('HSET', e_revkey(target, ids[ti], E, ref), id, '') end
    end
    local direct, written = plan.direct, #order
    for k = 1, #direct do
        local d = direct[k]
        if d.child then
            local ms = tmaps[d.child] or E_NONE
            for ti = 1, #ms do e_create_row(d.C, new, ms[ti]) end
            written = written + #ms
        else
            e_create_row(d.C, new, nil)
            written = written + 1
        end
    end
    for i = 1, #order do
        local key = order[i]
        e_write_row(puts[key].C, key, puts[key])
    end
    return { 1, written, 0 }
end

-- What an update must read of X when every row it changes takes the fast path (see e_fast_shape): the version,
-- the given fields, the key forms of X and the references followed from X in those collections (HMGET); nil
-- when some collection needs the whole entity (a key form given, another shape, a field name to refuse).
local e_reads_cache, e_reads_cached = {}, 0
-- The rows an update of exactly these fields changes when every given value differs from the stored one (the
-- usual case): per (collection, node) the row fields to write, and whether one is indexed; false when the fields
-- repeat or lack a companion (the general code then checks and refuses).
local function e_update_plan(E, spec, args, given)
    if e_missing_forms(E, spec, given) then return false end
    local changed, seen = {}, {}
    for i = 5, #args, 2 do
        if seen[args[i]] then return false end
        seen[args[i]] = true
        if spec.formOf[args[i]][1] ~= spec.id then changed[args[i]] = true end
    end
    local plan = {}
    for _, o in ipairs(e_occ(E)) do
        local C, n = o.C, o.n
        if e_uses_form(C, n, changed) then
            local fields, indexed, at = {}, false, C.fieldsAt[n]
            for form in pairs(changed) do
                for _, i in ipairs(at[form] or {}) do
                    fields[#fields + 1] = i
                    indexed = indexed or C.isIndexed[i] == true
                end
            end
            table.sort(fields)
            plan[#plan + 1] = { C = C, n = n, fields = fields, indexed = indexed }
        end
    end
    return plan
end
local function e_update_reads_of(E, spec, args)
    local given, reads, seen = {}, { '_v' }, { _v = true }
    local function want(f)
        if not seen[f] then
            seen[f] = true
            reads[#reads + 1] = f
        end
    end
    for i = 5, #args, 2 do
        if not spec.formOf[args[i]] then return nil end
        given[args[i]] = true
        want(args[i])
    end
    for _, o in ipairs(e_occ(E)) do
        local C, n = o.C, o.n
        if e_uses_form(C, n, given) then
            if not e_fast_shape(C, n) then return nil end
            for _, p in ipairs(C.key) do
                if C.nodes[p.node].entity == E and given[p.form] then return nil end
                if p.node == n then want(p.form) end
            end
            for ref in pairs(C.children[n]) do want('>' .. ref) end
        end
    end
    return { reads = reads, readSet = seen, plan = e_update_plan(E, spec, args, given) }
end
-- The same, once per entity and list of given field names (false: read the whole entity).
local function e_update_reads(E, spec, args)
    if (#args - 4) % 2 ~= 0 then return nil end
    local formOf, signature = spec.formOf, E
    for i = 5, #args, 2 do
        if not formOf[args[i]] then return nil end
        signature = signature .. '\0' .. args[i]
    end
    local entry = e_reads_cache[signature]
    if entry == nil then
        entry = e_update_reads_of(E, spec, args) or false
        -- Bounded: a client may send the same fields in any order.
        if e_reads_cached < 1000 then
            e_reads_cache[signature] = entry
            e_reads_cached = e_reads_cached + 1
        end
    end
    return entry or nil
end

local function e_update(args)
    local E, id, spec = X.E, X.id, X.spec
    local entry = e_update_reads(E, spec, args)
    local reads = entry and entry.reads
    if reads then
        local values = redis.call('HMGET', e_key(E, id), unpack(reads))
        if values[1] then
            X.old, X.partial, X.readSet = {}, true, entry.readSet
            for i, f in ipairs(reads) do if values[i] then X.old[f] = values[i] end end
        else
            X.old = false
        end
    else
        X.old = e_load(E, id)
    end
    if not X.old then return e_refuse('NOT_FOUND', e_name(E, id) .. ' does not exist') end
    if (#args - 4) % 2 ~= 0 then return e_refuse('BAD_VALUE', 'fields come in name/value pairs') end
    local expected = args[4]
    if expected ~= nil and expected ~= '' and tonumber(expected) ~= tonumber(X.old._v) then
        return e_refuse('CONFLICT', e_name(E, id) .. ' is at version ' .. tostring(X.old._v) .. ', not ' .. expected)
    end
    if entry and entry.plan then
        -- The planned case: the checks of the general code below, in its order, then the planned writes.
        local new, all = { _v = e_next_version(X.old) }, true
        for i = 5, #args, 2 do
            local name, value = args[i], args[i + 1]
            local known = spec.formOf[name]
            if known[1] == spec.id then
                if known[2] == '' and value ~= id then
                    return e_refuse('IDENTIFIER_CHANGE', E .. '.' .. known[1] .. ' is the identifier of ' .. e_name(E, id) .. ': it cannot change (create a new ' .. E .. ' instead)')
                end
            else
                local e = e_bad_number(E, known[1], known[3], known[2], value)
                if e then return e end
                if X.old[name] == value then all = false end
                new[name] = value
            end
        end
        if all then
            X.new = new
            -- Every row's key before the first write (rowK[i], of the plan rowP[i]).
            local plan, rowK, rowP = entry.plan, {}, {}
            for j = 1, #plan do
                local pl, from = plan[j], #rowK
                e_fast_keys(pl.C, pl.n, rowK)
                for i = from + 1, #rowK do rowP[i] = pl end
            end
            local flat, f = {}, 0
            for k, v in pairs(new) do
                flat[f + 1], flat[f + 2] = k, v
                f = f + 2
            end
            redis.call('HSET', e_key(E, id), unpack(flat))
            for i = 1, #rowK do
                local pl = rowP[i]
                e_write_fields(pl.C, rowK[i], pl.fields, pl.indexed, nil)
            end
            return { tonumber(new._v), #rowK, 0 }
        end
    end
    local given = {}
    for i = 5, #args, 2 do
        local _, e = e_form_of(E, spec, args[i])
        if e then return e end
        given[args[i]] = args[i + 1]
    end
    local new, changed = e_copy(X.old), {}
    for i = 5, #args, 2 do
        local name, value = args[i], args[i + 1]
        local attr, _, form, a = e_form_of(E, spec, name)
        if attr == spec.id then
            if form == '' and value ~= id then
                return e_refuse('IDENTIFIER_CHANGE', E .. '.' .. attr .. ' is the identifier of ' .. e_name(E, id) .. ': it cannot change (create a new ' .. E .. ' instead)')
            end
        else
            local e = e_bad_number(E, attr, a, form, value)
            if e then return e end
            if new[name] ~= value then
                new[name] = value
                changed[name] = true
            end
        end
    end
    local e = e_missing_forms(E, spec, given)
    if e then return e end
    new._v = e_next_version(X.old)
    X.new = new
    e_new[E .. '\0' .. id] = new
    local partial, fast, keyedC, slow = {}, {}, {}, false
    for _, o in ipairs(e_occ(E)) do
        local C, n = o.C, o.n
        local keyed = keyedC[C]
        if keyed == nil then
            keyed = false
            for _, p in ipairs(C.key) do if C.nodes[p.node].entity == E and changed[p.form] then keyed = true end end
            keyedC[C] = keyed
        end
        if not keyed and e_uses_form(C, n, changed) and e_fast_shape(C, n) then
            fast[C] = fast[C] or {}
            fast[C][n] = true
            e_partial_rows(C, n, changed, partial)
        elseif e_uses_form(C, n, changed) then
            slow = true
        end
    end
    local dels, puts, order
    if slow then
        local touched = function(C, n) return not (fast[C] and fast[C][n]) and e_uses_form(C, n, changed) end
        dels, puts, order = e_plan_rows({ { E = E, id = id, touched = touched } })
    end
    local flat = { '_v', new._v }
    for form in pairs(changed) do
        flat[#flat + 1] = form
        flat[#flat + 1] = new[form]
    end
    redis.call('HSET', e_key(E, id), unpack(flat))
    for _, p in ipairs(partial) do e_write_partial(p) end
    local d, w = 0, 0
    if slow then d, w = e_apply(dels, puts, order) end
    return { tonumber(new._v), w + #partial, d }
end

-- set / unset / add / remove on a reference: ARGV <ref> <target…>
local function e_reference(op, args)
    local E, id, spec = X.E, X.id, X.spec
    if not X.old then return e_refuse('NOT_FOUND', e_name(E, id) .. ' does not exist') end
    local ref = args[4]
    local r = spec.refs[ref or '']
    if r == nil then return e_refuse('BAD_VALUE', E .. ' has no reference ' .. e_quote(tostring(ref))) end
    local many = op == 'add' or op == 'remove'
    if many ~= (r.kind == 'many') then
        if r.kind == 'many' then
            return e_refuse('BAD_VALUE', E .. '.' .. ref .. ' is a [*] reference: ' .. op .. ' does not apply (use add or remove)')
        end
        return e_refuse('BAD_VALUE', E .. '.' .. ref .. ' is a [1] or [0..1] reference: ' .. op .. ' does not apply (use set or unset)')
    end
    local before = e_targets(X.old, ref, r.kind)
    local list, added, removed = {}, {}, {}
    if many then
        local has = {}
        for _, t in ipairs(before) do has[t] = true end
        if op == 'add' then
            for _, t in ipairs(before) do list[#list + 1] = t end
            for i = 5, #args do
                local t = args[i]
                if has[t] then
                    return e_refuse('BAD_VALUE', e_name(E, id) .. '.' .. ref .. ' lists ' .. e_name(r.target, t) .. ' already (a reference lists a target once)')
                end
                has[t] = true
                list[#list + 1] = t
                added[#added + 1] = t
            end
            local e = e_missing_target(E, ref, r.target, added)
            if e then return e end
        else
            local gone = {}
            for i = 5, #args do
                local t = args[i]
                if gone[t] or not has[t] then
                    return e_refuse('BAD_VALUE', e_name(E, id) .. '.' .. ref .. ' does not list ' .. e_name(r.target, t))
                end
                gone[t] = true
                removed[#removed + 1] = t
            end
            for _, t in ipairs(before) do if not gone[t] then list[#list + 1] = t end end
        end
        if #list < r.min then
            return e_refuse('REQUIRED_REFERENCE', e_name(E, id) .. '.' .. ref .. ' must list at least ' .. r.min .. ' ' .. r.target)
        end
        if r.max and #list > r.max then
            return e_refuse('BAD_VALUE', e_name(E, id) .. '.' .. ref .. ' can list at most ' .. r.max .. ' ' .. r.target)
        end
    elseif op == 'set' then
        local t = args[5]
        if t == nil or t == '' then return e_refuse('BAD_VALUE', 'set names the target of ' .. E .. '.' .. ref) end
        local e = e_missing_target(E, ref, r.target, { t })
        if e then return e end
        removed = before
        list = { t }
        added = list
    else
        if r.kind == 'one' then
            return e_refuse('REQUIRED_REFERENCE', E .. '.' .. ref .. ' is required ([1]): it cannot be unset, only set to another ' .. r.target)
        end
        removed = before
    end
    local new = e_copy(X.old)
    local raw
    if many then raw = e_json_list(list) elseif #list > 0 then raw = list[1] end
    new['>' .. ref] = raw
    new._v = e_next_version(X.old)
    X.new = new
    e_new[E .. '\0' .. id] = new
    local refs = { [ref] = true }
    local dels, puts, order = e_plan_rows({ { E = E, id = id, touched = function(C, n) return e_follows(C, n, refs) end } })
    local k = e_key(E, id)
    if raw ~= nil then
        redis.call('HSET', k, '>' .. ref, raw, '_v', new._v)
    else
        redis.call('HDEL', k, '>' .. ref)
        redis.call('HSET', k, '_v', new._v)
    end
    for _, t in ipairs(removed) do redis.call('HDEL', e_revkey(r.target, t, E, ref), id) end
    for _, t in ipairs(added) do redis.call('HSET', e_revkey(r.target, t, E, ref), id, '') end
    local d, w = e_apply(dels, puts, order)
    return { tonumber(new._v), w, d }
end

-- The plan of e_delete_direct (below), or false when a collection rooted at E is of another kind.
local function e_direct_plan(E, spec, plan)
    local at = {}
    for i, f in ipairs(plan.reads) do at[f] = i end
    local refs, refAt = {}, {}
    for i, ref in ipairs(spec.refOrder) do
        local r = spec.refs[ref]
        refs[i] = { at = at['>' .. ref], many = r.kind == 'many', pre = ROOT .. '{' .. r.target .. ':', post = '}:<' .. E .. '.' .. ref }
        refAt[ref] = i
    end
    local rows = {}
    for _, C in ipairs(plan.fast) do
        local nodes = C.nodes
        if C.counter or #nodes > 2 or (#nodes == 2 and nodes[2].parent ~= 1) or #C.key == 0 then return false end
        local row = { C = C, child = false, parts = {} }
        if #nodes == 2 then row.child = refAt[nodes[2].ref] end
        for j, p in ipairs(C.key) do
            if p.node == 1 then row.parts[j] = { at = at[p.form], p = p } else row.parts[j] = { p = p } end
        end
        rows[#rows + 1] = row
    end
    return { refs = refs, rows = rows }
end

-- What a delete reads of X (HMGET): its version, its references (the reverse hashes it leaves, the walks of its
-- rows) and the key forms of the collections rooted at E of the fast shape, whose rows it names by identifiers;
-- the collections rooted at E that are not (their rows are planned from the bindings, which read X whole). Once
-- per entity.
local e_delete_plans = {}
local function e_delete_plan(E)
    local plan = e_delete_plans[E]
    if plan == nil then
        local spec = e_spec(E)
        local reads, readSet = { '_v' }, { _v = true }
        local function want(f)
            if not readSet[f] then
                readSet[f] = true
                reads[#reads + 1] = f
            end
        end
        for _, ref in ipairs(spec.refOrder) do want('>' .. ref) end
        local fast, slowC = {}, false
        for _, C in ipairs(e_rooted(E)) do
            if e_fast_shape(C, 1) then
                fast[#fast + 1] = C
                for _, p in ipairs(C.key) do if p.node == 1 then want(p.form) end end
            else
                slowC = slowC or {}
                slowC[C] = true
            end
        end
        plan = { reads = reads, readSet = readSet, fast = fast, slowC = slowC }
        if not slowC then plan.direct = e_direct_plan(E, spec, plan) end
        e_delete_plans[E] = plan
    end
    return plan
end

-- A delete without referrers (but X itself) whose rows are all in natural-key collections of one node (X) or two
-- (X and a target of one of its references): it runs from the values its HMGET read (plan.reads), with no map of X
-- and no walk. plan.direct: per reference of X its position in the values and its reverse keys' ends; per collection
-- rooted at X, the reference of its second node and per key part the position of X's form or the target's id.
local E_ONCE = { false }
local function e_delete_direct(E, id, spec, plan, values)
    local direct, referrers, held = plan.direct, spec.referrers, nil
    for i = 1, #referrers do
        local rr = referrers[i]
        local listed = redis.call('HKEYS', e_revkey(E, id, rr.entity, rr.ref))
        if #listed > 0 then
            -- Another referrer: the general path refuses or detaches.
            for j = 1, #listed do if not (rr.entity == E and listed[j] == id) then return nil end end
            held = held or {}
            held[#held + 1] = rr
        end
    end
    local refs, lists = direct.refs, {}
    for r = 1, #refs do
        local R = refs[r]
        -- (HMGET gives false for a field the hash lacks)
        local v = values[R.at]
        if not v or v == '' then lists[r] = E_NONE
        elseif R.many then lists[r] = e_decode_list(v) or E_NONE
        else lists[r] = { v } end
    end
    for r = 1, #refs do
        local R, l = refs[r], lists[r]
        for t = 1, #l do redis.call('HDEL', R.pre .. e_esc_id(l[t]) .. R.post, id) end
    end
    redis.call('DEL', e_key(E, id))
    if held then
        for i = 1, #held do redis.call('DEL', e_revkey(E, id, held[i].entity, held[i].ref)) end
    end
    -- The rows, named from the values read (no read is left).
    local rows, n = direct.rows, 0
    for k = 1, #rows do
        local row = rows[k]
        local C, parts = row.C, row.parts
        local targets = E_ONCE
        if row.child then targets = lists[row.child] end
        for t = 1, #targets do
            local tid, suffix = targets[t], nil
            for j = 1, #parts do
                local P = parts[j]
                local part
                if P.at then part = e_key_part(values[P.at], P.p) else part = e_key_part(tid, P.p) end
                if j == 1 then suffix = part else suffix = suffix .. ':' .. part end
            end
            n = n + 1
            if ENGINE == 'rs1' then redis.call('FT.DEL', C.index, C.prefix .. suffix, 'DD') else e_delete_row(C, C.prefix .. suffix) end
        end
    end
    return { 0, 0, n }
end

-- delete <0|1>: 1 takes the id out of the [*] and [0..1] references that hold it (never a [1], nor a list
-- with a lower bound: those still refuse).
local function e_delete(args, plan)
    local E, id, spec = X.E, X.id, X.spec
    if not X.old then return e_refuse('NOT_FOUND', e_name(E, id) .. ' does not exist') end
    local detach = args[4] == '1'
    local blocking, detached, held = E_NONE, E_NONE, E_NONE
    if #spec.referrers > 0 then blocking, detached, held = {}, {}, {} end
    for _, rr in ipairs(spec.referrers) do
        local holders = {}
        local listed = redis.call('HKEYS', e_revkey(E, id, rr.entity, rr.ref))
        -- (a reverse hash that exists is deleted with X)
        if #listed > 0 then held[#held + 1] = rr end
        for _, h in ipairs(listed) do
            -- An object referencing itself is no referrer of its own delete.
            if not (rr.entity == E and h == id) then holders[#holders + 1] = h end
        end
        if #holders > 0 then
            if not detach or rr.kind == 'one' or rr.min > 0 then
                table.sort(holders)
                local sample = {}
                for i = 1, math.min(5, #holders) do sample[i] = holders[i] end
                blocking[#blocking + 1] = { rr = rr, count = #holders, sample = sample }
            else
                detached[#detached + 1] = { rr = rr, holders = holders }
            end
        end
    end
    if #blocking > 0 then
        local texts, json = {}, {}
        for i, b in ipairs(blocking) do
            local quoted = {}
            for j, s in ipairs(b.sample) do quoted[j] = e_quote(s) end
            texts[i] = b.rr.entity .. '.' .. b.rr.ref .. ' (' .. b.count .. ': ' .. table.concat(quoted, ', ') .. (b.count > #b.sample and ', …' or '') .. ')'
            json[i] = '{"entity":' .. e_json_string(b.rr.entity) .. ',"reference":' .. e_json_string(b.rr.ref) .. ',"count":' .. b.count .. ',"sample":' .. e_json_list(b.sample) .. '}'
        end
        return e_refuse('STILL_REFERENCED', e_name(E, id) .. ' is still referenced by ' .. table.concat(texts, '; ') .. ': delete or change the referrers first | referrers=[' .. table.concat(json, ',') .. ']')
    end
    X.new = false
    e_new[E .. '\0' .. id] = false
    local changes, holders_changed, holder_list = nil, nil, E_NONE
    if #detached > 0 then changes, holders_changed, holder_list = { { E = E, id = id, touched = e_root_only } }, {}, {} end
    for _, d in ipairs(detached) do
        for _, h in ipairs(d.holders) do
            local k = d.rr.entity .. '\0' .. h
            local ch = holders_changed[k]
            if ch == nil then
                local old = e_load(d.rr.entity, h)
                local refs = {}
                ch = { E = d.rr.entity, id = h, refs = refs, new = e_copy(old), fields = {} }
                ch.new._v = e_next_version(old)
                ch.touched = function(C, n) return e_follows(C, n, refs) end
                holders_changed[k] = ch
                holder_list[#holder_list + 1] = ch
                changes[#changes + 1] = ch
                e_new[k] = ch.new
            end
            ch.refs[d.rr.ref] = true
            local kind = ENTITIES[d.rr.entity].refs[d.rr.ref].kind
            if kind == 'many' then
                local kept = {}
                for _, t in ipairs(e_targets(e_load(d.rr.entity, h), d.rr.ref, kind)) do if t ~= id then kept[#kept + 1] = t end end
                ch.new['>' .. d.rr.ref] = e_json_list(kept)
            else
                ch.new['>' .. d.rr.ref] = nil
            end
            ch.fields[#ch.fields + 1] = d.rr.ref
        end
    end
    -- Without referrers to detach, the rows rooted at X are named by identifiers where the collection allows it
    -- (rowC[i], rowK[i]: a row's collection and key).
    local rowC, rowK = {}, {}
    local slow = #holder_list > 0
    if not slow then
        local fast = plan.fast
        for f = 1, #fast do
            local C, from = fast[f], #rowK
            e_fast_keys(C, 1, rowK)
            for i = from + 1, #rowK do rowC[i] = C end
        end
        local slowC = plan.slowC
        if slowC then
            slow = true
            changes = { { E = E, id = id, touched = function(C, n) return n == 1 and slowC[C] == true end } }
        end
    end
    local dels, puts, order
    if slow then dels, puts, order = e_plan_rows(changes) end
    local refOrder = spec.refOrder
    for ri = 1, #refOrder do
        local ref = refOrder[ri]
        local r = spec.refs[ref]
        local targets = e_targets(X.old, ref, r.kind)
        for ti = 1, #targets do redis.call('HDEL', e_revkey(r.target, targets[ti], E, ref), id) end
    end
    redis.call('DEL', e_key(E, id))
    for _, rr in ipairs(held) do redis.call('DEL', e_revkey(E, id, rr.entity, rr.ref)) end
    for _, ch in ipairs(holder_list) do
        local k = e_key(ch.E, ch.id)
        for _, ref in ipairs(ch.fields) do
            local raw = ch.new['>' .. ref]
            if raw == nil then redis.call('HDEL', k, '>' .. ref) else redis.call('HSET', k, '>' .. ref, raw) end
        end
        redis.call('HSET', k, '_v', ch.new._v)
    end
    for i = 1, #rowK do e_delete_row(rowC[i], rowK[i]) end
    local d, w = 0, 0
    if slow then d, w = e_apply(dels, puts, order) end
    return { 0, w, d + #rowK }
end

-- FCALL <function> 0 <op> <Entity> <stored id> …: the keys are found by the function (one server).
redis.register_function('__FUNCTION__', function(_, args)
    local op, E, id = args[1], args[2], args[3]
    if E == nil or ENTITIES[E] == nil then return e_refuse('BAD_VALUE', tostring(E) .. ' is no entity of the design') end
    if id == nil or id == '' then return e_refuse('BAD_VALUE', 'the identifier is empty; every object needs one') end
    local spec = e_spec(E)
    -- A delete reads what its plan names (and the direct one needs nothing more).
    local plan, values
    if op == 'delete' then
        plan = e_delete_plan(E)
        values = redis.call('HMGET', e_key(E, id), unpack(plan.reads))
        if values[1] and plan.direct then
            local done = e_delete_direct(E, id, spec, plan, values)
            if done then return done end
        end
    end
    e_loaded, e_new, e_binds = {}, {}, nil
    -- (every field the operations set, so that the table is made at its size)
    X = { E = E, id = id, spec = spec, old = false, partial = false, readSet = false, new = false }
    -- An update reads what it needs itself; a create only whether the entity exists.
    if op == 'update' then return e_update(args) end
    if op == 'create' then
        X.old = redis.call('EXISTS', e_key(E, id)) == 1
        if not X.old then e_loaded[E .. '\0' .. id] = false end
        return e_create(args)
    end
    if op == 'delete' then
        local reads = plan.reads
        if values[1] then
            local m = {}
            for i = 1, #reads do if values[i] then m[reads[i]] = values[i] end end
            X.old, X.partial, X.readSet = m, true, plan.readSet
        else
            X.old = false
        end
        return e_delete(args, plan)
    end
    X.old = e_load(E, id)
    if op == 'set' or op == 'unset' or op == 'add' or op == 'remove' then return e_reference(op, args) end
    return e_refuse('BAD_VALUE', 'no entity operation ' .. e_quote(tostring(op)))
end)
`;

/**
 * The library `kvmod migrate` loads while it builds a new design's collections from the server's entities (issue 30):
 * the entity Function of the old design's entities over the collections of both designs, so that every entity
 * operation keeps the new collections in step too, and a second Function that writes every row of one collection
 * rooted at some entities, from the entities as they are, in one atomic call: the fill can then never write a row
 * older than one an operation wrote. `collections` must have distinct names (the Function keys its plans by name).
 */
export function entityMigrationLibraryText(
    schema: EntityStoreSchema,
    engine: 'rs1' | 'rs2',
    collections: EntityLuaCollection[],
    refreshFunction: string,
    renames: EntityFieldCopies | null = null,
): string {
    const library = `${entityLibraryText(schema, engine, collections)}${ENTITY_REFRESH_LUA.replace('__REFRESH__', refreshFunction).trim()}\n`;
    return renames === null ? library : entityCopySection(library, schema.functionName, renames);
}

/**
 * The renamed attributes of a migration (`kvmod migrate --renamed Book.title=name`): per entity, the hash fields
 * copied under their new names (`title` -> `name`, `title#sort` -> `name#sort`), and the Function that copies them
 * for a batch of entities.
 */
export interface EntityFieldCopies {
    fields: Record<string, [from: string, to: string][]>;
    copyFunction: string;
}

/**
 * The migration library of a renamed attribute: the entity Function, registered under its name by a wrapper that
 * copies the entity's renamed fields after each create and update (the old application sends the old names; the new
 * design reads the new ones after the switch), and `FCALL <copy> 0 <Entity> <stored id…>`, which copies them for
 * entities written before. The wrapper takes the place of the body's own registration, so the body stays as it is.
 */
function entityCopySection(library: string, functionName: string, copies: EntityFieldCopies): string {
    const anchor = `redis.register_function('${functionName}', function(_, args)`;
    const at = library.indexOf(anchor);
    if (at < 0 || library.indexOf(anchor, at + 1) >= 0)
        throw new Error(`entity Lua: the registration of ${functionName} is not where the migration library wraps it`);
    const table = Object.entries(copies.fields).map(
        ([entity, pairs]) => `    ${luaKey(entity)} = {${pairs.flat().map(luaString).join(', ')}},`,
    );
    return [
        library.slice(0, at) + 'local e_operation = (function(_, args)' + library.slice(at + anchor.length).trimEnd(),
        'local E_COPIES = {',
        ...table,
        '}',
        ENTITY_COPY_LUA.replace('__FUNCTION__', functionName).replace('__COPY__', copies.copyFunction).trim(),
        '',
    ].join('\n');
}

const ENTITY_COPY_LUA = String.raw`
-- Copies the renamed fields of one entity (E_COPIES[E]: from, to, from, to, …); 1 when it holds any.
local function e_copy_renamed(E, id)
    local list = E_COPIES[E]
    if list == nil then return 0 end
    local key, from = e_key(E, id), {}
    for i = 1, #list, 2 do from[#from + 1] = list[i] end
    local values = redis.call('HMGET', key, unpack(from))
    local flat = {}
    for i = 1, #from do
        if values[i] then
            flat[#flat + 1] = list[2 * i]
            flat[#flat + 1] = values[i]
        end
    end
    if #flat == 0 then return 0 end
    redis.call('HSET', key, unpack(flat))
    return 1
end
redis.register_function('__FUNCTION__', function(keys, args)
    local reply = e_operation(keys, args)
    if (args[1] == 'create' or args[1] == 'update') and args[2] ~= nil and E_COPIES[args[2]] and args[3] ~= nil and args[3] ~= '' then
        e_copy_renamed(args[2], args[3])
    end
    return reply
end)
redis.register_function('__COPY__', function(_, args)
    local copied = 0
    for i = 2, #args do copied = copied + e_copy_renamed(args[1], args[i]) end
    return copied
end)
`;

/** `FCALL <refresh> 0 <physical index> <root id…>`: (re)writes every row of that collection rooted at those ids. */
const ENTITY_REFRESH_LUA = String.raw`
redis.register_function('__REFRESH__', function(_, args)
    local C
    for _, c in ipairs(ECOLLS) do if c.index == args[1] then C = e_prep(c) end end
    if C == nil then return e_refuse('BAD_VALUE', 'no collection of index ' .. e_quote(tostring(args[1]))) end
    e_loaded, e_new = {}, {}
    local written = 0
    for i = 2, #args do
        local out = {}
        e_bindings(C, args[i], 'old', 1, args[i], out)
        for _, b in ipairs(out) do
            local key, suffix, values = e_row_of(C, b)
            e_write_row(C, key, { suffix = suffix, values = values })
            written = written + 1
        end
    end
    return written
end)
`;
