/**
 * A minimal LSP client for tests and the benchmark's spirit: spawns the BUNDLED language server
 * (`dist/server.cjs`) over stdio and speaks JSON-RPC to it, as VS Code would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import {
    createMessageConnection,
    StreamMessageReader,
    StreamMessageWriter,
    type Diagnostic,
    type InitializeResult,
    type MessageConnection,
    type ServerCapabilities,
    type PublishDiagnosticsParams,
} from 'vscode-languageserver/node';

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The bundled server the tests talk to. */
export const serverBundle = join(repoRoot, 'dist/server.cjs');

/** Builds the client and server bundles into `dist/` (about a second with esbuild). */
export function buildBundles(extraArgs: string[] = []): void {
    const result = spawnSync(process.execPath, [join(repoRoot, 'scripts/build-extension.mjs'), ...extraArgs], {
        cwd: repoRoot,
        encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`build-extension failed:\n${result.stdout}\n${result.stderr}`);
}

/** A file URI for a path. */
export function fileUri(path: string): string {
    return pathToFileURL(path).toString();
}

/** A running server and the client side of its connection. */
export class LspSession {
    private readonly diagnostics = new Map<string, PublishDiagnosticsParams[]>();
    private readonly waiters: {
        uri: string;
        accept: (params: PublishDiagnosticsParams) => boolean;
        resolve: (d: Diagnostic[]) => void;
        reject: (error: Error) => void;
    }[] = [];
    private readonly versions = new Map<string, number>();
    /** What the server answered to `initialize`. */
    capabilities: ServerCapabilities = {};
    /** The messages the server wrote to its output channel (`window/logMessage`), in order. */
    readonly logs: string[] = [];

    private constructor(
        readonly connection: MessageConnection,
        private readonly child: ChildProcess,
    ) {
        connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => {
            const list = this.diagnostics.get(params.uri) ?? [];
            list.push(params);
            this.diagnostics.set(params.uri, list);
            for (const waiter of [...this.waiters]) {
                if (waiter.uri === params.uri && waiter.accept(params)) {
                    this.waiters.splice(this.waiters.indexOf(waiter), 1);
                    waiter.resolve(params.diagnostics);
                }
            }
        });
        // A server that died publishes nothing more: fail the waits at once instead of at the test's timeout.
        child.once('exit', (code, signal) => {
            for (const waiter of this.waiters.splice(0)) {
                waiter.reject(new Error(`the language server exited (code ${code}, signal ${signal})`));
            }
        });
        connection.onNotification('window/logMessage', (params: { message: string }) => {
            this.logs.push(params.message);
        });
        // The server asks for configuration and registers capabilities; an empty answer is what a bare client gives.
        connection.onRequest(() => null);
        connection.onNotification(() => undefined);
    }

    /** True while the server process runs. */
    get alive(): boolean {
        return this.child.exitCode === null && this.child.signalCode === null;
    }

    /** Spawns `node dist/server.cjs --stdio` and completes the initialize handshake. */
    static async start(rootPath?: string): Promise<LspSession> {
        const child = spawn(process.execPath, [serverBundle, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
        child.stderr?.on('data', () => undefined);
        const connection = createMessageConnection(
            new StreamMessageReader(child.stdout!),
            new StreamMessageWriter(child.stdin!),
        );
        connection.listen();
        const session = new LspSession(connection, child);
        const rootUri = rootPath ? fileUri(rootPath) : null;
        const initialized = await connection.sendRequest<InitializeResult>('initialize', {
            processId: process.pid,
            rootUri,
            workspaceFolders: rootPath ? [{ uri: rootUri, name: 'test' }] : null,
            capabilities: {
                textDocument: {
                    hover: { contentFormat: ['markdown', 'plaintext'] },
                    completion: { completionItem: { snippetSupport: false } },
                    rename: { prepareSupport: true },
                    codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
                    publishDiagnostics: {},
                },
            },
        });
        session.capabilities = initialized.capabilities;
        await connection.sendNotification('initialized', {});
        return session;
    }

    /** Opens a document and waits for the first diagnostics the server publishes for it. */
    async open(uri: string, text: string, languageId = uri.endsWith('.kvlm') ? 'kvlm' : 'pidm'): Promise<Diagnostic[]> {
        const published = this.nextDiagnostics(uri);
        this.versions.set(uri, 1);
        await this.connection.sendNotification('textDocument/didOpen', {
            textDocument: { uri, languageId, version: 1, text },
        });
        return published;
    }

    /** Replaces a document's whole text and waits for the diagnostics of that version. */
    async change(uri: string, text: string): Promise<Diagnostic[]> {
        const version = (this.versions.get(uri) ?? 1) + 1;
        this.versions.set(uri, version);
        const published = this.nextDiagnostics(
            uri,
            (params) => params.version === undefined || params.version === version,
        );
        await this.connection.sendNotification('textDocument/didChange', {
            textDocument: { uri, version },
            contentChanges: [{ text }],
        });
        return published;
    }

    /** Resolves with the next diagnostics published for the document (that the filter accepts). */
    nextDiagnostics(
        uri: string,
        accept: (params: PublishDiagnosticsParams) => boolean = () => true,
    ): Promise<Diagnostic[]> {
        if (!this.alive) return Promise.reject(new Error('the language server is not running'));
        return new Promise((resolve, reject) => this.waiters.push({ uri, accept, resolve, reject }));
    }

    /** Sends a request; `method` is the LSP method name. */
    request<R>(method: string, params: unknown): Promise<R> {
        return this.connection.sendRequest(method, params) as Promise<R>;
    }

    /** Shuts the server down politely, then makes sure the process is gone. */
    async stop(): Promise<void> {
        try {
            let timer: NodeJS.Timeout | undefined;
            await Promise.race([
                this.connection.sendRequest('shutdown'),
                new Promise((resolve) => (timer = setTimeout(resolve, 2000))),
            ]);
            clearTimeout(timer);
            await this.connection.sendNotification('exit');
        } catch {
            // The server may already be gone.
        }
        this.connection.dispose();
        if (this.child.exitCode === null && this.child.pid !== undefined) {
            await new Promise<void>((resolve) => {
                const timer = setTimeout(() => {
                    this.child.kill('SIGKILL');
                    resolve();
                }, 2000);
                this.child.once('exit', () => {
                    clearTimeout(timer);
                    resolve();
                });
            });
        }
    }
}

/** The zero-based position of the `occurrence`-th `needle` in `text`, shifted by `delta` characters. */
export function positionOf(
    text: string,
    needle: string,
    delta = 0,
    occurrence = 1,
): { line: number; character: number } {
    let index = -1;
    for (let i = 0; i < occurrence; i++) {
        index = text.indexOf(needle, index + 1);
        if (index < 0) throw new Error(`'${needle}' not found`);
    }
    const offset = index + delta;
    const before = text.slice(0, offset);
    const line = before.split('\n').length - 1;
    return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}
