/**
 * Runs a served query on the engine with the generated command and reads the reply back into typed rows
 * (the projected columns, in order), so that it can be compared with the oracle.
 */
import { bindRedisCommand } from '../generation/redis/redis-commands.js';
import { decodeRedisValue } from '../generation/redis/redis-encoding.js';
import type { RedisQuery } from '../generation/redis/redis-view-model.js';
import type { TypedValue } from './collation.js';
import type { ParameterValues } from './oracle.js';
import { isErrorReply, type RedisLink } from './redis-link.js';

/** A query's rows as the engine returned them, and how many it says matched. */
export interface EngineAnswer {
    rows: TypedValue[][];
    /** The total the engine reports (FT.SEARCH: all matches, even beyond LIMIT). */
    total: number;
    /** The exact argv sent. */
    argv: string[];
}

function pairs(list: unknown): Map<string, string> {
    const map = new Map<string, string>();
    const items = Array.isArray(list) ? list : [];
    for (let i = 0; i + 1 < items.length; i += 2)
        map.set(String(items[i]), items[i + 1] === null ? '' : String(items[i + 1]));
    return map;
}

/** Reads an FT.SEARCH or FT.AGGREGATE reply (RESP2) into the projected columns of each row. */
export function decodeQueryReply(query: RedisQuery, reply: unknown): { rows: TypedValue[][]; total: number } {
    const items = reply as unknown[];
    const total = Number(items[0]);
    const documents: Map<string, string>[] = [];
    if (query.kind === 'search') {
        // [total, key, [field, value, …], key, [field, value, …], …]
        for (let i = 1; i < items.length; i += 2) documents.push(pairs(items[i + 1]));
    } else {
        for (let i = 1; i < items.length; i++) documents.push(pairs(items[i]));
    }
    const rows = documents.map((document) =>
        query.projections.map((projection) => {
            const stored = document.get(projection.field);
            if (stored === undefined)
                throw new Error(
                    `the reply has no field ${projection.field} in a row: ${JSON.stringify([...document])}`,
                );
            return decodeRedisValue(projection.type, stored);
        }),
    );
    return { rows, total };
}

/**
 * RediSearch 1.2's FT.AGGREGATE answers "Internal error processing QueryParseCtx" when a TAG clause names a
 * value no document has (measured: `@t:{nosuch}`), where FT.SEARCH answers 0 hits. Confirms with FT.SEARCH
 * on the same index and query string that nothing matches, so that a real parse error is still reported.
 */
async function matchesNothing(link: RedisLink, aggregateArgv: readonly string[]): Promise<boolean> {
    try {
        const reply = (await link.send([
            'FT.SEARCH',
            aggregateArgv[1],
            aggregateArgv[2],
            'NOCONTENT',
            'LIMIT',
            '0',
            '1',
        ])) as unknown[];
        return Number(reply[0]) === 0;
    } catch {
        return false;
    }
}

/** Runs a served query with parameter values (typed as instance data types them). */
export async function runEngineQuery(
    link: RedisLink,
    query: RedisQuery,
    parameters: ParameterValues,
): Promise<EngineAnswer> {
    const argv = bindRedisCommand(query.command, parameters);
    let reply: unknown;
    try {
        reply = await link.send(argv);
    } catch (error) {
        if (
            query.kind === 'aggregate' &&
            isErrorReply(error) &&
            /QueryParseCtx/.test(error.message) &&
            (await matchesNothing(link, argv))
        ) {
            return { rows: [], total: 0, argv };
        }
        throw error;
    }
    const { rows, total } = decodeQueryReply(query, reply);
    if (query.kind === 'search' && total > rows.length) {
        throw new Error(
            `the engine matched ${total} rows but returned ${rows.length}: the query's LIMIT (${query.limit}) cuts the answer`,
        );
    }
    if (query.kind === 'aggregate' && rows.length >= query.limit) {
        throw new Error(
            `the engine returned ${rows.length} rows, as many as the query's LIMIT (${query.limit}): the answer may be cut`,
        );
    }
    return { rows, total, argv };
}
