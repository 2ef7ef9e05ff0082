/**
 * What may be said about a Redis server without connecting to it: the URL as kvmod prints it (never with its
 * password) and how long kvmod waits for it. Apart from the client (redis-link.ts) so that the command line
 * can use it without loading node-redis.
 */

/** How long kvmod waits, by default, for the server to accept the connection and for each reply. */
export const DEFAULT_REDIS_TIMEOUT_SECONDS = 30;

/**
 * A Redis URL as kvmod prints it: the password replaced by `***` (`redis://alice:***@host:6379`), the user
 * name kept (it says which ACL user was tried). Works on text that is not a valid URL too, so that a
 * malformed URL in an error message does not leak its secret either. Every message naming a server uses it.
 */
export function redactRedisUrl(url: string): string {
    // By position rather than by URL parsing: a password holding '/', '@' or '#' makes the URL invalid, and
    // the message saying so must not print it either. The user information ends at the last '@'.
    const at = url.lastIndexOf('@');
    const slashes = url.indexOf('//');
    const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
    const colon = url.indexOf(':', start);
    if (at < 0 || colon < 0 || colon > at) return url;
    return `${url.slice(0, colon + 1)}***${url.slice(at)}`;
}
