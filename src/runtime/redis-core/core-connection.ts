/**
 * How the core-Redis engine talks to its server: one server (the runtime's RedisLink) or a Redis Cluster (node-redis
 * `createCluster`, which routes each command to the node serving its first key and follows MOVED/ASK). Both expose
 * the same four things: a command routed by key, many commands pipelined (the loader's batches: one RESP buffer per
 * node, written on the node's bulk connection as `redis-cli --pipe` writes), the masters (to load the function
 * library on each and to scan them), and close. A lost node is a `RedisConnectionLost`, never a retry loop.
 */
import type { createCluster as CreateCluster } from 'redis';
import { KvmodError } from '../../pipeline/errors.js';
import {
    connectRedis,
    isErrorReply,
    RedisConnectionLost,
    RedisErrorReply,
    refusedBy,
    type RedisLink,
} from '../redis-connection/redis-link.js';
import { argvOfResp, RespWriter, type RespBatch } from '../redis-connection/redis-resp.js';
import { DEFAULT_REDIS_TIMEOUT_SECONDS, redactRedisUrl } from '../redis-connection/redis-url.js';

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
    /**
     * Sends many commands at once, each to the node serving its key, and settles each in the order given: its
     * reply, its error reply, or a RedisConnectionLost. Commands to one node keep their order; a batch is not
     * ordered with `call`s not yet answered (await those first).
     */
    callMany(batch: CoreBatch): Promise<PromiseSettledResult<unknown>[]>;
    /**
     * A single server's pipelined batch of commands already in RESP (`RedisLink.sendBatch`), settled in order: what the
     * row writer uses when present (every command to the one server, no key to route by).
     */
    sendBatch?(batch: RespBatch): Promise<PromiseSettledResult<unknown>[]>;
    /** The masters: the one server, or every master of the cluster. */
    masters(): Promise<CoreNode[]>;
    close(): Promise<void>;
}

/** Commands for `callMany`: each one's key (routing) and RESP text (redis-resp.ts). */
export interface CoreBatch {
    keys: readonly string[];
    commands: readonly string[];
    /** The first command's name, for messages (`did not answer FCALL within 30 s`). */
    first: string;
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
        const writer = new RespWriter();
        return {
            url: link.url,
            cluster: false,
            call: (_key, argv) => link.send(argv),
            callMany: ({ commands, first }) => {
                if (!link.sendBatch) return Promise.allSettled(commands.map((text) => link.send(argvOfResp(text))));
                for (const text of commands) writer.append(text);
                return link.sendBatch(writer.take(first));
            },
            sendBatch: link.sendBatch ? (batch) => link.sendBatch!(batch) : undefined,
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
    // node-redis only for a cluster (its routing and slot map): a single server's link needs none of it, and loading
    // it slows every start. `redis` is CommonJS: its `module.exports` is the default export under Node and in
    // the CLI bundle alike (a named export of a dynamic import exists only where Node's lexer finds it).
    const { createCluster, ErrorReply, RootNodesUnavailableError } = (await import('redis')).default;
    /** node-redis's error replies as the link's, so that `isErrorReply` knows them whichever connection answered. */
    const reply = (error: unknown): unknown =>
        error instanceof ErrorReply ? new RedisErrorReply(error.message, { cause: error }) : error;
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
    } as Parameters<typeof CreateCluster>[0]);
    let lastError: unknown;
    cluster.on('error', (error: unknown) => {
        lastError = error;
    });
    // The masters that refused a connection while the client started (node-redis names only "the root nodes").
    const unreachable = new Map<string, string>();
    cluster.on('node-error', (error: unknown, node?: { host?: string; port?: number }) => {
        const address = `${node?.host}:${node?.port}`;
        if (node && !unreachable.has(address)) unreachable.set(address, (error as Error)?.message || String(error));
    });
    const deadline = Date.now() + timeout;
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
        destroyStarting(cluster);
        let reason = error instanceof Error ? error.message : String(error ?? lastError);
        // node-redis's reason is the same whichever seed or master failed, and one master down fails every seed.
        const failed = await downMasters(seeds, unreachable, deadline);
        if (failed) reason = failed;
        else if (error instanceof RootNodesUnavailableError && lastError instanceof Error)
            reason = `every seed node failed: ${lastError.message}`;
        throw new KvmodError(`cannot connect to the Redis Cluster at ${shown}: ${reason}`, {
            code: 'redis.connect',
            cause: error,
        });
    }
    const lost = (error: unknown): unknown => {
        if (isErrorReply(error) || error instanceof RedisConnectionLost) return error;
        return new RedisConnectionLost(
            `lost a node of the cluster (${shown}): ${(error as Error)?.message || String(lastError ?? error)}`,
            { cause: error },
        );
    };
    const down = (error: Error): RedisConnectionLost =>
        new RedisConnectionLost(`the cluster (${shown}) is down: ${error.message}`, { cause: error });
    const call = async (key: string | undefined, argv: readonly string[], readonly = false): Promise<unknown> => {
        try {
            return await withTimeout(cluster.sendCommand(key, readonly, [...argv]), argv[0] ?? 'a command');
        } catch (thrown) {
            const error = reply(thrown);
            if (error instanceof RedisErrorReply) refusedBy(error, shown, argv);
            // A cluster whose node is gone answers CLUSTERDOWN or a socket error: the run cannot go on.
            if (isErrorReply(error) && /^(CLUSTERDOWN|TRYAGAIN)/.test(error.message)) throw down(error);
            throw lost(error);
        }
    };
    // The bulk links of `callMany`, one per master (by address), opened when first used: the node's address with the
    // seed's user, password and TLS. A batch is split by the slot map node-redis keeps (refreshed when a reply says
    // MOVED); each node's part goes out as one RESP buffer on that node's link.
    const links = new Map<string, Promise<RedisLink>>();
    const writers = new Map<string, RespWriter>();
    const userinfo = first.username || first.password ? `${first.username}:${first.password}@` : '';
    const linkOf = (host: string, port: number): Promise<RedisLink> => {
        const address = `${host}:${port}`;
        let link = links.get(address);
        if (!link) {
            const hostname = host.includes(':') ? `[${host}]` : host;
            link = connectRedis(`${first.protocol}//${userinfo}${hostname}:${port}`, { timeoutSeconds: seconds });
            links.set(address, link);
        }
        return link;
    };
    const nodeLost = (error: unknown): unknown => {
        if (isErrorReply(error)) return /^(CLUSTERDOWN|TRYAGAIN)/.test(error.message) ? down(error) : error;
        if (error instanceof RedisConnectionLost && error.code === 'redis.timeout') return error;
        return new RedisConnectionLost(
            `lost a node of the cluster (${shown}): ${(error as Error)?.message || String(error)}`,
            { cause: error, code: (error as RedisConnectionLost).code },
        );
    };
    return {
        url: shown,
        cluster: true,
        call,
        async callMany({ keys, commands, first: name }) {
            type Group = { host: string; port: number; writer: RespWriter; positions: number[] };
            const groups = new Map<string, Group>();
            const results: PromiseSettledResult<unknown>[] = new Array(commands.length);
            const shards = cluster.slots;
            let lastKey: string | undefined;
            let lastGroup: Group | undefined;
            for (let i = 0; i < commands.length; i++) {
                const key = keys[i];
                let group = key === lastKey ? lastGroup : undefined;
                if (!group) {
                    const master = shards[keySlot(key)]?.master;
                    if (!master) {
                        results[i] = {
                            status: 'rejected',
                            reason: new RedisConnectionLost(`the cluster (${shown}) serves no slot of key ${key}`),
                        };
                        continue;
                    }
                    const address = `${master.host}:${master.port}`;
                    group = groups.get(address);
                    if (!group) {
                        let writer = writers.get(address);
                        if (!writer) writers.set(address, (writer = new RespWriter()));
                        group = { host: master.host, port: master.port, writer, positions: [] };
                        groups.set(address, group);
                    }
                    lastKey = key;
                    lastGroup = group;
                }
                group.writer.append(commands[i]);
                group.positions.push(i);
            }
            await Promise.all(
                [...groups.values()].map(async ({ host, port, writer, positions }) => {
                    const batch = writer.take(name);
                    let replies: PromiseSettledResult<unknown>[];
                    try {
                        const link = await linkOf(host, port);
                        replies = await link.sendBatch!(batch);
                    } catch (error) {
                        replies = positions.map(() => ({ status: 'rejected', reason: error }));
                    }
                    replies.forEach((reply, j) => {
                        results[positions[j]] =
                            reply.status === 'fulfilled'
                                ? reply
                                : { status: 'rejected', reason: nodeLost(reply.reason) };
                    });
                }),
            );
            // Slots moving (resharding): node-redis follows the redirection for the command sent again.
            for (let i = 0; i < results.length; i++) {
                const result = results[i];
                if (
                    result.status === 'rejected' &&
                    isErrorReply(result.reason) &&
                    /^(MOVED|ASK) /.test(result.reason.message)
                ) {
                    try {
                        results[i] = { status: 'fulfilled', value: await call(keys[i], argvOfResp(commands[i])) };
                    } catch (error) {
                        results[i] = { status: 'rejected', reason: error };
                    }
                }
            }
            return results;
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
                            throw lost(reply(error));
                        }
                    },
                });
            }
            return nodes;
        },
        async close() {
            for (const link of links.values()) await link.then((opened) => opened.close()).catch(() => undefined);
            try {
                await cluster.close();
            } catch {
                cluster.destroy();
            }
        },
    };
}

type Cluster = ReturnType<typeof CreateCluster>;

/**
 * Destroys a cluster client whose start failed, with the node clients still connecting: node-redis's `destroy` skips a
 * socket not yet open, which then opens, stays open and keeps the process alive (a master down fails the start at
 * once while the other masters' connections are still under way).
 */
function destroyStarting(cluster: Cluster): void {
    const connecting = [...cluster.nodeByAddress.values()].map((node) => node.connectPromise);
    cluster.destroy();
    for (const connected of connecting)
        connected?.then(
            (client) => client.destroy(),
            () => undefined,
        );
}

/**
 * Why a cluster would not start, when a master is down: the masters that refused a connection, and those the
 * cluster marks failed (`CLUSTER NODES` of the first seed that answers before `deadline`), with their slots and the
 * cluster's state. Undefined when no master is known down.
 */
async function downMasters(
    seeds: readonly string[],
    unreachable: ReadonlyMap<string, string>,
    deadline: number,
): Promise<string | undefined> {
    let nodes = '';
    let state: string | undefined;
    for (const seed of seeds) {
        const seconds = (deadline - Date.now()) / 1000;
        if (seconds < 0.1) break;
        const parsed = new URL(seed);
        if (unreachable.has(`${parsed.hostname}:${parsed.port || 6379}`)) continue;
        let link: RedisLink | undefined;
        try {
            link = await connectRedis(seed, { timeoutSeconds: seconds });
            nodes = String(await link.send(['CLUSTER', 'NODES']));
            state = /cluster_state:(\w+)/.exec(String(await link.send(['CLUSTER', 'INFO'])))?.[1];
            break;
        } catch {
            // Another seed may answer.
        } finally {
            await link?.close().catch(() => undefined);
        }
    }
    // `<id> <host:port@cport[,hostname]> <flags> <master> <ping> <pong> <epoch> <link> <slot>…`
    const masters = new Map<string, { slots: string; flags: string[] }>();
    for (const line of nodes.split('\n')) {
        const fields = line.trim().split(' ');
        const flags = fields[2]?.split(',') ?? [];
        if (!flags.includes('master')) continue;
        const slots = fields.slice(8).filter((slot) => !slot.startsWith('['));
        masters.set(fields[1].replace(/[@,].*/, ''), { slots: slots.join(' '), flags });
    }
    const down = new Set(unreachable.keys());
    for (const [address, { flags }] of masters)
        if (flags.includes('fail') || flags.includes('fail?')) down.add(address);
    if (down.size === 0) return undefined;
    const clauses = [...down].map((address) => {
        const master = masters.get(address);
        const why: string[] = [];
        if (unreachable.has(address)) why.push(`does not answer (${unreachable.get(address)})`);
        if (master?.flags.includes('fail')) why.push('the cluster marks it failed');
        else if (master?.flags.includes('fail?')) why.push('the seed node cannot reach it');
        return `${address}${master?.slots ? ` (slots ${master.slots})` : ''} ${why.join(' and ')}`;
    });
    const which = clauses.length === 1 ? `master ${clauses[0]}` : `masters ${clauses.join('; ')}`;
    return `${which}${state ? ` (cluster_state:${state})` : ''}; start it again or fail its slots over to a replica, then run again`;
}

/** CRC16 (XMODEM), the hash of Redis Cluster's key slots. */
const CRC16 = (() => {
    const table = new Uint16Array(256);
    for (let byte = 0; byte < 256; byte++) {
        let crc = byte << 8;
        for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
        table[byte] = crc & 0xffff;
    }
    return table;
})();

/** The cluster slot of a key: CRC16 of its hash tag (the text between the first `{` and the next `}`, when not empty) or of the whole key, mod 16384. */
export function keySlot(key: string): number {
    const open = key.indexOf('{');
    if (open >= 0) {
        const close = key.indexOf('}', open + 1);
        if (close > open + 1) key = key.slice(open + 1, close);
    }
    const bytes = Buffer.from(key, 'utf8');
    let crc = 0;
    for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16[((crc >> 8) ^ byte) & 0xff];
    return crc & 16383;
}
