/**
 * The runtime's connection to a Redis server: connect (RESP2, no silent reconnects: a lost server must
 * stop a load, not queue commands forever), tell connection failures from error replies, and detect which
 * RediSearch dialect the server speaks.
 */
import { ConnectionTimeoutError, createClient, ErrorReply } from 'redis';
import type { RedisDialect } from '../generation/redis/redis-view-model.js';
import { KvmodError } from '../pipeline/errors.js';
import { DEFAULT_REDIS_TIMEOUT_SECONDS, redactRedisUrl } from './redis-url.js';

/** The little the runtime needs of a client: send an argv, close. */
export interface RedisLink {
    /** The URL with its password hidden (`redactRedisUrl`): the only form messages may print. */
    url: string;
    send(argv: readonly string[]): Promise<unknown>;
    close(): Promise<void>;
}

/** How to connect. */
export interface RedisLinkOptions {
    /** Seconds to wait for the connection (TCP, TLS and handshake) and for each reply (default 30). */
    timeoutSeconds?: number;
}

/** A failure of the connection itself (server gone, refused, reset, silent), as opposed to an error reply. */
export class RedisConnectionLost extends Error {
    /** `redis.connection-lost`, or `redis.timeout` when the server stopped answering. */
    readonly code: string;

    constructor(message: string, options?: { cause?: unknown; code?: string }) {
        super(message, options);
        this.name = 'RedisConnectionLost';
        this.code = options?.code ?? 'redis.connection-lost';
    }
}

/** True for an error reply of the server (the command was refused; the connection is fine). */
export function isErrorReply(error: unknown): error is Error {
    return error instanceof ErrorReply;
}

/** Opens a connection; a server that cannot be reached, is silent or refuses the login is a KvmodError. */
export async function connectRedis(url: string, options: RedisLinkOptions = {}): Promise<RedisLink> {
    const shown = redactRedisUrl(url);
    const seconds = options.timeoutSeconds ?? DEFAULT_REDIS_TIMEOUT_SECONDS;
    const timeout = Math.max(1, Math.round(seconds * 1000));
    let client: ReturnType<typeof createClient>;
    try {
        const parsed = new URL(url);
        if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('not a redis URL');
        // node-redis reads the rest (a database number as the path) and throws on what it cannot.
        client = createClient({
            url,
            RESP: 2,
            disableOfflineQueue: true,
            socket: { reconnectStrategy: false, connectTimeout: timeout },
        });
    } catch {
        throw new KvmodError(
            `not a Redis URL: ${shown} (expected redis://host:port or rediss://host:port, optionally user:password@ before the host and /db after it)`,
            { code: 'redis.url' },
        );
    }
    let lastError: unknown;
    let socketOpen = false;
    client.on('error', (error: unknown) => {
        lastError = error;
    });
    client.on('connect', () => {
        socketOpen = true;
    });
    // node-redis times out the TCP connect only; a listener that accepts and never answers (a paused server, a
    // proxy, a port that is not Redis) would hold the handshake forever.
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new HandshakeTimeout()), timeout);
    });
    try {
        await Promise.race([client.connect(), silent]);
    } catch (error) {
        client.destroy();
        throw connectFailure(shown, error, socketOpen, seconds);
    } finally {
        clearTimeout(timer);
    }
    let closed = false;
    // The reply timeout. node-redis's per-command `timeout` covers only the wait to be written, not the reply,
    // so a watchdog does it: while replies are awaited, the server must answer one within the limit (a long
    // pipelined batch that keeps answering never times out). A silent server gets the connection destroyed:
    // every waiting command then fails with the same error, naming the oldest command left unanswered.
    const waiting = new Set<readonly string[]>();
    let lastReply = 0;
    let watchdog: NodeJS.Timeout | undefined;
    let stalled: readonly string[] | undefined;
    const watch = () => {
        watchdog = undefined;
        if (waiting.size === 0) return;
        const quiet = Date.now() - lastReply;
        if (quiet < timeout) {
            watchdog = setTimeout(watch, timeout - quiet);
            return;
        }
        stalled = waiting.values().next().value;
        closed = true;
        client.destroy();
    };
    const lost = (error: unknown): RedisConnectionLost => {
        if (stalled)
            return new RedisConnectionLost(
                `${shown} did not answer ${stalled[0] ?? 'a command'} within ${formatSeconds(seconds)} (busy, paused, or not Redis? --timeout sets the limit)`,
                { cause: error, code: 'redis.timeout' },
            );
        return new RedisConnectionLost(
            `lost the connection to ${shown}: ${(error as Error).message || String(lastError)}`,
            { cause: error },
        );
    };
    return {
        url: shown,
        async send(argv) {
            if (stalled) throw lost(undefined);
            if (waiting.size === 0) lastReply = Date.now();
            waiting.add(argv);
            watchdog ??= setTimeout(watch, timeout);
            try {
                return await client.sendCommand([...argv]);
            } catch (error) {
                if (isErrorReply(error)) throw authFailure(shown, error) ?? error;
                throw lost(error);
            } finally {
                waiting.delete(argv);
                lastReply = Date.now();
                if (waiting.size === 0 && watchdog) {
                    clearTimeout(watchdog);
                    watchdog = undefined;
                }
            }
        },
        async close() {
            if (watchdog) clearTimeout(watchdog);
            if (closed) return;
            closed = true;
            try {
                if (client.isOpen) await client.close();
            } catch {
                client.destroy();
            }
        },
    };
}

/** Raised by kvmod's own handshake timer. */
class HandshakeTimeout extends Error {}

/** The one-line error of a connection that could not be opened. */
function connectFailure(shown: string, error: unknown, socketOpen: boolean, seconds: number): KvmodError {
    const tls = shown.startsWith('rediss:');
    const auth = isErrorReply(error) ? authFailure(shown, error) : undefined;
    if (auth) return auth;
    let reason: string;
    let code = 'redis.connect';
    if (error instanceof HandshakeTimeout || error instanceof ConnectionTimeoutError) {
        code = 'redis.timeout';
        reason = socketOpen
            ? `it accepted the connection but did not answer the handshake within ${formatSeconds(seconds)} (is it a Redis server, and not paused?)`
            : tls
              ? `no TLS connection within ${formatSeconds(seconds)} (is the port serving TLS? a firewall dropping packets, or a wrong host?)`
              : `no connection within ${formatSeconds(seconds)} (a firewall dropping packets, or a wrong host?)`;
    } else {
        const errno = (error as NodeJS.ErrnoException).code;
        if (errno === 'ECONNREFUSED') reason = 'connection refused';
        else if (errno === 'ENOTFOUND') reason = 'unknown host';
        else if (/SSL|TLS|certificate|EPROTO/i.test(`${errno} ${(error as Error).message}`)) {
            // Node 24 appends its own advice after a ';' (--use-system-ca); ours follows, so the reason reads the same on every Node.
            const message = (error as Error).message.replace(/; if the root CA is installed locally.*$/s, '');
            const hint = /certificate/i.test(message) ? ' (to trust a private CA: NODE_EXTRA_CA_CERTS=ca.pem)' : '';
            reason = `TLS failed: ${message}${hint}`;
        } else reason = (error as Error).message || String(error);
    }
    return new KvmodError(`cannot connect to ${shown}: ${reason}`, { code, cause: error });
}

/** NOAUTH (no password given) and WRONGPASS (a wrong one) as errors a user can act on, or undefined. */
function authFailure(shown: string, error: Error): KvmodError | undefined {
    if (/^NOAUTH\b/.test(error.message))
        return new KvmodError(
            `${shown} requires a password: give it in the URL, redis://:PASSWORD@host:port (or redis://USER:PASSWORD@host:port for an ACL user)`,
            { code: 'redis.auth', cause: error },
        );
    if (/^WRONGPASS\b/.test(error.message))
        return new KvmodError(`cannot log in to ${shown}: the server refused the user name or password (WRONGPASS)`, {
            code: 'redis.auth',
            cause: error,
        });
    return undefined;
}

function formatSeconds(seconds: number): string {
    return `${seconds} s`;
}

/** The RediSearch module the server runs: its dialect and version (e.g. 10200 for 1.2.0). */
export async function detectDialect(link: RedisLink): Promise<{ dialect: RedisDialect; version: number }> {
    let modules: unknown[];
    try {
        modules = (await link.send(['MODULE', 'LIST'])) as unknown[];
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        return probeDialect(link); // MODULE LIST may be denied (ACL, managed services)
    }
    for (const entry of modules ?? []) {
        const fields = entry as unknown[];
        const info: Record<string, unknown> = {};
        for (let i = 0; i + 1 < fields.length; i += 2) info[String(fields[i])] = fields[i + 1];
        const name = String(info.name ?? '').toLowerCase();
        if (name === 'ft' || name === 'search' || name === 'searchlight') {
            const version = Number(info.ver ?? 0);
            return { dialect: version > 0 && version < 20000 ? 'redisearch1' : 'redisearch2', version };
        }
    }
    throw new KvmodError(
        `${link.url} has no RediSearch module (MODULE LIST shows none); load redisearch.so or use Redis Stack / Redis 8`,
        { code: 'redis.no-search' },
    );
}

/** Without MODULE LIST: FT._LIST exists from RediSearch 2.0 on; FT.INFO exists in every version. */
async function probeDialect(link: RedisLink): Promise<{ dialect: RedisDialect; version: number }> {
    try {
        await link.send(['FT._LIST']);
        return { dialect: 'redisearch2', version: 0 };
    } catch (error) {
        if (!isErrorReply(error)) throw error;
    }
    try {
        await link.send(['FT.INFO', '__kvmod_probe__']);
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        if (/unknown command/i.test(error.message)) {
            throw new KvmodError(`${link.url} has no RediSearch module (FT.INFO is an unknown command)`, {
                code: 'redis.no-search',
            });
        }
    }
    return { dialect: 'redisearch1', version: 0 };
}
