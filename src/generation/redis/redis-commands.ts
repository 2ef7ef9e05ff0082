/**
 * Turning the view model's commands into concrete argv (for the runtime) and into redis-cli lines (for the
 * templates). Both read the same `RedisCommand`, so a script and the runtime always send the same command.
 */
import { encodeRedisValue, encodeSortKey, escapeKeyPart, RedisEncodingError } from './redis-encoding.js';
import { escapeTagValue, formatCliCommand } from './redis-escaping.js';
import type { RedisCollection, RedisCommand, RedisParamSlot, RedisQuery, RedisViewModel } from './redis-view-model.js';

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

/**
 * Tag values RediSearch 1.2's query parser cannot reproduce: it unescapes a tag twice, so a backslash
 * followed by a space, punctuation or another backslash never survives (checked against the engine).
 * Only 1.2 substitutes values into the query string (`tag` slots); 2.x passes them as PARAMS.
 */
const UNMATCHABLE_IN_RS1 = /\\[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/;

/** ASCII white space at either end of a text: what RediSearch trims from a tag at index time. */
const ASCII_EDGE_SPACE = /^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g;

/** The encoded text of one slot. */
function bindSlot(slot: RedisParamSlot, values: RedisParamValues): string {
    const value = values[slot.param];
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
    if (slot.use === 'tag') {
        // The engine trims tags when it indexes them but not an escaped space in a query: present the
        // value as it was indexed, or ' 673' would never match the stored '673'.
        encoded = encoded.replace(ASCII_EDGE_SPACE, '');
        if (encoded === '')
            throw new RedisEncodingError(`parameter '${slot.param}': a TAG clause cannot match an empty text`);
        if (UNMATCHABLE_IN_RS1.test(encoded)) {
            throw new RedisEncodingError(
                `parameter '${slot.param}': RediSearch 1.2 cannot match a tag holding a backslash before a space, punctuation or another backslash (${JSON.stringify(encoded)}); use the redisearch2 dialect`,
            );
        }
        return escapeTagValue(encoded);
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
 * shows as `sortKey($param)`: it is derived from the row value, not supplied separately.
 */
export function displayRedisCommand(command: RedisCommand): string[] {
    return command.argv.map((arg) => arg.map((part) => (typeof part === 'string' ? part : slotMarker(part))).join(''));
}

/** The placeholder text of one slot. */
function slotMarker(slot: RedisParamSlot): string {
    return slot.use === 'sort-key' ? `sortKey($${slot.param})` : `$${slot.param}`;
}

/** The redis-cli line of a command with `$param` markers. */
export function formatRedisCommand(command: RedisCommand): string {
    return formatCliCommand(displayRedisCommand(command));
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
