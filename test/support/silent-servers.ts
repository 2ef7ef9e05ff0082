/**
 * Listeners that are not a working Redis, for timeout tests: one that accepts connections and never answers
 * (a paused server, a blackholing proxy, a port that is not Redis), and one that answers node-redis's
 * connection handshake (`CLIENT SETINFO`) and then falls silent (a server that hangs mid-session).
 */
import { createServer, type Server, type Socket } from 'node:net';

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

function listen(onData: (socket: Socket, chunk: Buffer) => void): Promise<SilentServer> {
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('data', (chunk: Buffer) => onData(socket, chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => sockets.delete(socket));
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
