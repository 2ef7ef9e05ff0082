/**
 * Where a command writes. Actions take an `CliIo` so tests can call them in-process and read what a user
 * would see; the real command line passes `processIo`.
 */

/** The two output streams of a command. */
export interface CliIo {
    /** Writes to standard output (results: diagnostics, JSON, generated text). */
    out(text: string): void;
    /** Writes to standard error (summaries, progress, messages about the run). */
    err(text: string): void;
}

/** The process's own streams. */
export const processIo: CliIo = {
    out: (text) => {
        process.stdout.write(text);
    },
    err: (text) => {
        process.stderr.write(text);
    },
};

/** An `CliIo` that keeps what was written, for tests. */
export function memoryIo(): CliIo & { stdout: string; stderr: string } {
    const io = {
        stdout: '',
        stderr: '',
        out(text: string) {
            io.stdout += text;
        },
        err(text: string) {
            io.stderr += text;
        },
    };
    return io;
}
