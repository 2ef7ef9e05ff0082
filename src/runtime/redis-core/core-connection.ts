/**
 * How the core-Redis engine talks to its server: one server (the runtime's RedisLink) or a Redis Cluster (node-redis
 * `createCluster`, which routes each command to the node serving its first key and follows MOVED/ASK). Both expose
 * the same three things: a command routed by key, the masters (to load the function library on each and to scan
 * them), and close. A lost node is a `RedisConnectionLost`, never a retry loop.
 */
import { createCluster, ErrorReply } from 'redis';
import { KvmodError } from '../../pipeline/errors.js';
import { connectRedis, isErrorReply, RedisConnectionLost } from '../redis-link.js';
import { DEFAULT_REDIS_TIMEOUT_SECONDS, redactRedisUrl } from '../redis-url.js';

/** A node the engine addresses directly (a master of a cluster, or the one server). */
export interface CoreNode {
    url: string;
    send(argv: readonly string[]): Promise<unknown>;
}

/** A connection to a single server or to a cluster. */
export interface CoreConnection {
    /** The URL(s) as messages may print them (passwords hidden). */
    url: string;
    /** True on a cluster: a row write is then two calls on two slots. */
    cluster: boolean;
    /** Sends a command to the node serving `key` (any node when undefined). */
    call(key: string | undefined, argv: readonly string[], readonly?: boolean): Promise<unknown>;
    /** The masters: the one server, or every master of the cluster. */
    masters(): Promise<CoreNode[]>;
    close(): Promise<void>;
}

/** Options of `connectCore`. */
export interface CoreConnectOptions {
    /** Seed node URLs of a Redis Cluster (the server URL is one of them); a single server when absent. */
    cluster?: readonly string[];
    /** Seconds to wait for a connection and for each reply. */
    timeoutSeconds?: number;
}

/** Connects to a single server (`url`) or, with `cluster`, to the cluster those seed nodes belong to. */
export async function connectCore(url: string, options: CoreConnectOptions = {}): Promise<CoreConnection> {
    if (!options.cluster || options.cluster.length === 0) {
        const link = await connectRedis(url, { timeoutSeconds: options.timeoutSeconds });
        const node: CoreNode = { url: link.url, send: (argv) => link.send(argv) };
        return {
            url: link.url,
            cluster: false,
            call: (_key, argv) => link.send(argv),
            masters: async () => [node],
            close: () => link.close(),
        };
    }
    return connectCluster(options.cluster, options.timeoutSeconds ?? DEFAULT_REDIS_TIMEOUT_SECONDS);
}

async function connectCluster(seeds: readonly string[], seconds: number): Promise<CoreConnection> {
    const shown = seeds.map(redactRedisUrl).join(', ');
    const timeout = Math.max(1, Math.round(seconds * 1000));
    for (const seed of seeds) {
        try {
            const parsed = new URL(seed);
            if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error('not a redis URL');
        } catch {
            throw new KvmodError(`not a Redis URL: ${redactRedisUrl(seed)} (a cluster seed is redis://host:port)`, {
                code: 'redis.url',
            });
        }
    }
    const first = new URL(seeds[0]);
    const cluster = createCluster({
        rootNodes: seeds.map((seed) => ({ url: seed })),
        // RESP2 for every node's client (a cluster-level option: `defaults` does not carry it).
        RESP: 2,
        defaults: {
            disableOfflineQueue: true,
            username: first.username ? decodeURIComponent(first.username) : undefined,
            password: first.password ? decodeURIComponent(first.password) : undefined,
            socket: {
                reconnectStrategy: false,
                connectTimeout: timeout,
                tls: first.protocol === 'rediss:' || undefined,
            },
        },
        maxCommandRedirections: 8,
    } as Parameters<typeof createCluster>[0]);
    let lastError: unknown;
    cluster.on('error', (error: unknown) => {
        lastError = error;
    });
    const withTimeout = async <T>(work: Promise<T>, what: string): Promise<T> => {
        let timer: NodeJS.Timeout | undefined;
        try {
            return await Promise.race([
                work,
                new Promise<never>((_, reject) => {
                    timer = setTimeout(
                        () =>
                            reject(
                                new RedisConnectionLost(
                                    `the cluster (${shown}) did not answer ${what} within ${seconds} s`,
                                    {
                                        code: 'redis.timeout',
                                    },
                                ),
                            ),
                        timeout,
                    );
                }),
            ]);
        } finally {
            clearTimeout(timer);
        }
    };
    try {
        await withTimeout(cluster.connect(), 'the connection');
    } catch (error) {
        cluster.destroy();
        const reason = error instanceof Error ? error.message : String(error ?? lastError);
        throw new KvmodError(`cannot connect to the Redis Cluster at ${shown}: ${reason}`, {
            code: 'redis.connect',
            cause: error,
        });
    }
    const lost = (error: unknown): unknown => {
        if (error instanceof ErrorReply || isErrorReply(error) || error instanceof RedisConnectionLost) return error;
        return new RedisConnectionLost(
            `lost a node of the cluster (${shown}): ${(error as Error)?.message || String(lastError ?? error)}`,
            { cause: error },
        );
    };
    return {
        url: shown,
        cluster: true,
        async call(key, argv, readonly = false) {
            try {
                return await withTimeout(cluster.sendCommand(key, readonly, [...argv]), argv[0] ?? 'a command');
            } catch (error) {
                // A cluster whose node is gone answers CLUSTERDOWN or a socket error: the run cannot go on.
                if (isErrorReply(error) && /^(CLUSTERDOWN|TRYAGAIN)/.test(error.message))
                    throw new RedisConnectionLost(`the cluster (${shown}) is down: ${error.message}`, { cause: error });
                throw lost(error);
            }
        },
        async masters() {
            const nodes: CoreNode[] = [];
            for (const master of cluster.masters) {
                const client = await withTimeout(cluster.nodeClient(master), 'the connection to a master');
                const url = `redis://${master.host}:${master.port}`;
                nodes.push({
                    url,
                    send: async (argv) => {
                        try {
                            return await withTimeout(client.sendCommand([...argv]), argv[0] ?? 'a command');
                        } catch (error) {
                            throw lost(error);
                        }
                    },
                });
            }
            return nodes;
        },
        async close() {
            try {
                await cluster.close();
            } catch {
                cluster.destroy();
            }
        },
    };
}
