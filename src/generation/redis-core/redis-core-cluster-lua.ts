/**
 * The cluster steps of the redis-core library (issue 29, docs/design/cluster-entities.md): one-slot functions that
 * carry an entity operation (or a loaded row) to every slot it reaches, each safe to repeat and to run late. They are
 * appended to `library.lua` after its own locals (`collection_of`, `values_of`, `row_tag`, `index_put_at`,
 * `remove_at`), and leave the single-server functions untouched.
 *
 * Bookkeeping keys and fields (all named with `@`, which no row field, attribute or reference name holds):
 * - `kvmod:<db>:{<Entity>:<id>}:@log` (the entity's slot): `seq`, a counter every operation on the entity raises
 *   (deletes included, so a re-created entity never goes back to an older version); `r<seq>`, the change record of
 *   an operation not carried yet (the outbox); `g<Source>.<ref>:<id>`, the version of the referrer whose state the
 *   reverse entry was last set from. A writer that clears a reverse entry its referrer does not hold raises the
 *   referrer's counter first (`fence`): a writer that added the entry and has not made its own call yet then finds
 *   the counter moved, and reads again.
 * - in a row hash: `@v`, the versions (JSON `{"<Entity>:<id>": seq}`) of the entities the row was built from;
 *   `@stale`, the partitions (JSON list) still holding the row's old index entries; `@deleted`, a tombstone.
 * - `<partition tag>:@v` (the partition's slot): per row, the versions its index entries were written from.
 */

import type { ClusterFunctionNames } from '../typescript/client-runtime/kvmod-cluster-entities.js';

/** The function names of a database's cluster steps (shorter than the library's longest, so never refused). */
/** The names of the cluster steps' one-slot functions (the client runtime's type: one list of the roles). */
export type CoreClusterFunctions = ClusterFunctionNames;

export function coreClusterFunctions(database: string): CoreClusterFunctions {
    const name = (role: string) => `${database}_c_${role}`;
    return {
        read: name('read'),
        begin: name('begin'),
        fence: name('fence'),
        ack: name('ack'),
        rev: name('rev'),
        row: name('row'),
        rowAck: name('rowack'),
        index: name('index'),
    };
}

/** The Lua of the cluster steps for a database's library. */
export function coreClusterLua(database: string): string {
    const f = coreClusterFunctions(database);
    return CLUSTER_LUA.replace(/__([A-Z_]+)__/g, (_, role: string) => {
        const key = (
            {
                READ: 'read',
                BEGIN: 'begin',
                FENCE: 'fence',
                ACK: 'ack',
                REV: 'rev',
                ROW: 'row',
                ROWACK: 'rowAck',
                INDEX: 'index',
            } as const
        )[role as 'READ'];
        return f[key];
    }).trim();
}

const CLUSTER_LUA = String.raw`
-- Redis Cluster: an entity operation in steps (see README.md, "Redis Cluster"). Each function touches one slot, is
-- safe to repeat, and never writes an older version over a newer one: the caller recomputes and retries on 'stale'.
local function c_map(text)
    if not text or text == '' then return {} end
    local ok, m = pcall(cjson.decode, text)
    if not ok or type(m) ~= 'table' then return {} end
    return m
end
local function c_list(text)
    if not text or text == '' then return {} end
    return cjson.decode(text)
end
-- 'older' when some entity both maps name is older in given than in stored.
local function c_older(given, stored)
    for k, v in pairs(stored) do
        local g = given[k]
        if g ~= nil and g < v then return true end
    end
    return false
end
local function c_merge(given, stored)
    for k, v in pairs(stored) do
        if given[k] == nil or given[k] < v then given[k] = v end
    end
    return given
end
local function c_encode_map(m)
    if next(m) == nil then return '{}' end
    return cjson.encode(m)
end

-- KEYS: entity, log. Reply: { seq, flat hash, record fields and texts… }.
redis.register_function{
    function_name = '__READ__',
    flags = { 'no-writes' },
    callback = function(keys)
        local seq = redis.call('HGET', keys[2], 'seq') or '0'
        local records = {}
        local flat = redis.call('HGETALL', keys[2])
        for i = 1, #flat, 2 do
            if string.sub(flat[i], 1, 1) == 'r' then
                records[#records + 1] = flat[i]
                records[#records + 1] = flat[i + 1]
            end
        end
        return { seq, redis.call('HGETALL', keys[1]), records }
    end,
}

-- KEYS: entity, log, then (delete) the entity's reverse hashes. ARGV: expected _v ('' when it must not exist),
-- expected seq, 'put' or 'del', the change record (JSON, without its seq), the new hash's fields (put). Reply: the
-- new seq, or 'retry' when the entity or its counter moved since the caller read them (another operation, or a
-- fence), or a reverse hash still names a referrer (delete).
redis.register_function('__BEGIN__', function(keys, args)
    local v = redis.call('HGET', keys[1], '_v')
    if (args[1] == '' and v) or (args[1] ~= '' and v ~= args[1]) then return 'retry' end
    if (redis.call('HGET', keys[2], 'seq') or '0') ~= args[2] then return 'retry' end
    table.remove(args, 2)
    if args[2] == 'del' then
        for i = 3, #keys do
            if redis.call('HLEN', keys[i]) > 0 then return 'retry' end
        end
    end
    local seq = redis.call('HINCRBY', keys[2], 'seq', 1)
    redis.call('HSET', keys[2], 'r' .. seq, args[3])
    redis.call('DEL', keys[1])
    if args[2] == 'put' then
        redis.call('HSET', keys[1], unpack(args, 4))
    else
        for i = 3, #keys do redis.call('DEL', keys[i]) end
    end
    return seq
end)

-- KEYS: entity, log. Reply: { the raised seq, flat hash }: a writer that read the entity before this call and has not
-- made its own call yet is refused there ('retry'), so what the caller decides from this read holds.
redis.register_function('__FENCE__', function(keys)
    local seq = redis.call('HINCRBY', keys[2], 'seq', 1)
    return { seq, redis.call('HGETALL', keys[1]) }
end)

-- KEYS: log. ARGV: the record's seq.
redis.register_function('__ACK__', function(keys, args)
    return redis.call('HDEL', keys[1], 'r' .. args[1])
end)

-- KEYS: the reverse hash, the target's log, the target's entity hash. ARGV: referrer (Source.ref), referrer id, its
-- seq, 1 present / 0 absent, 1 when the target must exist. An entry set from a seq is kept against a removal from
-- the same seq (the entry of a new reference is added from the version the referrer's own call will replace), and
-- a new reference to a target already deleted is refused ('gone'): its delete saw no referrer.
redis.register_function('__REV__', function(keys, args)
    local guard = 'g' .. args[1] .. ':' .. args[2]
    local stored = tonumber(redis.call('HGET', keys[2], guard) or '0')
    local seq = tonumber(args[3])
    if seq < stored or (args[4] ~= '1' and seq == stored) then return 'stale' end
    if args[5] == '1' and redis.call('EXISTS', keys[3]) == 0 then return 'gone' end
    if args[4] == '1' then redis.call('HSET', keys[1], args[2], '') else redis.call('HDEL', keys[1], args[2]) end
    redis.call('HSET', keys[2], guard, seq)
    return 'ok'
end)

-- KEYS: row. ARGV: collection, versions (JSON), 'put' then the values, or 'del'. Reply: { 'ok', the partition now
-- holding the row's entries ('' for none), partitions still holding old entries… } or { 'stale' }.
redis.register_function('__ROW__', function(keys, args)
    local c = collection_of(args[1])
    local row = keys[1]
    expect_row_key(c, row)
    local given = c_map(args[2])
    local stored = c_map(redis.call('HGET', row, '@v'))
    if c_older(given, stored) then return { 'stale' } end
    local values = args[3] == 'put' and values_of(c, args, 4)
    local live = redis.call('EXISTS', row) == 1 and not redis.call('HGET', row, '@deleted')
    local old = false
    if live then old = #c.partition > 0 and redis.call('HGET', row, PARTITION_FIELD) or c.tag end
    local stale = c_list(redis.call('HGET', row, '@stale'))
    local tag = values and row_tag(c, values) or ''
    local hash = { row }
    if values then
        hash[#hash + 1] = c.keyField
        hash[#hash + 1] = string.sub(row, #c.rowPrefix + 1)
        for i, name in ipairs(c.fields) do
            hash[#hash + 1] = name
            hash[#hash + 1] = values[i]
        end
        if #c.partition > 0 then
            hash[#hash + 1] = PARTITION_FIELD
            hash[#hash + 1] = tag
        end
    else
        hash[#hash + 1] = '@deleted'
        hash[#hash + 1] = '1'
    end
    if old and old ~= tag then
        local known = false
        for _, s in ipairs(stale) do if s == old then known = true end end
        if not known then stale[#stale + 1] = old end
    end
    local kept = {}
    for _, s in ipairs(stale) do if s ~= tag then kept[#kept + 1] = s end end
    if #kept > 0 then
        hash[#hash + 1] = '@stale'
        hash[#hash + 1] = cjson.encode(kept)
    end
    local merged = c_merge(given, stored)
    if next(merged) ~= nil then
        hash[#hash + 1] = '@v'
        hash[#hash + 1] = c_encode_map(merged)
    end
    redis.call('DEL', row)
    redis.call('HSET', unpack(hash))
    return { 'ok', tag, unpack(kept) }
end)

-- KEYS: row. ARGV: partitions whose old entries of the row are gone.
redis.register_function('__ROWACK__', function(keys, args)
    local stale = c_list(redis.call('HGET', keys[1], '@stale'))
    local done = {}
    for i = 1, #args do done[args[i]] = true end
    local kept = {}
    for _, s in ipairs(stale) do if not done[s] then kept[#kept + 1] = s end end
    if #kept > 0 then redis.call('HSET', keys[1], '@stale', cjson.encode(kept)) else redis.call('HDEL', keys[1], '@stale') end
    return #kept
end)

-- KEYS: the partition's record hash. ARGV: collection, row, versions (JSON), 'put' then the values, or 'del'.
redis.register_function('__INDEX__', function(keys, args)
    local c = collection_of(args[1])
    local row = args[2]
    expect_row_key(c, row)
    local tag = string.sub(tostring(keys[1]), 1, -5)
    if string.sub(tostring(keys[1]), -4) ~= ':rec' then fail('KEYS must name a partition record hash, got "' .. tostring(keys[1]) .. '"') end
    local versions = tag .. ':@v'
    local given = c_map(args[3])
    local stored = c_map(redis.call('HGET', versions, row))
    if c_older(given, stored) then return 'stale' end
    if args[4] == 'put' then
        local values = values_of(c, args, 5)
        expect_record(c, keys[1], row_tag(c, values))
        index_put_at(c, tag, row, values)
    else
        remove_at(c, tag, row)
    end
    local merged = c_merge(given, stored)
    if next(merged) ~= nil then redis.call('HSET', versions, row, c_encode_map(merged)) end
    return 'ok'
end)
`;
