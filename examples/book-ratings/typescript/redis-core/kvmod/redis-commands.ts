// Copied by kvmod from its src/generation/redis/redis-commands.ts: the rules of the Redis design have one source. Do not edit.
/**
 * Turning the view model's commands into concrete argv (for the runtime) and into redis-cli lines (for the
 * templates). Both read the same `RedisCommand`, so a script and the runtime always send the same command.
 */
import { encodeRedisValue, encodeSortKey, escapeKeyPart, RedisEncodingError } from './redis-encoding.js';
import { quoteCliArgument } from './redis-escaping.js';
import { equalityForm, REDIS_TEXT_RULES } from './redis-text-rules.js';
import type { RedisCollection, RedisCommand, RedisParamSlot, RedisQuery, RedisViewModel } from './redis-view-model-types.js';

/** Parameter values by name: logical values (ISO strings for dates), null for an absent optional value. */
export type RedisParamValues = Readonly<Record<string, unknown>>;

/**
 * The concrete argv of a command for the given values. Optional row values that are null or missing drop
 * their field/value pair; any other missing value is an error.
 */
export function bindRedisCommand(command: RedisCommand, values: RedisParamValues): string[] {
    const out: string[] = [];
    for (const arg of command.argv) {
        const only = arg.length === 1 ? arg[0] : undefined;
        if (
            only !== undefined &&
            typeof only !== 'string' &&
            only.nullable &&
            (values[only.param] === null || values[only.param] === undefined)
        ) {
            out.pop(); // the hash field name before it
            continue;
        }
        out.push(arg.map((part) => (typeof part === 'string' ? part : bindSlot(part, values))).join(''));
    }
    return out;
}

/** The encoded text of one slot. */
function bindSlot(slot: RedisParamSlot, values: RedisParamValues): string {
    const value = values[slot.param] ?? slot.default;
    if (value === null || value === undefined) throw new RedisEncodingError(`no value for parameter '${slot.param}'`);
    let encoded: string;
    try {
        encoded = encodeRedisValue(slot.type, value);
    } catch (error) {
        if (error instanceof RedisEncodingError)
            throw new RedisEncodingError(`parameter '${slot.param}': ${error.message}`);
        throw error;
    }
    if (slot.use === 'key-part') return escapeKeyPart(encoded);
    if (slot.use === 'sort-key') return encodeSortKey(encoded);
    if (slot.use === 'equality-key') return equalityForm(encoded);
    if (slot.use === 'tag' || slot.use === 'tag-param') {
        // 1.2 substitutes the value into the query string; 2.x passes it as a PARAMS value.
        const rules = REDIS_TEXT_RULES[slot.use === 'tag' ? 'redisearch1' : 'redisearch2'];
        try {
            return rules.queryTag(encoded, slot.use === 'tag' ? 'query-string' : 'params');
        } catch (error) {
            if (error instanceof RedisEncodingError)
                throw new RedisEncodingError(`parameter '${slot.param}': ${error.message}`);
            throw error;
        }
    }
    return encoded;
}

/** The error RediSearch 1.2 replies to an FT.AGGREGATE that matches no document (instead of an empty list). */
export const RS1_EMPTY_AGGREGATE_ERROR = 'Internal error processing QueryParseCtx';

/**
 * True when an error reply to an FT.AGGREGATE on RediSearch 1.2 means "no rows" (the `*` query is not
 * affected). Read such a reply as an empty result.
 */
export function isEmptyAggregateError(error: unknown): boolean {
    const message = error instanceof Error ? error.message : String(error);
    return message.includes(RS1_EMPTY_AGGREGATE_ERROR);
}

/**
 * The argv of a command with each slot shown as `$param`: what the scripts print. A sort companion's value
 * shows as `sortKey($param)`, an equality companion's as `equalityKey($param)`: they are derived from the row value,
 * not supplied separately.
 */
export function displayRedisCommand(command: RedisCommand): string[] {
    return command.argv.map((arg) => arg.map((part) => (typeof part === 'string' ? part : slotMarker(part))).join(''));
}

/** The placeholder text of one slot. */
function slotMarker(slot: RedisParamSlot): string {
    if (slot.use === 'sort-key') return `sortKey($${slot.param})`;
    return slot.use === 'equality-key' ? `equalityKey($${slot.param})` : `$${slot.param}`;
}

/**
 * The redis-cli line of a command with `$param` markers: `formatCliCommand(displayRedisCommand(command))`, without an
 * array per argument (the scripts and the README of a 1000 × 1000 model print millions of arguments). Joined rather
 * than appended: a line of thousands of appended pieces is a rope that every reader flattens.
 */
export function formatRedisCommand(command: RedisCommand): string {
    const quoted: string[] = [];
    for (const arg of command.argv) {
        let text = '';
        for (const part of arg) text += typeof part === 'string' ? part : slotMarker(part);
        quoted.push(quoteCliArgument(text));
    }
    return quoted.join(' ');
}

/** Finds a collection of the view model by name; throws with the known names otherwise. */
export function findRedisCollection(model: RedisViewModel, name: string): RedisCollection {
    const found = model.collections.find((c) => c.name === name);
    if (!found) throw new Error(`no collection '${name}' (known: ${model.collections.map((c) => c.name).join(', ')})`);
    return found;
}

/** Finds a served query of the view model by name (across collections). */
export function findRedisQuery(
    model: RedisViewModel,
    name: string,
): { collection: RedisCollection; query: RedisQuery } {
    for (const collection of model.collections) {
        const query = collection.queries.find((q) => q.name === name);
        if (query) return { collection, query };
    }
    throw new Error(
        `no query '${name}' (known: ${model.collections.flatMap((c) => c.queries.map((q) => q.name)).join(', ')})`,
    );
}

/** The argv that inserts (or replaces) one row of a collection: `row` holds the collection's `rowParams`. */
export function insertArgv(model: RedisViewModel, collection: string, row: RedisParamValues): string[] {
    return bindRedisCommand(findRedisCollection(model, collection).insert, row);
}

/** The argv that deletes one row of a collection, identified by its key parts (or id for counter keys). */
export function deleteArgv(model: RedisViewModel, collection: string, row: RedisParamValues): string[] {
    return bindRedisCommand(findRedisCollection(model, collection).delete, row);
}

/** The argv of a served query for the given parameter values. */
export function queryArgv(model: RedisViewModel, query: string, params: RedisParamValues): string[] {
    return bindRedisCommand(findRedisQuery(model, query).query.command, params);
}
