-- Entity operations, server side. Generic code driven by the model tables ENTITIES / ECOLLS that gen.mjs writes.
-- The entity hash holds every attribute in its *stored forms* (encoded by the client with kvmod's TypeScript
-- encoders: `attr`, and `attr#sort` / `attr#eq` where a collection field needs a companion), its references
-- (`>ref`: an id, or a JSON array for [*]) and a version `_v`. So this code never encodes a value: it copies
-- strings from entity hashes into rows. Phase 1 reads and checks everything and plans every write in memory;
-- phase 2 writes. A refused operation (redis.error_reply) has written nothing.
local PREFIX = 'kv:'

local function esc(s)
    if not string.find(s, '[%%:{}]') then return s end
    s = string.gsub(s, '%%', '%%25')
    s = string.gsub(s, ':', '%%3A')
    s = string.gsub(s, '{', '%%7B')
    return (string.gsub(s, '}', '%%7D'))
end
local function key_part(s)
    if not string.find(s, '[%%:{}]') then return s end
    s = string.gsub(s, '%%', '%%25')
    s = string.gsub(s, ':', '%%3A')
    if ENGINE == 'core' then
        s = string.gsub(s, '{', '%%7B')
        s = string.gsub(s, '}', '%%7D')
    end
    return s
end
local function ekey(E, id) return PREFIX .. E .. ':{' .. esc(id) .. '}' end
local function revkey(E, id, from, ref) return ekey(E, id) .. ':<' .. from .. '.' .. ref end

local function refuse(code, message) return { err = 'KVMOD_' .. code .. ' ' .. message } end

-- One operation's view of the entities: `old` is the store as it is, `new` the store after the operation.
local loaded
local X -- { E =, id =, old = map|false, new = map|false }
local function load(E, id)
    local k = E .. '\0' .. id
    local m = loaded[k]
    if m == nil then
        local flat = redis.call('HGETALL', ekey(E, id))
        if #flat == 0 then m = false else
            m = {}
            for i = 1, #flat, 2 do m[flat[i]] = flat[i + 1] end
        end
        loaded[k] = m
    end
    return m
end
local function view(state, E, id)
    if E == X.E and id == X.id then return X[state] end
    return load(E, id)
end
local function targets(m, ref, kind)
    local v = m['>' .. ref]
    if v == nil or v == '' then return {} end
    if kind == 'many' then
        local l = m['\0' .. ref]
        if not l then l = cjson.decode(v); m['\0' .. ref] = l end
        return l
    end
    return { v }
end

-- Every binding of collection C rooted at `root`, in `state`, with node `fn` bound to `fid` (fn = 0: no filter).
local function bindings(C, root, state, fn, fid, out)
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
        for _, tid in ipairs(targets(parent.m, node.ref, kind)) do
            if fn ~= i or tid == fid then
                local m = view(state, node.entity, tid)
                if m then b[i] = { id = tid, m = m }; bind(i + 1) end
            end
        end
    end
    if fn == 1 and root ~= fid then return end
    local m = view(state, nodes[1].entity, root)
    if not m then return end
    b[1] = { id = root, m = m }
    bind(2)
end

local function row_of(C, binding)
    local parts = {}
    for i, p in ipairs(C.key) do parts[i] = key_part(binding[p.node].m[p.form]) end
    local suffix = table.concat(parts, ':')
    local values = {}
    for i, f in ipairs(C.fields) do values[i] = binding[f.node].m[f.form] end
    return C.prefix .. suffix, suffix, values
end

-- The root ids whose bindings hold `id` at node n (reverse references, walked up to the root).
local function roots_of(C, n, id, acc)
    if n == 1 then acc[id] = true; return acc end
    local node = C.nodes[n]
    local parent = C.nodes[node.parent]
    for _, pid in ipairs(redis.call('SMEMBERS', revkey(node.entity, id, parent.entity, node.ref))) do
        roots_of(C, node.parent, pid, acc)
    end
    return acc
end

-- Plans the row changes of X's change: rows (old state) to delete, rows (new state) to write.
-- `touched(C, n)` says whether X bound at node n of C changes any row of C.
local function plan_rows(touched)
    local dels, puts, order, before = {}, {}, {}, {}
    for _, C in ipairs(ECOLLS) do
        for n, node in ipairs(C.nodes) do
            if node.entity == X.E and touched(C, n) then
                local roots = roots_of(C, n, X.id, {})
                for root in pairs(roots) do
                    local old, new = {}, {}
                    bindings(C, root, 'old', n, X.id, old)
                    bindings(C, root, 'new', n, X.id, new)
                    for _, b in ipairs(old) do
                        local key, _, values = row_of(C, b)
                        dels[key] = C; before[key] = values
                    end
                    for _, b in ipairs(new) do
                        local key, suffix, values = row_of(C, b)
                        if not puts[key] then order[#order + 1] = key end
                        puts[key] = { C = C, suffix = suffix, values = values }
                    end
                end
            end
        end
    end
    -- A row whose key and values stay as they are is neither deleted nor written.
    local changed = {}
    for _, key in ipairs(order) do
        local row, was = puts[key], before[key]
        dels[key] = nil
        local same = was ~= nil
        if same then
            for i = 1, #row.C.fields do if was[i] ~= row.values[i] then same = false; break end end
        end
        if not same then
            changed[#changed + 1] = key
            if was ~= nil then
                -- the row stays at its key: only its changed fields are written (and re-indexed if indexed)
                local fields, indexed = {}, false
                for i, f in ipairs(row.C.fields) do
                    if was[i] ~= row.values[i] then fields[#fields + 1] = i; indexed = indexed or f.indexed end
                end
                row.partial = { C = row.C, key = key, fields = fields, indexed = indexed, values = row.values }
            end
        end
    end
    return dels, puts, changed
end

-- Fast path of an attribute update (no key form changed) for X at node n of C when every node of C lies on the path
-- root → n and the key names those nodes by their ids: each walk up the reverse references is one row, whose key
-- is made of the ids on the path; only the changed fields are written (no entity is read).
local function on_path(C, n)
    if not C.ids then return false end
    local on, i = {}, n
    while i > 0 do on[i] = true; i = C.nodes[i].parent end
    for j = 1, #C.nodes do if not on[j] then return false end end
    return true
end
local function paths_of(C, n, id, suffix_ids, out)
    if n == 1 then
        suffix_ids[1] = id
        local copy = {}
        for j = 1, #C.nodes do copy[j] = suffix_ids[j] end
        out[#out + 1] = copy
        return
    end
    suffix_ids[n] = id
    local node = C.nodes[n]
    local parent = C.nodes[node.parent]
    for _, pid in ipairs(redis.call('SMEMBERS', revkey(node.entity, id, parent.entity, node.ref))) do
        paths_of(C, node.parent, pid, suffix_ids, out)
    end
end
local function partial_rows(C, n, changed, out)
    local fields, indexed = {}, false
    for i, f in ipairs(C.fields) do
        if f.node == n and changed[f.form] then fields[#fields + 1] = i; indexed = indexed or f.indexed end
    end
    if #fields == 0 then return end
    local paths = {}
    paths_of(C, n, X.id, {}, paths)
    for _, ids in ipairs(paths) do
        local parts = {}
        for i, p in ipairs(C.key) do parts[i] = key_part(ids[p.node]) end
        out[#out + 1] = { C = C, key = C.prefix .. table.concat(parts, ':'), fields = fields, indexed = indexed }
    end
end
local function write_partial(p)
    local C = p.C
    if ENGINE == 'rs1' and p.indexed then
        local args = { 'FT.ADD', C.index, p.key, '1.0', 'REPLACE', 'PARTIAL', 'FIELDS' }
        for _, i in ipairs(p.fields) do args[#args + 1] = C.fields[i].name; args[#args + 1] = p.values and p.values[i] or X.new[C.fields[i].form] end
        redis.call(unpack(args))
        return
    end
    local args = { 'HSET', p.key }
    for _, i in ipairs(p.fields) do args[#args + 1] = C.fields[i].name; args[#args + 1] = p.values and p.values[i] or X.new[C.fields[i].form] end
    redis.call(unpack(args))
    if ENGINE == 'core' and p.indexed then
        local c = COLLECTIONS[C.name]
        index_put(c, p.key, p.values or redis.call('HMGET', p.key, unpack(c.fields)))
    end
end

local function write_row(C, key, row)
    if ENGINE == 'core' then
        local c = COLLECTIONS[C.name]
        row_put(c, key, row.values)
        index_put(c, key, row.values)
    elseif ENGINE == 'rs1' then
        local args = { 'FT.ADD', C.index, key, '1.0', 'REPLACE', 'FIELDS', C.idField, row.suffix }
        for i, f in ipairs(C.fields) do
            if row.values[i] ~= nil then args[#args + 1] = f.name; args[#args + 1] = row.values[i] end
        end
        redis.call(unpack(args))
    else -- rs2: the index follows the keyspace
        local args = { 'HSET', key, C.idField, row.suffix }
        for i, f in ipairs(C.fields) do
            if row.values[i] ~= nil then args[#args + 1] = f.name; args[#args + 1] = row.values[i] end
        end
        redis.call('DEL', key)
        redis.call(unpack(args))
    end
end
local function delete_row(C, key)
    if ENGINE == 'core' then
        remove_entries(COLLECTIONS[C.name], key)
        redis.call('DEL', key)
    elseif ENGINE == 'rs1' then
        redis.call('FT.DEL', C.index, key, 'DD')
    else
        redis.call('DEL', key)
    end
end

local NUMERIC = { int = true, float = true, boolean = true, date = true, time = true, datetime = true }

-- Checks an attribute patch (form/value pairs from ARGV at `first`) and applies it to a copy of `m`.
local function patched(E, m, args, first, changed)
    local spec = ENTITIES[E]
    local out = {}
    for k, v in pairs(m) do if string.byte(k, 1) ~= 0 then out[k] = v end end
    for i = first, #args, 2 do
        local form, value = args[i], args[i + 1]
        if value == nil then return nil, refuse('BAD_VALUE', 'no value for ' .. form) end
        local attr = string.match(form, '^[^#]+')
        local type = spec.attrs[attr]
        if attr == spec.id and m._v then return nil, refuse('BAD_VALUE', E .. '.' .. attr .. ' is the identifier: it cannot change') end
        if type == nil and attr ~= spec.id then return nil, refuse('BAD_VALUE', E .. ' has no attribute ' .. attr) end
        if form == attr and NUMERIC[type] and tonumber(value) == nil then
            return nil, refuse('BAD_VALUE', E .. '.' .. attr .. ' must be a stored number, got "' .. value .. '"')
        end
        out[form] = value
        changed[form] = true
    end
    return out
end

local function uses_form(C, n, changed)
    for _, f in ipairs(C.fields) do if f.node == n and changed[f.form] then return true end end
    for _, p in ipairs(C.key) do if p.node == n and changed[p.form] then return true end end
    return false
end
local function follows(C, n, ref)
    for _, node in ipairs(C.nodes) do if node.parent == n and node.ref == ref then return true end end
    return false
end

local function apply(dels, puts, order)
    local deleted, written = 0, 0
    for key, C in pairs(dels) do delete_row(C, key); deleted = deleted + 1 end
    for _, key in ipairs(order) do
        if puts[key].partial then write_partial(puts[key].partial) else write_row(puts[key].C, key, puts[key]) end
        written = written + 1
    end
    return deleted, written
end

local function begin(E, id)
    if ENTITIES[E] == nil then return refuse('BAD_VALUE', 'no entity ' .. tostring(E)) end
    if id == nil or id == '' then return refuse('BAD_VALUE', 'an identifier is needed') end
    loaded = {}
    X = { E = E, id = id }
    X.old = load(E, id)
    return nil
end

local function missing_targets(target, ids)
    for _, tid in ipairs(ids) do
        if redis.call('EXISTS', ekey(target, tid)) == 0 then return refuse('MISSING_TARGET', target .. ' ' .. tid .. ' does not exist') end
    end
end

local function op_create(E, id, args)
    if X.old then return refuse('EXISTS', E .. ' ' .. id .. ' exists') end
    local spec = ENTITIES[E]
    local changed = {}
    local attrs, refs = {}, {}
    for i = 4, #args, 2 do
        if string.sub(args[i], 1, 1) == '>' then refs[#refs + 1] = i else attrs[#attrs + 1] = i end
    end
    local flat = {}
    for _, i in ipairs(attrs) do flat[#flat + 1] = args[i]; flat[#flat + 1] = args[i + 1] end
    local new, e = patched(E, {}, flat, 1, changed)
    if not new then return e end
    new[spec.id] = id
    for attr in pairs(spec.attrs) do
        if new[attr] == nil then return refuse('BAD_VALUE', E .. '.' .. attr .. ' is missing') end
    end
    local adds = {}
    for ref, r in pairs(spec.refs) do
        local i
        for _, j in ipairs(refs) do if args[j] == '>' .. ref then i = j end end
        local raw = i and args[i + 1] or ''
        local ids = {}
        if r.kind == 'many' then ids = raw ~= '' and cjson.decode(raw) or {} elseif raw ~= '' then ids = { raw } end
        if r.kind == 'one' and #ids == 0 then return refuse('BAD_VALUE', E .. '.' .. ref .. ' is required') end
        if #ids < r.min then return refuse('BAD_VALUE', E .. '.' .. ref .. ' needs ' .. r.min .. ' elements') end
        local seen = {}
        for _, tid in ipairs(ids) do
            if seen[tid] then return refuse('BAD_VALUE', E .. '.' .. ref .. ' repeats ' .. tid) end
            seen[tid] = true
        end
        local m = missing_targets(r.target, ids)
        if m then return m end
        if raw ~= '' then new['>' .. ref] = raw end
        adds[ref] = ids
    end
    new._v = '1'
    X.new = new
    local dels, puts, order = plan_rows(function(C, n) return n == 1 end)
    -- phase 2: writes
    local flatw = {}
    for k, v in pairs(new) do if string.byte(k, 1) ~= 0 then flatw[#flatw + 1] = k; flatw[#flatw + 1] = v end end
    redis.call('HSET', ekey(E, id), unpack(flatw))
    for ref, ids in pairs(adds) do
        for _, tid in ipairs(ids) do redis.call('SADD', revkey(spec.refs[ref].target, tid, E, ref), id) end
    end
    local d, w = apply(dels, puts, order)
    return { 1, w, d }
end

local function op_update(E, id, args)
    if not X.old then return refuse('NOT_FOUND', E .. ' ' .. id .. ' does not exist') end
    local changed = {}
    local new, e = patched(E, X.old, args, 4, changed)
    if not new then return e end
    new._v = tostring(tonumber(X.old._v) + 1)
    X.new = new
    local partial, fast = {}, {}
    for _, C in ipairs(ECOLLS) do
        local keyed = false
        for _, p in ipairs(C.key) do if changed[p.form] then keyed = true end end
        for n, node in ipairs(C.nodes) do
            if node.entity == E and not keyed and uses_form(C, n, changed) and on_path(C, n) then
                fast[C.name .. '\0' .. n] = true
                partial_rows(C, n, changed, partial)
            end
        end
    end
    local dels, puts, order = plan_rows(function(C, n) return not fast[C.name .. '\0' .. n] and uses_form(C, n, changed) end)
    local flat = { '_v', new._v }
    for form in pairs(changed) do flat[#flat + 1] = form; flat[#flat + 1] = new[form] end
    redis.call('HSET', ekey(E, id), unpack(flat))
    for _, p in ipairs(partial) do write_partial(p) end
    local d, w = apply(dels, puts, order)
    return { tonumber(new._v), w + #partial, d }
end

-- add / remove / set on a reference: ARGV ref, ids...
local function op_ref(E, id, op, args)
    if not X.old then return refuse('NOT_FOUND', E .. ' ' .. id .. ' does not exist') end
    local ref = args[4]
    local r = ENTITIES[E].refs[ref or '']
    if r == nil then return refuse('BAD_VALUE', E .. ' has no reference ' .. tostring(ref)) end
    local before = targets(X.old, ref, r.kind)
    local list, added, removed = {}, {}, {}
    local has = {}
    for _, t in ipairs(before) do has[t] = true; list[#list + 1] = t end
    if op == 'add' or op == 'remove' then
        if r.kind ~= 'many' then return refuse('BAD_VALUE', E .. '.' .. ref .. ' is not a list: use set') end
        for i = 5, #args do
            local t = args[i]
            if op == 'add' then
                if has[t] then return refuse('BAD_VALUE', E .. '.' .. ref .. ' already holds ' .. t) end
                has[t] = true; list[#list + 1] = t; added[#added + 1] = t
            else
                if not has[t] then return refuse('BAD_VALUE', E .. '.' .. ref .. ' does not hold ' .. t) end
                has[t] = nil; removed[#removed + 1] = t
            end
        end
        if op == 'remove' then
            local kept = {}
            for _, t in ipairs(list) do if has[t] then kept[#kept + 1] = t end end
            list = kept
            if #list < r.min then return refuse('BAD_VALUE', E .. '.' .. ref .. ' needs ' .. r.min .. ' elements') end
        end
    else -- set (args[5] = id, or '' / absent to unset)
        if r.kind == 'many' then return refuse('BAD_VALUE', E .. '.' .. ref .. ' is a list: use add / remove') end
        local t = args[5] or ''
        if t == '' and r.kind == 'one' then return refuse('BAD_VALUE', E .. '.' .. ref .. ' is required') end
        removed = before
        list = t ~= '' and { t } or {}
        added = list
    end
    local m = missing_targets(r.target, added)
    if m then return m end
    local new = {}
    for k, v in pairs(X.old) do if string.byte(k, 1) ~= 0 then new[k] = v end end
    local raw = ''
    if r.kind == 'many' then raw = #list > 0 and cjson.encode(list) or '' elseif #list > 0 then raw = list[1] end
    new['>' .. ref] = raw ~= '' and raw or nil
    new._v = tostring(tonumber(X.old._v) + 1)
    X.new = new
    local dels, puts, order = plan_rows(function(C, n) return follows(C, n, ref) end)
    local k = ekey(E, id)
    if raw ~= '' then redis.call('HSET', k, '>' .. ref, raw, '_v', new._v) else
        redis.call('HDEL', k, '>' .. ref); redis.call('HSET', k, '_v', new._v)
    end
    for _, t in ipairs(removed) do redis.call('SREM', revkey(r.target, t, E, ref), id) end
    for _, t in ipairs(added) do redis.call('SADD', revkey(r.target, t, E, ref), id) end
    local d, w = apply(dels, puts, order)
    return { tonumber(new._v), w, d }
end

local function op_delete(E, id)
    if not X.old then return refuse('NOT_FOUND', E .. ' ' .. id .. ' does not exist') end
    local spec = ENTITIES[E]
    local by = {}
    for _, rr in ipairs(spec.referrers) do
        local k = revkey(E, id, rr.entity, rr.ref)
        local n = redis.call('SCARD', k)
        if n > 0 then
            local some = redis.call('SRANDMEMBER', k, 5)
            table.sort(some)
            by[#by + 1] = rr.entity .. '.' .. rr.ref .. ' (' .. n .. ': ' .. table.concat(some, ', ') .. ')'
        end
    end
    if #by > 0 then return refuse('REFERENCED', E .. ' ' .. id .. ' is referenced by ' .. table.concat(by, '; ')) end
    X.new = false
    local dels, puts, order = plan_rows(function(C, n) return n == 1 end)
    for ref, r in pairs(spec.refs) do
        for _, t in ipairs(targets(X.old, ref, r.kind)) do redis.call('SREM', revkey(r.target, t, E, ref), id) end
    end
    redis.call('DEL', ekey(E, id))
    local d, w = apply(dels, puts, order)
    return { 0, w, d }
end

-- FCALL kv_op 0 <op> <Entity> <id> ...   (a single server: the keys are found by the function; see the notes)
redis.register_function('kv_op', function(keys, args)
    local op, E, id = args[1], args[2], args[3]
    local e = begin(E, id)
    if e then return e end
    if op == 'create' then return op_create(E, id, args) end
    if op == 'update' then return op_update(E, id, args) end
    if op == 'delete' then return op_delete(E, id) end
    if op == 'add' or op == 'remove' or op == 'set' then return op_ref(E, id, op, args) end
    return refuse('BAD_VALUE', 'no operation ' .. tostring(op))
end)
