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
 * `<server> refused <command>: <reply>` for a server's error reply no caller worded
 * (runtime/redis-connection/redis-link.ts `RedisErrorReply`, whose link recorded the server and the command), else
 * undefined. Told apart by name: this module loads no runtime code (the command line and the editor's commands word
 * such a refusal alike).
 */
export function refusalMessage(error: unknown): string | undefined {
    if (!(error instanceof Error) || error.name !== 'RedisErrorReply') return undefined;
    const { server, command } = error as Error & { server?: unknown; command?: unknown };
    if (typeof command !== 'string') return undefined;
    return `${typeof server === 'string' ? server : 'the server'} refused ${command}: ${error.message.trim()}`;
}

// Secrets out of what kvmod prints: a URL's password (`redis://alice:***@host`, `?password=***`), alone or
// inside a message (what a config script threw may name the server it meant to reach). Here, with the error
// type, because every front end prints failures through this module and it loads nothing else.

/** Query parameters that carry a secret (`?password=`, `&auth=`, `?token=`…), by a part of their name. */
const SECRET_PARAMETER = /([?&;][^=&#;\s]*(?:pass|secret|token|auth|key)[^=&#;\s]*=)[^&#;\s]*/gi;

/**
 * A URL with its secrets replaced by `***`: the password of its user information (the user name kept: it says
 * which ACL user was tried) and the value of any query parameter named like a secret. Works on text that is
 * not a valid URL too, so that a malformed URL in an error message does not leak its secret either.
 */
export function redactUrl(url: string): string {
    // By position rather than by URL parsing: a password holding '/', '@' or '#' makes the URL invalid, and
    // the message saying so must not print it either. The user information ends at the last '@'.
    const at = url.lastIndexOf('@');
    const slashes = url.indexOf('//');
    const start = slashes >= 0 && slashes < at ? slashes + 2 : 0;
    const colon = url.indexOf(':', start);
    const withoutPassword = at < 0 || colon < 0 || colon > at ? url : `${url.slice(0, colon + 1)}***${url.slice(at)}`;
    return withoutPassword.replace(SECRET_PARAMETER, '$1***');
}

/** A message with every URL in it (`scheme://…` up to a space or quote) redacted. */
export function redactUrlsIn(text: string): string {
    return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]+/gi, (url) => redactUrl(url));
}
