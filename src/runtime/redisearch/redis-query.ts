/**
 * Runs a served query on the engine with the generated command and reads the reply back into typed rows
 * (the projected columns, in order), so that it can be compared with the oracle.
 */
import { bindRedisCommand } from '../../generation/redis/redis-commands.js';
import { decodeRedisValue } from '../../generation/shared/redis-encoding.js';
import type { RedisQuery } from '../../generation/redis/redis-view-model.js';
import type { TypedValue } from '../collation.js';
import type { ParameterValues } from '../oracle.js';
import { isErrorReply, type RedisLink } from '../redis-connection/redis-link.js';

/** A query's rows as the engine returned them, and how many it says matched. */
export interface EngineAnswer {
    rows: TypedValue[][];
    /** The total the engine reports (FT.SEARCH: all matches, even beyond LIMIT). */
    total: number;
    /** The exact argv of the first page. */
    argv: string[];
    /** How many requests read the answer. */
    pages: number;
}

function pairs(list: unknown): Map<string, string> {
    const map = new Map<string, string>();
    const items = Array.isArray(list) ? list : [];
    for (let i = 0; i + 1 < items.length; i += 2)
        map.set(String(items[i]), items[i + 1] === null ? '' : String(items[i + 1]));
    return map;
}

/**
 * Reads an FT.SEARCH or FT.AGGREGATE reply (RESP2) into the projected columns of each row, with each row's identity
 * (the document key of a search, the loaded id field of an aggregate).
 */
export function decodeQueryReply(
    query: RedisQuery,
    reply: unknown,
): { rows: TypedValue[][]; total: number; ids: string[] } {
    const items = reply as unknown[];
    const total = Number(items[0]);
    const documents: Map<string, string>[] = [];
    const ids: string[] = [];
    if (query.kind === 'search') {
        // [total, key, [field, value, …], key, [field, value, …], …]
        for (let i = 1; i < items.length; i += 2) {
            ids.push(String(items[i]));
            documents.push(pairs(items[i + 1]));
        }
    } else {
        for (let i = 1; i < items.length; i++) {
            const document = pairs(items[i]);
            ids.push(document.get(query.load[0] ?? '') ?? '');
            documents.push(document);
        }
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
    return { rows, total, ids };
}

/**
 * RediSearch 1.2's FT.AGGREGATE answers "Internal error processing QueryParseCtx" when a TAG clause names a
 * value no document has (measured: `@t:{nosuch}`), where FT.SEARCH answers 0 hits. Confirms with FT.SEARCH
 * on the same index and query string that nothing matches, so that a real parse error is still reported.
 */
async function matchesNothing(link: RedisLink, aggregateArgv: readonly string[]): Promise<boolean> {
    // `FT.AGGREGATE <index> <query> …`, or on 1.2 `EVAL <pointer lua> 1 <pointer> FT.AGGREGATE <query> …`: the same
    // head (index or pointer resolution) with FT.SEARCH.
    const at = aggregateArgv.indexOf('FT.AGGREGATE');
    const search =
        at === 0
            ? ['FT.SEARCH', ...aggregateArgv.slice(1, 3)]
            : [...aggregateArgv.slice(0, at), 'FT.SEARCH', aggregateArgv[at + 1]];
    try {
        const reply = (await link.send([...search, 'NOCONTENT', 'LIMIT', '0', '1'])) as unknown[];
        return Number(reply[0]) === 0;
    } catch {
        return false;
    }
}

/** The most rows RediSearch returns in one reply (the largest LIMIT count it accepts). */
export const MAX_REPLY_ROWS = 1_000_000;

/** One page of an answer. */
interface Page {
    rows: TypedValue[][];
    ids: string[];
    total: number;
    argv: string[];
}

/** Runs one page of a query: `LIMIT offset count` bound into its paging slots. */
async function runPage(
    link: RedisLink,
    query: RedisQuery,
    parameters: ParameterValues,
    offset: number,
    count: number,
): Promise<Page> {
    const argv = bindRedisCommand(query.command, {
        ...parameters,
        [query.page.offset]: offset,
        [query.page.count]: count,
    });
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
            return { rows: [], ids: [], total: 0, argv };
        }
        throw error;
    }
    return { ...decodeQueryReply(query, reply), argv };
}

/**
 * Runs a served query with parameter values (typed as instance data types them) and reads its answer to the end,
 * in pages of `pageSize` rows (default: the query's page size). A sorted `FT.SEARCH` answer larger than a page is
 * read again in one request: RediSearch 1.2 does not keep rows with equal sort keys in one order from one request
 * to the next (measured), so its pages could repeat some rows and miss others. Throws, never cuts: when the engine
 * cannot give the whole answer, or its pages repeat a row, or fewer rows come than it said matched.
 */
export async function runEngineQuery(
    link: RedisLink,
    query: RedisQuery,
    parameters: ParameterValues,
    pageSize = query.limit,
): Promise<EngineAnswer> {
    const first = await runPage(link, query, parameters, 0, pageSize);
    const rows = [...first.rows];
    const ids = [...first.ids];
    const append = (page: Page) => {
        rows.push(...page.rows);
        ids.push(...page.ids);
    };
    let pages = 1;
    if (query.kind === 'search' && first.total > rows.length) {
        if (query.sortKeys.length > 0) {
            if (first.total > MAX_REPLY_ROWS) {
                throw new Error(
                    `the engine matched ${first.total} rows; a sorted FT.SEARCH answer is read in one reply, which holds at most ${MAX_REPLY_ROWS}: the answer cannot be read whole`,
                );
            }
            const whole = await runPage(link, query, parameters, 0, first.total);
            rows.length = 0;
            ids.length = 0;
            append(whole);
            pages++;
        } else {
            while (rows.length < first.total) {
                const page = await runPage(link, query, parameters, rows.length, pageSize);
                pages++;
                if (page.rows.length === 0) break;
                append(page);
            }
        }
        if (rows.length !== first.total) {
            throw new Error(
                `the engine matched ${first.total} rows but ${rows.length} came back in ${pages} requests: the answer changed while it was read`,
            );
        }
    } else if (query.kind === 'aggregate') {
        let last = first.rows.length;
        while (last === pageSize) {
            const page = await runPage(link, query, parameters, rows.length, pageSize);
            pages++;
            append(page);
            last = page.rows.length;
        }
    }
    const seen = new Set<string>();
    for (const id of ids) {
        if (seen.has(id)) {
            throw new Error(
                `row ${JSON.stringify(id)} came back twice while the answer was read in ${pages} pages of ${pageSize} rows: the pages are not consistent`,
            );
        }
        seen.add(id);
    }
    return { rows, total: query.kind === 'search' ? first.total : rows.length, argv: first.argv, pages };
}
