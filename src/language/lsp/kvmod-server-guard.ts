/**
 * Keeps the language server alive whatever a model or a service does. Langium answers a request whose
 * service throws with an error response (that request fails alone), but a failure outside a request — a
 * document build started by a keystroke, a timer — would reach Node's default handler and end the process;
 * VS Code then restarts it a few times and gives up, leaving every language feature dead for the session.
 */
import type { Connection } from 'vscode-languageserver';

/** Where process-wide failures arrive (the Node process; tests pass an emitter). */
export interface FailureSource {
    on(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): unknown;
}

/**
 * Reports process-wide failures in the output channel instead of dying: each distinct failure once (a
 * failure that recurs on every keystroke must not flood the channel), and the server keeps serving.
 */
export function keepServerAlive(connection: Pick<Connection, 'console'>, source: FailureSource = process): void {
    const reported = new Set<string>();
    const report = (error: unknown) => {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        if (reported.has(message)) return;
        reported.add(message);
        const stack = error instanceof Error && error.stack ? `\n${error.stack}` : '';
        connection.console.error(
            `kvmod: an internal error was caught (${message}); the language server keeps running, and this error is reported once.${stack}`,
        );
    };
    source.on('uncaughtException', report);
    source.on('unhandledRejection', report);
}
