/**
 * The runtime's connection to a Redis server, through node-redis: connect (TLS, AUTH, SELECT; RESP2, no silent
 * reconnects: a lost server must stop a load, not queue commands forever), a deadline for the connection and for
 * every reply, tell connection failures from error replies, and detect which RediSearch dialect the server speaks.
 * A load's rows go out on the bulk writer (redis-bulk-writer.ts) behind the same link.
 */
import type { RedisDialect } from '../../generation/redis/redis-view-model.js';
import type { EngineFailure } from '../engine.js';
import { KvmodError } from '../../pipeline/errors.js';
import { BulkTimeout, openBulkPipe, type BulkPipe } from './redis-bulk-writer.js';
import type { RespBatch } from './redis-resp.js';
import { DEFAULT_REDIS_TIMEOUT_SECONDS, redactRedisUrl, redisTarget, type RedisTarget } from './redis-url.js';

/** The failure each error code of a Redis link means (the engines built on a link add their own codes). */
export const REDIS_LINK_FAILURES: Readonly<Record<string, EngineFailure>> = {
    'redis.url': 'url',
    'redis.connect': 'connect',
    'redis.auth': 'auth',
    'redis.timeout': 'timeout',
    'redis.connection-lost': 'connection-lost',
    'redis.refused': 'refused',
};

/** The little the runtime needs of a client: send an argv, close. */
export interface RedisLink {
    /** The URL with its password hidden (`redactRedisUrl`): the only form messages may print. */
    url: string;
    send(argv: readonly string[]): Promise<unknown>;
    /**
     * Sends many commands at once, pipelined, and settles each: its reply, an error reply, or a
     * RedisConnectionLost. Optional (a link may only `send`); what the loader uses when present, because
     * per command it costs far less than `send`: the batch goes out as one RESP buffer on the link's bulk connection
     * (redis-bulk-writer.ts, opened by `openBulk` or the first batch, with the login of the link's own), the way `redis-cli --pipe`
     * writes, and every reply is counted and checked. Batches keep their order among themselves, not with `send`s
     * not yet answered (await those first); once the bulk connection is open, a batch is written before `sendBatch`
     * returns, so the server starts on it while the caller makes the next.
     */
    sendBatch?(batch: RespBatch): Promise<PromiseSettledResult<unknown>[]>;
    /**
     * Opens the bulk connection of `sendBatch` now (the first batch opens it otherwise, and is written a turn of the
     * event loop later): what a load does before its first batch. Throws a RedisConnectionLost.
     */
    openBulk?(): Promise<void>;
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

/**
 * An error reply of the server (`-ERR …`, `-WRONGPASS …`): the command was refused; the connection is fine. Its message
 * is the server's; a link's `send` adds which server refused which command, for a refusal no caller words itself
 * (the command line reports it as `kvmod: <server> refused <command>: <reply>`, not as an internal error).
 */
export class RedisErrorReply extends Error {
    /** The server as messages print it (its password hidden). */
    server?: string;
    /** The refused command as messages may print it (`describeCommand`: its name and first key, no values). */
    command?: string;

    constructor(message: string, options?: { cause?: unknown }) {
        super(message, options);
        this.name = 'RedisErrorReply';
    }
}

/**
 * A command as a refusal names it (`RedisErrorReply.command`): its name and its first key — for EVAL/EVALSHA and
 * FCALL/FCALL_RO the function (not a script's text) and the first key — never the values written. An argument with a
 * space, a quote or a control character is quoted as JSON (one line); at most 200 characters, cut between code points.
 */
export function describeCommand(argv: readonly string[]): string {
    const name = argv[0] ?? '';
    const upper = name.toUpperCase();
    const scripted = upper === 'EVAL' || upper === 'EVALSHA' || upper === 'FCALL' || upper === 'FCALL_RO';
    const shown = scripted
        ? [upper === 'EVAL' ? '<script>' : (argv[1] ?? ''), ...(Number(argv[2]) > 0 ? [argv[3] ?? ''] : [])]
        : argv.slice(1, 2);
    const quoted = shown.map((arg) => (/[\s"\\\x00-\x1f\x7f]/.test(arg) ? JSON.stringify(arg) : arg));
    const text = [name, ...quoted].join(' ');
    const points = Array.from(text);
    return points.length > 200 ? `${points.slice(0, 200).join('')}…` : text;
}

/** `error` with the server (as messages print it) and the refused command recorded, unless a link recorded them first. */
export function refusedBy(error: RedisErrorReply, server: string, argv: readonly string[]): RedisErrorReply {
    error.server ??= server;
    error.command ??= describeCommand(argv);
    return error;
}

/** True for an error reply of the server (the command was refused; the connection is fine). */
export function isErrorReply(error: unknown): error is Error {
    return error instanceof RedisErrorReply;
}

/** The part of node-redis a link uses (loaded on the first connection: the command line's start does without it). */
type NodeRedis = typeof import('redis');
type NodeRedisClient = ReturnType<NodeRedis['createClient']>;

/**
 * Opens a connection; a server that cannot be reached, is silent or refuses the login is a KvmodError. The
 * connection is node-redis's (`createClient`: TLS, AUTH, SELECT, RESP2, no offline queue, no reconnection — a lost
 * server must stop a load, not queue commands forever); the link adds the deadline of the connection and of every
 * reply, and the errors a user can act on.
 */
export async function connectRedis(url: string, options: RedisLinkOptions = {}): Promise<RedisLink> {
    const shown = redactRedisUrl(url);
    const seconds = options.timeoutSeconds ?? DEFAULT_REDIS_TIMEOUT_SECONDS;
    const timeout = Math.max(1, Math.round(seconds * 1000));
    let target: RedisTarget;
    try {
        target = redisTarget(url);
    } catch {
        throw new KvmodError(
            `not a Redis URL: ${shown} (expected redis://host:port or rediss://host:port, optionally user:password@ before the host and /db after it)`,
            { code: 'redis.url' },
        );
    }
    // `redis` is CommonJS: its `module.exports` is the default export under Node and in the CLI bundle alike.
    const redis = (await import('redis')).default as unknown as NodeRedis;
    let opened: OpenClient;
    try {
        opened = await openClient(redis, target, timeout);
    } catch (error) {
        throw connectFailure(shown, fromNodeRedis(redis, error), seconds);
    }
    const { client } = opened;
    let closed = false;
    /** The bulk connection (`sendBatch`), opened by `openBulk` or the first batch. */
    let bulk: Promise<BulkPipe> | undefined;
    let bulkPipe: BulkPipe | undefined;
    // The reply timeout: while replies are awaited, the server must answer one within the limit (a long pipelined
    // batch that keeps answering never times out). A silent server gets the connection destroyed: every waiting
    // command then fails with the same error, naming the oldest command left unanswered.
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
        destroyClient(client);
        void bulk?.then(
            (pipe) => pipe.destroy(),
            () => undefined,
        );
    };
    const lost = (error: unknown): RedisConnectionLost => {
        if (stalled)
            return new RedisConnectionLost(
                `${shown} did not answer ${stalled[0] ?? 'a command'} within ${formatSeconds(seconds)} (busy, paused, or not Redis? --timeout sets the limit)`,
                { cause: error, code: 'redis.timeout' },
            );
        // The socket's own failure says more than the client's "closed" that follows it.
        const cause = opened.failure ?? error;
        return new RedisConnectionLost(
            `lost the connection to ${shown}: ${(cause as Error | undefined)?.message || 'the connection was closed'}`,
            { cause },
        );
    };
    /** A command's reply, or its failure as the link's errors; every reply (or error reply) feeds the watchdog. */
    const settled = (reply: Promise<unknown>, argv: readonly string[]): Promise<unknown> =>
        reply.then(
            (value) => {
                lastReply = Date.now();
                return fromNodeRedis(redis, value);
            },
            (error: unknown) => {
                lastReply = Date.now();
                const failure = fromNodeRedis(redis, error);
                if (failure instanceof RedisErrorReply)
                    throw authFailure(shown, failure) ?? refusedBy(failure, shown, argv);
                throw lost(failure);
            },
        );
    /** Runs `work` with the watchdog on, `first` waiting as its first command (the watchdog names it). */
    const watched = async <T>(first: readonly string[], work: () => Promise<T>): Promise<T> => {
        if (waiting.size === 0) lastReply = Date.now();
        waiting.add(first);
        watchdog ??= setTimeout(watch, timeout);
        try {
            return await work();
        } finally {
            waiting.delete(first);
            if (waiting.size === 0 && watchdog) {
                clearTimeout(watchdog);
                watchdog = undefined;
            }
        }
    };
    /** Opens the bulk connection (once); throws its failure as a RedisConnectionLost. */
    const openBulk = async (): Promise<void> => {
        bulk ??= openBulkPipe(target, timeout, () => (lastReply = Date.now()), RedisErrorReply);
        try {
            bulkPipe = await bulk;
        } catch (error) {
            throw bulkFailure(shown, error, seconds);
        }
    };
    const sendNow = (argv: readonly string[]): Promise<unknown> =>
        stalled || closed ? Promise.reject(lost(undefined)) : settled(client.sendCommand([...argv]), argv);
    return {
        url: shown,
        send: (argv) => watched(argv, () => sendNow(argv)),
        // Not watched: the bulk connection's opening has its own deadline (`BulkTimeout`).
        openBulk,
        sendBatch(batch) {
            // Like `send`, every command settles on its own, even on a connection already given up.
            const failed = (reason: unknown): PromiseSettledResult<unknown>[] =>
                Array.from({ length: batch.count }, () => ({ status: 'rejected', reason }));
            if (stalled || closed) return Promise.resolve(failed(lost(undefined)));
            if (batch.count === 0) return Promise.resolve([]);
            const answers = (replies: PromiseSettledResult<unknown>[]): PromiseSettledResult<unknown>[] =>
                replies.map((reply) =>
                    reply.status === 'fulfilled'
                        ? reply
                        : {
                              status: 'rejected',
                              reason: isErrorReply(reply.reason)
                                  ? (authFailure(shown, reply.reason) ?? reply.reason)
                                  : lost(reply.reason),
                          },
                );
            return watched([batch.first], async () => {
                // Once the bulk connection is open, the batch is written before this call returns.
                if (!bulkPipe) {
                    try {
                        await openBulk();
                    } catch (error) {
                        return failed(error);
                    }
                }
                if (stalled || closed || !bulkPipe) return failed(lost(undefined));
                return answers(await bulkPipe.send(batch));
            });
        },
        async close() {
            if (watchdog) clearTimeout(watchdog);
            if (closed) return;
            closed = true;
            void bulk?.then(
                (pipe) => pipe.close(),
                () => undefined,
            );
            try {
                await client.close();
            } catch {
                destroyClient(client);
            }
        },
    };
}

/** A node-redis client, connected and logged in, and the first failure of its socket since (for messages). */
interface OpenClient {
    client: NodeRedisClient;
    failure?: Error;
}

/**
 * Connects a node-redis client as the URL says: the server, TLS, user, password and database. Rejects with the
 * socket's error, the refused login's error reply, `ConnectTimeout`, `HandshakeTimeout` or `NotResp`
 * (`connectFailure` words them).
 *
 * Giving up while it connects goes through the socket's AbortSignal as well as `destroy()`: node-redis's `destroy()`
 * does not reach a socket still opening (TCP or TLS), which then stays open until its connect timeout and keeps the
 * process alive.
 */
function openClient(redis: NodeRedis, target: RedisTarget, timeout: number): Promise<OpenClient> {
    const abort = new AbortController();
    const client = redis.createClient({
        RESP: 2,
        username: target.username || undefined,
        password: target.password || undefined,
        database: target.database,
        disableOfflineQueue: true,
        clientInfoTag: 'kvmod',
        socket: {
            host: target.host,
            port: target.port,
            ...(target.tls
                ? { tls: true as const, servername: /^[\d.]+$|:/.test(target.host) ? undefined : target.host }
                : {}),
            // A backstop only: the link's own deadline (below) gives up first, through `abort` as well.
            connectTimeout: timeout * 4,
            reconnectStrategy: false,
            signal: abort.signal,
        },
    } as Parameters<NodeRedis['createClient']>[0]) as NodeRedisClient;
    const opened: OpenClient = { client };
    let ready = false;
    let connected = false;
    return new Promise<OpenClient>((resolve, reject) => {
        let settled = false;
        const giveUp = (error: unknown): void => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            abort.abort();
            destroyClient(client);
            reject(error);
        };
        const timer = setTimeout(() => giveUp(connected ? new HandshakeTimeout() : new ConnectTimeout()), timeout);
        client.on('connect', () => {
            connected = true;
        });
        // node-redis emits the socket's errors (and a reply it cannot read) here; without a listener they would throw.
        client.on('error', (error: Error) => {
            if (!ready) {
                // The first failure is the reason: a port that answers another protocol fails at once, not at the timeout.
                giveUp(error instanceof Error && /^Unknown RESP type/.test(error.message) ? new NotResp() : error);
                return;
            }
            opened.failure ??= error;
            // A reply that cannot be read leaves the replies out of step with their commands: nothing after it could be trusted.
            destroyClient(client);
        });
        client.connect().then(
            () => {
                if (settled) return;
                settled = true;
                ready = true;
                clearTimeout(timer);
                resolve(opened);
            },
            (error: unknown) => giveUp(error),
        );
    });
}

/** Closes a client at once (its waiting commands fail); a client already closed is left as it is. */
function destroyClient(client: NodeRedisClient): void {
    try {
        client.destroy();
    } catch {
        // Closed already.
    }
}

/**
 * A reply or failure of node-redis as the link's: its error replies as `RedisErrorReply` (inside arrays too), so that
 * `isErrorReply` knows them whichever client answered.
 */
function fromNodeRedis(redis: NodeRedis, value: unknown): unknown {
    if (value instanceof redis.ErrorReply) return new RedisErrorReply((value as Error).message, { cause: value });
    if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
            const item: unknown = value[i];
            if (Array.isArray(item) || item instanceof redis.ErrorReply) value[i] = fromNodeRedis(redis, item);
        }
    }
    return value;
}

/** The server accepted the connection and did not answer the handshake in time. */
class HandshakeTimeout extends Error {}

/** The connection (TCP, or TLS) did not open in time. */
class ConnectTimeout extends Error {}

/** The server answered with bytes that are no RESP reply (not a Redis server: an HTTP port, say). */
class NotResp extends Error {
    constructor() {
        super('it answered, but not in the Redis protocol (is it a Redis server?)');
    }
}

/** The bulk connection's failure to open, as a lost connection (the link's own connection is open and logged in). */
function bulkFailure(shown: string, error: unknown, seconds: number): RedisConnectionLost {
    const reason =
        error instanceof BulkTimeout
            ? `its bulk connection did not open within ${formatSeconds(seconds)}`
            : isErrorReply(error)
              ? `its bulk connection's login was refused: ${error.message}`
              : `its bulk connection failed: ${(error as Error)?.message || String(error)}`;
    return new RedisConnectionLost(`lost the connection to ${shown}: ${reason}`, {
        cause: error,
        code: error instanceof BulkTimeout ? 'redis.timeout' : 'redis.connection-lost',
    });
}

/** The one-line error of a connection that could not be opened. */
function connectFailure(shown: string, error: unknown, seconds: number): KvmodError {
    const tls = shown.startsWith('rediss:');
    const auth = isErrorReply(error) ? authFailure(shown, error) : undefined;
    if (auth) return auth;
    let reason: string;
    let code = 'redis.connect';
    const connectTimeout = error instanceof ConnectTimeout || (error as Error)?.name === 'ConnectionTimeoutError';
    if (error instanceof HandshakeTimeout || connectTimeout) {
        code = 'redis.timeout';
        reason =
            error instanceof HandshakeTimeout
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

/** What `detectDialect` found out about the server's RediSearch module. */
export interface SearchModule {
    dialect: RedisDialect;
    /** The module's version (e.g. 10200 for 1.2.0); 0 when the server would not say. */
    version: number;
    /**
     * Whether a row write may block its connection until the row is indexed: RediSearch 1.x's FT.ADD does unless the
     * module runs with `SAFEMODE` (REDIS.md), and the bulk pipe then writes only a little ahead of the replies (see
     * `PIPE_WINDOW`). Known only from MODULE LIST's `args` (Redis 7 and later); anything less is taken as blocking.
     * 2.x's HSET never blocks.
     */
    rowWritesBlock: boolean;
    /** The module's load arguments as MODULE LIST gives them (Redis 7 and later); undefined when it does not say. */
    args?: string[];
}

/**
 * What to do on a server without the module: load it, or use the target made for plain Redis (whose name the
 * user would otherwise have to know already).
 */
const WITHOUT_SEARCH =
    'load redisearch.so or use Redis Stack / Redis 8, or use the design for Redis without a module: --target redis-core (Redis 7 or later)';

/** The RediSearch module the server runs: its dialect, version and whether its row writes may block. */
export async function detectDialect(link: RedisLink): Promise<SearchModule> {
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
            const dialect = version > 0 && version < 20000 ? 'redisearch1' : 'redisearch2';
            const args = Array.isArray(info.args) ? info.args.map((arg) => String(arg)) : undefined;
            const safe = args?.some((arg) => arg.toUpperCase() === 'SAFEMODE') ?? false;
            return { dialect, version, rowWritesBlock: dialect === 'redisearch1' && !safe, args };
        }
    }
    throw new KvmodError(`${link.url} has no RediSearch module (MODULE LIST shows none); ${WITHOUT_SEARCH}`, {
        code: 'redis.no-search',
    });
}

/** Without MODULE LIST: FT._LIST exists from RediSearch 2.0 on; FT.INFO exists in every version. */
async function probeDialect(link: RedisLink): Promise<SearchModule> {
    try {
        await link.send(['FT._LIST']);
        return { dialect: 'redisearch2', version: 0, rowWritesBlock: false };
    } catch (error) {
        if (!isErrorReply(error)) throw error;
    }
    try {
        await link.send(['FT.INFO', '__kvmod_probe__']);
    } catch (error) {
        if (!isErrorReply(error)) throw error;
        if (/unknown command/i.test(error.message)) {
            throw new KvmodError(
                `${link.url} has no RediSearch module (FT.INFO is an unknown command); ${WITHOUT_SEARCH}`,
                {
                    code: 'redis.no-search',
                },
            );
        }
    }
    return { dialect: 'redisearch1', version: 0, rowWritesBlock: true };
}
