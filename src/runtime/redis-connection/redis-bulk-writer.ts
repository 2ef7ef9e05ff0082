/**
 * The bulk writer: the one place kvmod writes Redis commands without node-redis. A load's rows go to the server as
 * RESP bytes encoded straight from the rows (redis-resp.ts `RespWriter`), one buffer per batch, on a connection of
 * their own, the way `redis-cli --pipe` writes them, every reply counted and checked. Measured on `npm run bench:load`
 *, node-redis's own pipelining (a `sendCommand` per row) took 3 to 6 times the client CPU and
 * missed the goal of 70% of `redis-cli --pipe`'s throughput; node-redis does not hand out its socket, so this one is
 * opened here. Everything else — the connection a link sends its commands on, its login and the errors it words,
 * timeouts, clusters and their redirections — is node-redis's (redis-link.ts); a bulk connection is opened only
 * behind a link already logged in (`RedisLink.sendBatch`), with the login node-redis made.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import { respBatch, RespReplyReader, type RespBatch } from './redis-resp.js';
import type { RedisTarget } from './redis-url.js';

/** The bulk connection: batches of commands written as one RESP buffer each, replies counted in order. */
export interface BulkPipe {
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
 * Opens the bulk connection to the server the link's node-redis client is logged in to: the same address, TLS, user,
 * password and database (the URL as `redisTarget` reads it), replies read by `RespReplyReader` (redis-resp.ts).
 * `replied` is called on every chunk of replies (the link's watchdog); an error reply is made with `ErrorReply`. A
 * failure to open it rejects with the socket's error, the refused login's error reply, or `BulkTimeout`.
 */
export async function openBulkPipe(
    target: RedisTarget,
    timeout: number,
    replied: () => void,
    ErrorReply: new (message: string) => Error,
): Promise<BulkPipe> {
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
            socket.destroy(new Error('a reply that is not RESP'));
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
        (message) => settle({ status: 'rejected', reason: new ErrorReply(message) }),
        (message) => new ErrorReply(message),
    );
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('Socket closed unexpectedly')));
    const pipe: BulkPipe = {
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
    // The login node-redis made on the link's own connection, repeated (the link has checked it, and words its
    // failures): AUTH when the URL names a user or a password (a user without one is an ACL user with `nopass`),
    // SELECT for a database other than 0; then the connection's name for CLIENT LIST, whose reply (or an error reply
    // from a server before 7.2) only shows the server answers.
    const login: string[][] = [];
    if (target.username || target.password)
        login.push(target.username ? ['AUTH', target.username, target.password] : ['AUTH', target.password]);
    if (target.database) login.push(['SELECT', String(target.database)]);
    const handshake = [...login, ['CLIENT', 'SETINFO', 'LIB-NAME', 'kvmod-bulk']];
    return new Promise<BulkPipe>((resolve, reject) => {
        const timer = setTimeout(() => {
            socket.destroy();
            reject(new BulkTimeout());
        }, timeout);
        const opened = tls ? 'secureConnect' : 'connect';
        socket.once('error', (error) => {
            clearTimeout(timer);
            reject(error);
        });
        socket.once(opened, () => {
            void pipe.send(respBatch(handshake)).then((replies) => {
                clearTimeout(timer);
                // A login refused, or the connection lost during the handshake, fails the connection.
                const refused = replies.find(
                    (reply, i): reply is PromiseRejectedResult =>
                        reply.status === 'rejected' && (i < login.length || !(reply.reason instanceof ErrorReply)),
                );
                if (refused) {
                    socket.destroy();
                    reject(refused.reason);
                } else resolve(pipe);
            });
        });
    });
}

/** The bulk connection did not open, or its login was not answered, in time. */
export class BulkTimeout extends Error {
    constructor() {
        super('the bulk connection did not open in time');
    }
}
