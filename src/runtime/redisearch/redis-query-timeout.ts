/**
 * The search module's query timeout, as the server runs it. With the stock settings (`TIMEOUT 500`, `ON_TIMEOUT
 * RETURN`) a query that runs longer than 500 ms answers part of its rows with no error, and FT.SEARCH reports the cut
 * total too, so nothing in the reply tells (REDIS.md). RediSearch 2.x takes `TIMEOUT 0` per query (the redisearch2
 * design sends it with every query) and reports its settings through `FT.CONFIG GET`. RediSearch 1.2 has neither
 * (`FT.CONFIG` is an unknown command there, measured; it came with 1.4.1): its settings are the module's load
 * arguments, which MODULE LIST shows (Redis 7 and later), and the only fix is to load it with `TIMEOUT 0`.
 */
import type { RedisDialect } from '../../generation/shared/redis-dialects.js';
import { isErrorReply, type RedisLink, type SearchModule } from '../redis-connection/redis-link.js';

/** The module's query timeout in ms (0: none) and what it does when a query exceeds it (`return`, `fail`). */
export interface QueryTimeout {
    timeoutMs: number;
    onTimeout: string;
}

/** The defaults of both versions, when nothing sets them. */
const DEFAULT_TIMEOUT: QueryTimeout = { timeoutMs: 500, onTimeout: 'return' };

/** The settings a 1.2 module was loaded with (its MODULE LIST `args`), the defaults for those not given. */
export function timeoutFromLoadArgs(args: readonly string[]): QueryTimeout {
    const setting = { ...DEFAULT_TIMEOUT };
    for (let i = 0; i + 1 < args.length; i++) {
        const name = args[i]!.toUpperCase();
        if (name === 'TIMEOUT' && /^\d+$/.test(args[i + 1]!)) setting.timeoutMs = Number(args[i + 1]);
        else if (name === 'ON_TIMEOUT') setting.onTimeout = args[i + 1]!.toLowerCase();
    }
    return setting;
}

/** One setting through `FT.CONFIG GET` (2.x), or Redis 8's `CONFIG GET search-…`; null when neither answers. */
async function configValue(link: RedisLink, name: string, redis8Name: string): Promise<string | null> {
    for (const argv of [
        ['FT.CONFIG', 'GET', name],
        ['CONFIG', 'GET', redis8Name],
    ]) {
        try {
            // FT.CONFIG GET answers [[name, value]]; CONFIG GET answers [name, value].
            const value = (await link.send(argv)) as unknown;
            const flat = Array.isArray(value) ? value.flat() : [];
            const at = flat.findIndex((item) => String(item).toLowerCase() === argv[2]!.toLowerCase());
            if (at >= 0 && flat[at + 1] !== undefined && flat[at + 1] !== null) return String(flat[at + 1]);
        } catch (error) {
            if (!isErrorReply(error)) throw error;
        }
    }
    return null;
}

/** The server's query timeout, or null when it cannot be read (MODULE LIST or FT.CONFIG refused). */
export async function readQueryTimeout(link: RedisLink, search: SearchModule): Promise<QueryTimeout | null> {
    if (search.dialect === 'redisearch1') return search.args ? timeoutFromLoadArgs(search.args) : null;
    const timeout = await configValue(link, 'TIMEOUT', 'search-timeout');
    const onTimeout = await configValue(link, 'ON_TIMEOUT', 'search-on-timeout');
    if (timeout === null || !/^\d+$/.test(timeout)) return null;
    return { timeoutMs: Number(timeout), onTimeout: (onTimeout ?? DEFAULT_TIMEOUT.onTimeout).toLowerCase() };
}

/** True when a query that runs long answers part of its rows with no error. */
export function cutsAnswers(setting: QueryTimeout): boolean {
    return setting.timeoutMs > 0 && setting.onTimeout !== 'fail';
}

/**
 * What `kvmod doctor` (and load, verify) say about the server's timeout, or null when it cannot cut an answer. On 1.2
 * an unreadable setting is taken as the default: nothing there can turn the timeout off per query.
 */
export function queryTimeoutWarning(
    server: string,
    dialect: RedisDialect,
    setting: QueryTimeout | null,
): string | null {
    if (dialect === 'redisearch1') {
        const known = setting ?? DEFAULT_TIMEOUT;
        if (!cutsAnswers(known)) return null;
        const read = setting === null ? ' (MODULE LIST would not say: the defaults are taken)' : '';
        return (
            `${server} runs RediSearch 1.2 with TIMEOUT ${known.timeoutMs} and ON_TIMEOUT ${known.onTimeout}${read}: ` +
            'a query that runs longer answers part of its rows with no error, its total cut too, and 1.2 has no ' +
            'per-query TIMEOUT and no FT.CONFIG. Load the module with TIMEOUT 0 and restart the server: ' +
            'redis-server --loadmodule <path>/redisearch.so TIMEOUT 0 (in redis.conf: loadmodule <path>/redisearch.so TIMEOUT 0)'
        );
    }
    if (setting === null || !cutsAnswers(setting)) return null;
    return (
        `${server} runs its search queries with TIMEOUT ${setting.timeoutMs} and ON_TIMEOUT ${setting.onTimeout}: ` +
        'a query that runs longer answers part of its rows with no error, its total cut too. The redisearch2 ' +
        "design's queries (scripts, generated client, verify) pass TIMEOUT 0 for themselves; for other clients run " +
        'FT.CONFIG SET ON_TIMEOUT FAIL (an error instead of a part; Redis 8: CONFIG SET search-on-timeout fail)'
    );
}
