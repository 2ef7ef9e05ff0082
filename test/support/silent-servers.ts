/**
 * Listeners that are not a working Redis, for timeout tests: one that accepts connections and never answers
 * (a paused server, a blackholing proxy, a port that is not Redis), and one that answers node-redis's
 * connection handshake (`CLIENT SETINFO`) and then falls silent (a server that hangs mid-session), and one that
 * answers in another protocol (an HTTP port).
 */
import { connect as connectTcp, createServer, type Server, type Socket } from 'node:net';

/** A listening test server on a loopback port; `close()` ends its connections and stops it. */
export interface SilentServer {
    port: number;
    close(): Promise<void>;
}

/** Accepts every connection, reads everything, answers nothing. */
export function startSilentServer(): Promise<SilentServer> {
    return listen(() => undefined);
}

/** Answers `+OK` to each `CLIENT …` command of the handshake, then nothing. */
export function startHandshakeOnlyServer(): Promise<SilentServer> {
    return listen((socket, chunk) => {
        const handshakes = chunk.toString('latin1').match(/\r\nCLIENT\r\n/gi)?.length ?? 0;
        for (let i = 0; i < handshakes; i++) socket.write('+OK\r\n');
    });
}

/** Answers whatever it reads with an HTTP error, as a web server on the port would. */
export function startHttpServer(): Promise<SilentServer> {
    return listen((socket) => {
        socket.write('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    });
}

function listen(onData: (socket: Socket, chunk: Buffer) => void): Promise<SilentServer> {
    return listenConnections((socket) => {
        socket.on('data', (chunk: Buffer) => onData(socket, chunk));
        socket.on('error', () => undefined);
    });
}

/** A proxy in front of a real server that holds back the replies of the connection writing rows (see below). */
export interface ReplyHoldingProxy extends SilentServer {
    /**
     * Resolves, once the connection that sends `command` has sent nothing for `quietMs` while its replies were held,
     * to how many `command`s it had sent; the held replies then go through and the proxy forwards as before.
     */
    sentBeforeStall(quietMs?: number): Promise<number>;
}

/**
 * Forwards every connection to `127.0.0.1:targetPort`; from the first `command` (e.g. FT.ADD) a connection sends,
 * its replies are held until `sentBeforeStall` has seen it stop writing: how far ahead of its replies a loader
 * writes, measured on a real server.
 */
export function startReplyHoldingProxy(targetPort: number, command: string): Promise<ReplyHoldingProxy> {
    const marker = Buffer.from(`\r\n$${command.length}\r\n${command}\r\n`, 'latin1');
    let sent = 0;
    let lastWrite = 0;
    let holding = true;
    const held: { socket: Socket; chunk: Buffer }[] = [];
    const upstreams = new Set<Socket>();
    const started = listenConnections((client) => {
        const upstream = connectTcp(targetPort, '127.0.0.1');
        upstreams.add(upstream);
        let rows = false;
        let tail = Buffer.alloc(0);
        client.on('data', (chunk: Buffer) => {
            // Counted across chunk boundaries: the marker may be split between two reads.
            const text = Buffer.concat([tail, chunk]);
            for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + 1)) {
                if (at + marker.length > tail.length) sent++;
                rows = true;
            }
            tail = text.subarray(Math.max(0, text.length - marker.length + 1));
            if (rows) lastWrite = Date.now();
            upstream.write(chunk);
        });
        upstream.on('data', (chunk: Buffer) => {
            if (rows && holding) held.push({ socket: client, chunk });
            else client.write(chunk);
        });
        const end = () => {
            client.destroy();
            upstream.destroy();
            upstreams.delete(upstream);
        };
        client.on('close', end);
        upstream.on('close', end);
        client.on('error', () => undefined);
        upstream.on('error', () => undefined);
    });
    return started.then((server) => ({
        ...server,
        sentBeforeStall: (quietMs = 500) =>
            new Promise<number>((resolve) => {
                const timer = setInterval(() => {
                    if (sent === 0 || Date.now() - lastWrite < quietMs) return;
                    clearInterval(timer);
                    const count = sent;
                    holding = false;
                    for (const { socket, chunk } of held.splice(0)) socket.write(chunk);
                    resolve(count);
                }, 20);
            }),
        close: async () => {
            for (const upstream of upstreams) upstream.destroy();
            await server.close();
        },
    }));
}

/** A server on a free loopback port calling `onConnection` for each connection; `close()` ends them all. */
function listenConnections(onConnection: (socket: Socket) => void): Promise<SilentServer> {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        onConnection(socket);
    });
    return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            const port = typeof address === 'object' && address ? address.port : 0;
            resolve({
                port,
                close: () =>
                    new Promise<void>((done) => {
                        for (const socket of sockets) socket.destroy();
                        server.close(() => done());
                    }),
            });
        });
    });
}
