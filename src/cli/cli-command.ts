/**
 * What a command module gives `main` and what `main` gives it back. A command module is light (the yargs
 * metadata only: `kvmod --help` loads every one); its handler imports the heavy action module when it runs.
 * Each run of `main` makes the commands anew with its own context, so handlers write to the `io` the caller
 * passed and record their exit code there, with no state shared between runs.
 */
import type { CommandModule } from 'yargs';
import type { KvmodConfig } from '../pipeline/config.js';
import { isKvmodError, refusalMessage } from '../pipeline/errors.js';
import type { CliIo } from './cli-io.js';

/** Exit codes: 0 success, 1 errors in the input or a failed run, 2 bad usage. */
export const ExitCode = { Ok: 0, Failure: 1, Usage: 2 } as const;

/**
 * Codes of `KvmodError`s that are bad option values found after parsing (an unknown target, a scale of 0):
 * usage errors like yargs' own, exit 2.
 */
export const OPTION_ERROR_CODES: ReadonlySet<string> = new Set(['cli.option', 'transform.bad-option']);

/** One run of `main`: where the commands write, and the exit code their handler computed. */
export interface CliContext {
    /** Where every handler writes. */
    readonly io: CliIo;
    /** Set by the handler (yargs ignores handler results); `main` returns it. */
    exitCode: number;
    /** Ends a `--watch` run. */
    readonly signal?: AbortSignal;
    /**
     * The help of the command that is running (set when yargs has picked it), for a bad option value its
     * action finds after parsing: reported like yargs' own complaints, with the command's synopsis.
     */
    usage?: () => string;
    /**
     * The config's settings (with REDIS_URL), for what a command takes from it only when asked
     * (`generate --redis` without a URL); the rest reaches the commands as option values (cli-config.ts).
     */
    config?: KvmodConfig;
    /** The config file read (none found, or `--no-config`: absent), which watch mode watches. */
    configPath?: string;
}

/** A command module, made for one run of `main`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CliCommand = (context: CliContext) => CommandModule<any, any>;

/**
 * A usage error (unknown option, missing argument, bad option value): printed as the message, the misused
 * command's synopsis and a pointer to its --help (not the whole help), exit 2.
 */
export class UsageError extends Error {
    constructor(
        message: string,
        /** The help of the command that was misused. */
        readonly usage: string,
    ) {
        super(message);
        this.name = 'UsageError';
    }
}

/**
 * Runs a handler's action and records its exit code. A failure is printed here, never thrown back into
 * yargs: that keeps yargs' failure handler for yargs' own complaints, which are all usage errors.
 */
export async function runAction(context: CliContext, action: (io: CliIo) => Promise<number>): Promise<void> {
    try {
        context.exitCode = await action(context.io);
    } catch (error) {
        context.exitCode = reportFailure(error, context.io, context.usage);
    }
}

/**
 * Prints a failure the way a user should see it, never a stack trace; returns the exit code. `usage` gives
 * the help of the command that failed, for a bad option value.
 */
export function reportFailure(error: unknown, io: CliIo, usage?: () => string): number {
    if (error instanceof UsageError) {
        io.err(shortUsage(error.message, error.usage));
        return ExitCode.Usage;
    }
    if (isKvmodError(error) && error.code !== undefined && OPTION_ERROR_CODES.has(error.code)) {
        io.err(usage ? shortUsage(error.message, usage()) : `kvmod: ${error.message}\nRun 'kvmod --help' for usage.\n`);
        return ExitCode.Usage;
    }
    if (isKvmodError(error)) {
        io.err(`kvmod: ${error.message}\n`);
        return ExitCode.Failure;
    }
    // A server's error reply no caller worded: which server refused which command, and the reply (a stack for a
    // developer: it may be kvmod's own command that is wrong).
    const refused = refusalMessage(error);
    if (refused !== undefined) {
        io.err(`kvmod: ${refused}\n`);
        if (process.env.KVMOD_DEBUG && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
        return ExitCode.Failure;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.err(`kvmod: internal error: ${message}\n`);
    // A developer chasing the bug can ask for the stack; users never see one.
    if (process.env.KVMOD_DEBUG && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return ExitCode.Failure;
}

/**
 * `kvmod: <message>`, the command's synopsis (the first line of its help) and where the options are: what a
 * usage error needs, in three lines instead of thirty.
 */
export function shortUsage(message: string, help: string): string {
    const synopsis = help.split('\n')[0]?.trim() ?? '';
    const command = /^kvmod(?: [a-z][\w-]*)*/.exec(synopsis)?.[0] ?? 'kvmod';
    const lines = [`kvmod: ${message}`];
    if (synopsis) lines.push(`usage: ${synopsis}`);
    lines.push(`Run '${command} --help' for usage.`);
    return lines.join('\n') + '\n';
}
