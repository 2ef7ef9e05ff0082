/**
 * What may be said about a Redis server without connecting to it: the URL as kvmod prints it (never with its
 * password) and how long kvmod waits for it. Apart from the client (redis-link.ts) so that the command line
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
