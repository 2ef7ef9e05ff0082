/**
 * What differs between RediSearch 1.2 and 2.x, in one object per dialect: the engine, its text rules, how an index
 * follows its rows (2.x by key prefix, 1.2 by FT.ADD), how rows are written and deleted, and how a query carries its
 * values (2.x as PARAMS with DIALECT 2, 1.2 escaped into the query string). The builders ask the strategy and never
 * test the dialect themselves.
 */
import type { RedisLogicalType } from '../shared/redis-encoding.js';
import type { RedisDialect } from '../shared/redis-dialects.js';
import { REDIS_TEXT_RULES, type RedisTextRules } from '../shared/redis-text-rules.js';
import { lit, slot } from './redis-command-parts.js';
import { pointerKeyOf } from './redis-naming.js';
import type { RedisArgPart } from './redis-view-model-types.js';

/** The dialect-specific half of the Redis design. */
export interface RedisDialectStrategy {
    /** The dialect. */
    dialect: RedisDialect;
    /** A readable name of the engine versions the dialect targets. */
    engine: string;
    /** True for RediSearch 1.2 (the templates' switch). */
    legacy: boolean;
    /** How the engine indexes texts and how queries must write them. */
    text: RedisTextRules;
    /**
     * True when a compared text is searched in an equality companion holding `text.storedTag` of the value (2.x,
     * whose builds fold case in two ways), false when the field itself is searched (1.2).
     */
    equalityCompanion: boolean;
    /** The Lua script of counter-key inserts. */
    counterInsertLua: string;
    /** `FT.CREATE <index>` and what makes the index follow its rows (2.x: `ON HASH PREFIX 1 <prefix>`). */
    createHead(index: string, keyPrefix: string): RedisArgPart[][];
    /** The head of a natural-key write, up to the field/value pairs. */
    insertHead(index: string, rowKey: RedisArgPart[]): RedisArgPart[][];
    /** The head of a counter-key write (`EVAL <lua> 1 <counter> …`), up to the field/value pairs. */
    counterInsertHead(counterKey: string, index: string, keyPrefix: string, idField: string): RedisArgPart[][];
    /** Deletes one row from the keyspace and the index. */
    deleteArgv(index: string, rowKey: RedisArgPart[]): RedisArgPart[][];
    /**
     * How a query string negates: `operator` writes `-` before the negated clause (2.x); `push-down` (RediSearch 1.2,
     * whose NOT drops rows over a numeric clause, or as the first operand of an intersection: measured) moves every
     * negation down to single TAG clauses, turns a negated numeric comparison into its complementary ranges (`!=` into
     * two), and puts the negated clauses of an intersection after its other operands.
     */
    negation: 'operator' | 'push-down';
    /** A parameter compared with a field inside the query string. */
    queryValue(name: string, type: RedisLogicalType, kind: 'tag' | 'number'): RedisArgPart[];
    /**
     * What ends a query after its LIMIT: on 2.x `TIMEOUT 0` (no time limit for this query), the parameters it uses as
     * PARAMS, and the dialect. Nothing on 1.2, which has no per-query timeout (an unknown token makes its FT.AGGREGATE
     * drop every option after it).
     */
    queryTail(used: readonly { name: string; type: RedisLogicalType }[]): RedisArgPart[][];
    /**
     * The head of a query up to its query string: `FT.SEARCH <stable name>` on 2.x (the alias), and on 1.2 a Lua
     * script that reads the pointer key and runs the command on the index it names, in one atomic step.
     */
    queryHead(command: 'FT.SEARCH' | 'FT.AGGREGATE', stable: string): RedisArgPart[][];
    /**
     * The head of the same query pinned to one design (what a generated client sends): a script that runs it on
     * `physical` only while the stable name serves `physical`, and otherwise answers the error
     * `ERR other design: <stable> serves <served>, not <physical>` (which the client turns into its `OtherDesignError`),
     * in the same atomic step: no extra round trip.
     */
    pinnedQueryHead(command: 'FT.SEARCH' | 'FT.AGGREGATE', stable: string, physical: string): RedisArgPart[][];
    /** Makes the stable name serve a physical index: `FT.ALIASUPDATE` (2.x) or `SET` of the pointer key (1.2). */
    pointArgv(stable: string, physical: string): string[];
    /** Drops a physical index with its rows (2.x `FT.DROPINDEX … DD`, 1.2 `FT.DROP`, which deletes the hashes too). */
    dropArgv(physical: string): string[];
}

/**
 * RediSearch 1.2 has no index aliases: a query reads the pointer key (KEYS[1]) and runs its command (ARGV[1]) on the
 * index it names, with the rest of its arguments, inside one script, so a switch of the pointer is seen by a whole
 * query or not at all. A missing pointer is an error that names it.
 */
export const POINTER_QUERY_LUA = [
    "local index = redis.call('GET', KEYS[1])",
    "if not index then return redis.error_reply('ERR no index behind ' .. KEYS[1] .. ': create it with indexes.redis') end",
    'return redis.call(ARGV[1], index, unpack(ARGV, 2))',
].join('\n');

/**
 * A generated client's query on RediSearch 1.2: the pointer key (KEYS[1]) must name the client's own index
 * (ARGV[1]); then the command (ARGV[2]) runs on it with the rest of its arguments, in the same script.
 */
export const PINNED_POINTER_QUERY_LUA = [
    "local index = redis.call('GET', KEYS[1])",
    "if not index then return redis.error_reply('ERR no index behind ' .. KEYS[1] .. ': create it with indexes.redis') end",
    "if index ~= ARGV[1] then return redis.error_reply('ERR other design: ' .. KEYS[1] .. ' serves ' .. index .. ', not ' .. ARGV[1]) end",
    'return redis.call(ARGV[2], index, unpack(ARGV, 3))',
].join('\n');

/**
 * A generated client's query on RediSearch 2.x: the alias (ARGV[1]) must name the client's own index (ARGV[2]), as
 * FT.INFO of the alias reports it (`index_name`); then the command (ARGV[3]) runs on that index, in the same script.
 * An unknown alias answers FT.INFO's own error (the client's missing index).
 */
export const PINNED_ALIAS_QUERY_LUA = [
    "local info = redis.pcall('FT.INFO', ARGV[1])",
    'if info.err then return info end',
    'local index = ARGV[1]',
    'for i = 1, #info - 1, 2 do',
    "    if info[i] == 'index_name' then index = info[i + 1] break end",
    'end',
    "if index ~= ARGV[2] then return redis.error_reply('ERR other design: ' .. ARGV[1] .. ' serves ' .. index .. ', not ' .. ARGV[2]) end",
    'return redis.call(ARGV[3], index, unpack(ARGV, 4))',
].join('\n');

/** Counter insert for RediSearch 2.x+: INCR, then HSET (prefix indexing picks the hash up). */
const COUNTER_INSERT_LUA_2 = [
    '-- KEYS[1] = counter key; ARGV[1] = key prefix; ARGV[2] = id field; ARGV[3..] = field, value pairs',
    "local id = redis.call('INCR', KEYS[1])",
    'local key = ARGV[1] .. id',
    "redis.call('HSET', key, ARGV[2], id, unpack(ARGV, 3))",
    'return key',
].join('\n');

/** Counter insert for RediSearch 1.2: INCR, then FT.ADD (which writes the hash and indexes it). */
const COUNTER_INSERT_LUA_1 = [
    '-- KEYS[1] = counter key; ARGV[1] = index; ARGV[2] = key prefix; ARGV[3] = id field; ARGV[4..] = field, value pairs',
    "local id = redis.call('INCR', KEYS[1])",
    'local key = ARGV[2] .. id',
    "redis.call('FT.ADD', ARGV[1], key, '1.0', 'REPLACE', 'FIELDS', ARGV[3], id, unpack(ARGV, 4))",
    'return key',
].join('\n');

/** RediSearch 2.x and later: Redis Stack, Redis 8. */
const REDISEARCH2: RedisDialectStrategy = {
    dialect: 'redisearch2',
    engine: 'RediSearch 2.x and later: Redis Stack, Redis 8',
    legacy: false,
    text: REDIS_TEXT_RULES.redisearch2,
    equalityCompanion: true,
    counterInsertLua: COUNTER_INSERT_LUA_2,
    createHead: (index, keyPrefix) => lit('FT.CREATE', index, 'ON', 'HASH', 'PREFIX', '1', keyPrefix),
    insertHead: (_index, rowKey) => [['HSET'], rowKey],
    counterInsertHead: (counterKey, _index, keyPrefix, idField) =>
        lit('EVAL', COUNTER_INSERT_LUA_2, '1', counterKey, keyPrefix, idField),
    deleteArgv: (_index, rowKey) => [['DEL'], rowKey],
    negation: 'operator',
    queryValue: (name) => [`$${name}`],
    queryHead: (cmd, stable) => lit(cmd, stable),
    pinnedQueryHead: (cmd, stable, physical) => lit('EVAL', PINNED_ALIAS_QUERY_LUA, '0', stable, physical, cmd),
    pointArgv: (stable, physical) => ['FT.ALIASUPDATE', stable, physical],
    dropArgv: (physical) => ['FT.DROPINDEX', physical, 'DD'],
    queryTail(used) {
        // The server's TIMEOUT (500 ms by default) with ON_TIMEOUT RETURN answers a long query with part of its rows
        // and no error, its total cut too: every query turns the timeout off for itself.
        const argv: RedisArgPart[][] = lit('TIMEOUT', '0');
        if (used.length > 0) {
            argv.push(...lit('PARAMS', String(used.length * 2)));
            for (const { name, type } of used)
                argv.push([name], [slot(name, type, type === 'text' ? 'tag-param' : 'value')]);
        }
        return [...argv, ...lit('DIALECT', '2')];
    },
};

/** RediSearch 1.2: the 1.x module on Redis 5–7 (Debian 12). */
const REDISEARCH1: RedisDialectStrategy = {
    dialect: 'redisearch1',
    engine: 'RediSearch 1.2: the 1.x module on Redis 5–7, e.g. Debian 12',
    legacy: true,
    text: REDIS_TEXT_RULES.redisearch1,
    equalityCompanion: false,
    counterInsertLua: COUNTER_INSERT_LUA_1,
    createHead: (index) => lit('FT.CREATE', index),
    insertHead: (index, rowKey) => [['FT.ADD'], [index], rowKey, ['1.0'], ['REPLACE'], ['FIELDS']],
    counterInsertHead: (counterKey, index, keyPrefix, idField) =>
        lit('EVAL', COUNTER_INSERT_LUA_1, '1', counterKey, index, keyPrefix, idField),
    deleteArgv: (index, rowKey) => [['FT.DEL'], [index], rowKey, ['DD']],
    negation: 'push-down',
    queryValue: (name, type, kind) => [slot(name, type, kind === 'tag' ? 'tag' : 'value')],
    queryTail: () => [],
    queryHead: (cmd, stable) => lit('EVAL', POINTER_QUERY_LUA, '1', pointerKeyOf(stable), cmd),
    pinnedQueryHead: (cmd, stable, physical) =>
        lit('EVAL', PINNED_POINTER_QUERY_LUA, '1', pointerKeyOf(stable), physical, cmd),
    pointArgv: (stable, physical) => ['SET', pointerKeyOf(stable), physical],
    dropArgv: (physical) => ['FT.DROP', physical],
};

/** The strategy of each dialect. */
export const REDIS_DIALECT_STRATEGIES: Readonly<Record<RedisDialect, RedisDialectStrategy>> = {
    redisearch2: REDISEARCH2,
    redisearch1: REDISEARCH1,
};
