/**
 * The one error type for failures a user can fix (a missing file, a bad option, a glob that matches
 * nothing): front ends print its message as `kvmod: <message>` and exit 1, never a stack trace.
 */

/** A user-facing failure with an optional stable code and the path it concerns. */
export class KvmodError extends Error {
    /** A stable code tests and front ends can rely on, e.g. `io.unreadable`, `cli.no-match`. */
    readonly code?: string;
    /** The file or pattern the failure concerns, as the user gave it. */
    readonly path?: string;

    constructor(message: string, options: { code?: string; path?: string; cause?: unknown } = {}) {
        super(message, options.cause === undefined ? undefined : { cause: options.cause });
        this.name = 'KvmodError';
        this.code = options.code;
        this.path = options.path;
    }
}

/** True for a `KvmodError`, also across module copies (jest may load a module twice). */
export function isKvmodError(error: unknown): error is KvmodError {
    return error instanceof KvmodError || (error instanceof Error && error.name === 'KvmodError');
}

/**
 * `<server> refused <command>: <reply>` for a server's error reply no caller worded (runtime/redis-link.ts
 * `RedisErrorReply`, whose link recorded the server and the command), else undefined. Told apart by name: this
 * module loads no runtime code (the command line and the editor's commands word such a refusal alike).
 */
export function refusalMessage(error: unknown): string | undefined {
    if (!(error instanceof Error) || error.name !== 'RedisErrorReply') return undefined;
    const { server, command } = error as Error & { server?: unknown; command?: unknown };
    if (typeof command !== 'string') return undefined;
    return `${typeof server === 'string' ? server : 'the server'} refused ${command}: ${error.message.trim()}`;
}
