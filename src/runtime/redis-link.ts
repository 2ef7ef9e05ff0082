/**
 * The runtime's connection to a Redis server: connect (RESP2, no silent reconnects: a lost server must
 * stop a load, not queue commands forever), tell connection failures from error replies, and detect which
 * RediSearch dialect the server speaks.
 */
import { createClient, ErrorReply } from 'redis';
import type { RedisDialect } from '../generation/redis/redis-view-model.js';
import { KvmodError } from '../pipeline/errors.js';

/** The little the runtime needs of a client: send an argv, close. */
export interface RedisLink {
    /** The URL as the user gave it (for messages). */
    url: string;
    send(argv: readonly string[]): Promise<unknown>;
    close(): Promise<void>;
}

/** A failure of the connection itself (server gone, refused, reset), as opposed to an error reply. */
export class RedisConnectionLost extends Error {
    constructor(message: string, options?: { cause?: unknown }) {
        super(message, options);
        this.name = 'RedisConnectionLost';
    }
}

/** True for an error reply of the server (the command was refused; the connection is fine). */
export function isErrorReply(error: unknown): error is Error {
    return error instanceof ErrorReply;
}

/** Opens a connection; a server that cannot be reached is a KvmodError naming the URL. */
export async function connectRedis(url: string): Promise<RedisLink> {
    let parsed: URL;
    try {
        parsed = new URL(url);
        if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('not a redis URL');
    } catch {
        throw new KvmodError(`not a Redis URL: ${url} (expected redis://host:port)`, { code: 'redis.url' });
    }
    const client = createClient({
        url,
        RESP: 2,
        disableOfflineQueue: true,
        socket: { reconnectStrategy: false, connectTimeout: 5000 },
    });
    let lastError: unknown;
    client.on('error', (error: unknown) => {
        lastError = error;
    });
    try {
        await client.connect();
    } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const reason = code === 'ECONNREFUSED' ? 'connection refused' : (error as Error).message;
        throw new KvmodError(`cannot connect to ${url}: ${reason}`, { code: 'redis.connect', cause: error });
    }
    let closed = false;
    return {
        url,
        async send(argv) {
            try {
                return await client.sendCommand([...argv]);
            } catch (error) {
                if (isErrorReply(error)) throw error;
                throw new RedisConnectionLost(
                    `lost the connection to ${url}: ${(error as Error).message || String(lastError)}`,
                    { cause: error },
                );
            }
        },
        async close() {
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
