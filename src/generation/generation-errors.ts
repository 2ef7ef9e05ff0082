/**
 * Failures of code generation a user can act on: a model the target cannot express, a broken user template.
 * The pipeline turns them into its user-facing error; `where` points at the template file and line.
 */

/** A generation failure with a stable code and, for template errors, the file and line. */
export class GenerationError extends Error {
    /** Stable code, e.g. `generation.unsupported`, `template.parse`, `template.runtime`. */
    readonly code: string;
    /** `path:line` (or just `path`) of the template at fault, when a template is at fault. */
    readonly where?: string;

    constructor(message: string, options: { code: string; where?: string; cause?: unknown }) {
        super(
            options.where ? `${options.where}: ${message}` : message,
            options.cause === undefined ? undefined : { cause: options.cause },
        );
        this.name = 'GenerationError';
        this.code = options.code;
        this.where = options.where;
    }
}
