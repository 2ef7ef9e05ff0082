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
