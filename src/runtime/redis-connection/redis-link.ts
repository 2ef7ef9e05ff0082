/**
 * The runtime's connection to a Redis server: connect (RESP2, no silent reconnects: a lost server must
 * stop a load, not queue commands forever), tell connection failures from error replies, and detect which
 * RediSearch dialect the server speaks.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import type { RedisDialect } from '../../generation/redis/redis-view-model.js';
import type { EngineFailure } from '../engine.js';
import { KvmodError } from '../../pipeline/errors.js';
import { respBatch, RespReplyReader, type RespBatch } from './redis-resp.js';
import { DEFAULT_REDIS_TIMEOUT_SECONDS, redactRedisUrl } from './redis-url.js';

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
     * per command it costs far less than `send`: the batch goes out as one RESP buffer (`openPipe`), the way
     * `redis-cli --pipe` writes, and every reply is counted and checked. Batches and single commands share the
     * link's one connection, in the order they are sent; a batch is written before `sendBatch` returns, so the server
     * starts on it while the caller makes the next.
     */
    sendBatch?(batch: RespBatch): Promise<PromiseSettledResult<unknown>[]>;
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

/** What a Redis URL says: where to connect and how to log in (node-redis's reading of a URL). */
interface RedisTarget {
    tls: boolean;
    host: string;
    port: number;
    username: string;
    password: string;
    /** The database to SELECT, when the URL names one (`/2`). */
    database?: number;
}

/** Reads a `redis://` or `rediss://` URL; throws on anything else (the caller words it). */
function redisTarget(url: string): RedisTarget {
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

/**
 * Opens a connection; a server that cannot be reached, is silent or refuses the login is a KvmodError. One
 * connection carries everything: single commands (`send`) and pipelined batches (`sendBatch`), in order, written
 * as RESP and read by `RespReplyReader` (redis-resp.ts) — no client library: node-redis is slow to set up at every
 * load's start (its index loads cluster, sentinel and every command definition) for the few commands a run sends.
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
    let closed = false;
    // The reply timeout: while replies are awaited, the server must answer one within the limit (a long pipelined
    // batch that keeps answering never times out). A silent server gets the connection destroyed: every waiting
    // command then fails with the same error, naming the oldest command left unanswered.
    const waiting = new Set<readonly string[]>();
    let lastReply = 0;
    let watchdog: NodeJS.Timeout | undefined;
    let stalled: readonly string[] | undefined;
    const replied = (): void => {
        lastReply = Date.now();
    };
    let connection: Pipe;
    try {
        connection = await openPipe(target, timeout, replied);
    } catch (error) {
        throw connectFailure(shown, error, seconds);
    }
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
        connection.destroy();
    };
    const lost = (error: unknown): RedisConnectionLost => {
        if (stalled)
            return new RedisConnectionLost(
                `${shown} did not answer ${stalled[0] ?? 'a command'} within ${formatSeconds(seconds)} (busy, paused, or not Redis? --timeout sets the limit)`,
                { cause: error, code: 'redis.timeout' },
            );
        return new RedisConnectionLost(
            `lost the connection to ${shown}: ${(error as Error | undefined)?.message || 'the connection was closed'}`,
            { cause: error },
        );
    };
    /** Sends a batch with the watchdog on, the batch waiting as its first command (the watchdog names it). */
    const sendWatched = async (batch: RespBatch, first: readonly string[]) => {
        if (waiting.size === 0) lastReply = Date.now();
        waiting.add(first);
        watchdog ??= setTimeout(watch, timeout);
        try {
            return await connection.send(batch);
        } finally {
            waiting.delete(first);
            lastReply = Date.now();
            if (waiting.size === 0 && watchdog) {
                clearTimeout(watchdog);
                watchdog = undefined;
            }
        }
    };
    return {
        url: shown,
        async send(argv) {
            if (stalled || closed) throw lost(undefined);
            const [reply] = await sendWatched(respBatch([argv]), argv);
            if (reply.status === 'fulfilled') return reply.value;
            if (reply.reason instanceof RedisErrorReply)
                throw authFailure(shown, reply.reason) ?? refusedBy(reply.reason, shown, argv);
            throw lost(reply.reason);
        },
        async sendBatch(batch) {
            // Like `send`, every command settles on its own, even on a connection already given up.
            if (stalled || closed)
                return Array.from({ length: batch.count }, () => ({ status: 'rejected', reason: lost(undefined) }));
            if (batch.count === 0) return [];
            const replies = await sendWatched(batch, [batch.first]);
            return replies.map((reply) =>
                reply.status === 'fulfilled'
                    ? reply
                    : {
                          status: 'rejected',
                          reason: isErrorReply(reply.reason)
                              ? (authFailure(shown, reply.reason) ?? reply.reason)
                              : lost(reply.reason),
                      },
            );
        },
        async close() {
            if (watchdog) clearTimeout(watchdog);
            if (closed) return;
            closed = true;
            connection.close();
        },
    };
}

/** A link's connection: batches of commands written as one RESP buffer each, replies counted in order. */
interface Pipe {
    /** Writes the commands at once; settles each with its reply, its error reply, or the connection's failure. */
    send(batch: RespBatch): Promise<PromiseSettledResult<unknown>[]>;
    /** Ends the connection after what was sent is answered. */
    close(): void;
    /** Ends the connection now: every command waiting for a reply fails. */
    destroy(): void;
}

/** One batch waiting for its replies. */
interface PipeBatch {
    replies: PromiseSettledResult<unknown>[];
    count: number;
    done: (replies: PromiseSettledResult<unknown>[]) => void;
    bytes: Uint8Array;
    ends?: Uint32Array;
    /** Bytes written ahead of the replies at most (`PIPE_WINDOW` for commands that may block). */
    window: number;
    blocking: boolean;
    /** Commands written to the socket so far. */
    written: number;
}

/**
 * At most this many bytes of commands that may block (`RespBatch.blocking`) are written and not yet answered; a batch
 * goes out in slices as replies come back. The server keeps what it has read and not yet run in its query buffer,
 * and a command that blocks (1.2's FT.ADD without SAFEMODE) makes it move the rest of that buffer down after every
 * command: a deep pipe costs it time in proportion to its depth for every command. A window keeps the buffer small
 * while the server never waits.
 */
const PIPE_WINDOW = 1 << 18;
/**
 * The window of other commands (HSET, FCALL): the server reads them 16 KB at a time and runs each at once, so the
 * depth costs it nothing, and a small window left it idle while the client encoded the next batch (a 2000-row batch
 * of HSETs is about 0.5 MB, of 1.2's FT.ADDs about 0.9 MB). The loader's four batches in flight fit in it.
 */
const PIPE_WINDOW_NONBLOCKING = 1 << 22;
/** The settled reply `OK` (every FT.ADD's), one object for all. */
const FULFILLED_OK: PromiseFulfilledResult<unknown> = Object.freeze({ status: 'fulfilled', value: 'OK' });

/**
 * The size of a slice of commands that may block written at once (more than one command when they are small). Other
 * commands go out as far as the window allows in one write: a slice per 16 KB would be dozens of writes per batch,
 * each a system call and a write request, for the same bytes on the wire.
 */
const PIPE_SLICE = 1 << 14;

/**
 * Opens a link's connection: the server, TLS, user, password and database the URL gives, replies read by
 * `RespReplyReader` (redis-resp.ts). `replied` is called on every chunk of replies (the link's watchdog). A failure to
 * open it rejects with the socket's error, the refused login's error reply, `ConnectTimeout` or `HandshakeTimeout`
 * (`connectFailure` words them).
 */
async function openPipe(target: RedisTarget, timeout: number, replied: () => void): Promise<Pipe> {
    const { tls, host, port } = target;
    // node:tls (and its secure contexts) only for rediss://.
    const connectTls = tls ? (await import('node:tls')).connect : undefined;
    // Replies are read in gulps: while a batch that may block waits, the socket rests a millisecond after each read,
    // so that the replies of a blocking command (1.2's FT.ADD answers each row on its own) arrive many to a read instead of
    // one read, one event and one chunk each. Plain TCP reads into one reused buffer (the reply reader copies
    // only a reply split across reads); TLS takes the stream's chunks.
    let resting = false;
    const rest = (): void => {
        if (resting || waiting.length === 0 || !waiting[0].blocking) return;
        resting = true;
        socket.pause();
        setTimeout(() => {
            resting = false;
            socket.resume();
        }, 1);
    };
    const received = (chunk: Buffer): void => {
        replied();
        try {
            reader.write(chunk);
        } catch {
            socket.destroy(new NotResp());
            return;
        }
        pump();
        rest();
    };
    const readBuffer = Buffer.allocUnsafe(1 << 16);
    const socket: Socket = connectTls
        ? connectTls({ host, port, servername: /^[\d.]+$|:/.test(host) ? undefined : host })
        : connectTcp({
              host,
              port,
              onread: {
                  buffer: readBuffer,
                  callback: (bytes, buffer) => {
                      received(buffer.subarray(0, bytes) as Buffer);
                      return true;
                  },
              },
          });
    if (tls) socket.on('data', received);
    socket.setNoDelay(true);
    const waiting: PipeBatch[] = [];
    /** Bytes written whose replies have not all come back. */
    let unanswered = 0;
    /** Writes what the window allows, in slices of whole commands. */
    const pump = (): void => {
        if (failure !== undefined) return;
        for (const batch of waiting) {
            const { ends, bytes, window } = batch;
            while (batch.written < batch.count) {
                if (unanswered >= window) return;
                if (!ends) {
                    socket.write(bytes);
                    unanswered += bytes.length;
                    batch.written = batch.count;
                    break;
                }
                const from = batch.written === 0 ? 0 : ends[batch.written - 1];
                const most = from + (batch.blocking ? Math.min(PIPE_SLICE, window - unanswered) : window - unanswered);
                let to = batch.written + 1;
                while (to < batch.count && ends[to] <= most) to++;
                socket.write(bytes.subarray(from, ends[to - 1]));
                unanswered += ends[to - 1] - from;
                batch.written = to;
            }
        }
    };
    let failure: unknown;
    const fail = (error: unknown): void => {
        failure ??= error;
        for (const batch of waiting.splice(0)) {
            while (batch.replies.length < batch.count) batch.replies.push({ status: 'rejected', reason: failure });
            batch.done(batch.replies);
        }
    };
    const settle = (reply: PromiseSettledResult<unknown>): void => {
        const batch = waiting[0];
        if (!batch || batch.replies.length >= batch.written) {
            // Replies no longer match their commands: nothing after this could be trusted.
            socket.destroy();
            return fail(new Error('a reply to no command'));
        }
        const position = batch.replies.length;
        unanswered -= batch.ends
            ? batch.ends[position] - (position === 0 ? 0 : batch.ends[position - 1])
            : position === batch.count - 1
              ? batch.bytes.length
              : 0;
        batch.replies.push(reply);
        if (batch.replies.length === batch.count) {
            waiting.shift();
            batch.done(batch.replies);
        }
    };
    const reader = new RespReplyReader(
        (value) => settle(value === 'OK' ? FULFILLED_OK : { status: 'fulfilled', value }),
        (message) => settle({ status: 'rejected', reason: new RedisErrorReply(message) }),
        (message) => new RedisErrorReply(message),
    );
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('Socket closed unexpectedly')));
    const pipe: Pipe = {
        send(batch) {
            if (batch.count === 0) return Promise.resolve([]);
            if (failure !== undefined || socket.destroyed)
                return Promise.resolve(
                    Array.from({ length: batch.count }, () => ({ status: 'rejected', reason: failure })),
                );
            return new Promise((done) => {
                waiting.push({
                    replies: [],
                    count: batch.count,
                    done,
                    bytes: batch.bytes,
                    ends: batch.ends,
                    window: batch.blocking ? PIPE_WINDOW : PIPE_WINDOW_NONBLOCKING,
                    blocking: batch.blocking ?? false,
                    written: 0,
                });
                pump();
            });
        },
        close: () => socket.end(),
        destroy: () => socket.destroy(),
    };
    // The login the URL gives, then the client's name for CLIENT LIST (as node-redis names itself): its reply, or an
    // error reply from a server that does not know CLIENT SETINFO (before 7.2) or wants a password first (the first
    // command then says so), only shows the server answers — one that accepts and never answers fails here.
    // As node-redis logged in: AUTH when the URL names a user or a password (a user without one is an ACL user with
    // `nopass`), SELECT for a database other than 0 (a user may be denied SELECT).
    const login: string[][] = [];
    if (target.username || target.password)
        login.push(target.username ? ['AUTH', target.username, target.password] : ['AUTH', target.password]);
    if (target.database) login.push(['SELECT', String(target.database)]);
    const handshake = [...login, ['CLIENT', 'SETINFO', 'LIB-NAME', 'kvmod']];
    return new Promise<Pipe>((resolve, reject) => {
        let open = false;
        const timer = setTimeout(() => {
            socket.destroy();
            reject(open ? new HandshakeTimeout() : new ConnectTimeout());
        }, timeout);
        const opened = tls ? 'secureConnect' : 'connect';
        socket.once('error', (error) => {
            clearTimeout(timer);
            reject(error);
        });
        socket.once(opened, () => {
            open = true;
            void pipe.send(respBatch(handshake)).then((replies) => {
                clearTimeout(timer);
                // A login refused, or the connection lost during the handshake, fails the connection.
                const refused = replies.find(
                    (reply, i): reply is PromiseRejectedResult =>
                        reply.status === 'rejected' && (i < login.length || !isErrorReply(reply.reason)),
                );
                if (refused) {
                    socket.destroy();
                    reject(refused.reason);
                } else resolve(pipe);
            });
        });
    });
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

/** The one-line error of a connection that could not be opened. */
function connectFailure(shown: string, error: unknown, seconds: number): KvmodError {
    const tls = shown.startsWith('rediss:');
    const auth = isErrorReply(error) ? authFailure(shown, error) : undefined;
    if (auth) return auth;
    let reason: string;
    let code = 'redis.connect';
    if (error instanceof HandshakeTimeout || error instanceof ConnectTimeout) {
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
