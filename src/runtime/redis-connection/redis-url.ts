/**
 * What may be said about a Redis server without connecting to it: the URL as kvmod prints it (never with its
 * password), how long kvmod waits for it and what its URL says. Apart from the client (redis-link.ts) so that the command line
 * can use it without loading node-redis.
 */
import { redactUrl } from '../../pipeline/errors.js';

/** How long kvmod waits, by default, for the server to accept the connection and for each reply. */
export const DEFAULT_REDIS_TIMEOUT_SECONDS = 30;

/**
 * A Redis URL as kvmod prints it: the password replaced by `***` (`redis://alice:***@host:6379`,
 * `redis://host:6379?password=***`), the user name kept (it says which ACL user was tried). Works on text that
 * is not a valid URL too. Every message naming a server uses it.
 */
export function redactRedisUrl(url: string): string {
    return redactUrl(url);
}

/** What a Redis URL says: where to connect and how to log in. */
export interface RedisTarget {
    tls: boolean;
    host: string;
    port: number;
    username: string;
    password: string;
    /** The database to SELECT, when the URL names one (`/2`). */
    database?: number;
}

/** Reads a `redis://` or `rediss://` URL; throws on anything else (the caller words it). */
export function redisTarget(url: string): RedisTarget {
    const parsed = new URL(url);
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('not a redis URL');
    let database: number | undefined;
    if (parsed.pathname.length > 1) {
        database = Number(parsed.pathname.slice(1));
        if (Number.isNaN(database)) throw new Error('not a database number');
    }
    return {
        tls: parsed.protocol === 'rediss:',
        host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
        port: Number(parsed.port || 6379),
        username: decodeURIComponent(parsed.username),
        password: decodeURIComponent(parsed.password),
        database,
    };
}
