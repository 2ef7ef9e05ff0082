/**
 * The values a numeric option takes, checked when the command line is parsed: yargs reads `--samples abc` as NaN
 * and `-3` or `1.5` as numbers, and a command would run with them (`NaN parameter sets`). A bad value is bad usage:
 * the message, the command's synopsis, exit 2, before anything is read or written.
 */
import type { Argv } from 'yargs';

/** What a numeric option takes. */
export type NumberKind = 'count' | 'whole' | 'seconds';

const ACCEPTED: Record<NumberKind, { words: string; accepts: (value: number) => boolean }> = {
    count: { words: 'a whole number from 1', accepts: (value) => Number.isSafeInteger(value) && value >= 1 },
    whole: { words: 'a whole number', accepts: (value) => Number.isSafeInteger(value) },
    seconds: { words: 'a positive number of seconds', accepts: (value) => Number.isFinite(value) && value > 0 },
};

/** The message for a bad value of `--name` (a list: each of its values), or undefined when it is good or absent. */
export function numberOptionProblem(name: string, value: unknown, kind: NumberKind): string | undefined {
    if (value === undefined) return undefined;
    const values = Array.isArray(value) ? value : [value];
    const { words, accepts } = ACCEPTED[kind];
    if (values.length === 0) return `--${name} needs ${words}`;
    const bad = values.find((each) => typeof each !== 'number' || !accepts(each));
    return bad === undefined ? undefined : `--${name} must be ${words}, got ${String(bad)}`;
}

/** Adds a check of the given options' values to a command (each option: the kind of number it takes). */
export function checkNumberOptions<T>(yargs: Argv<T>, kinds: Record<string, NumberKind>): Argv<T> {
    return yargs.check((argv) => {
        for (const [name, kind] of Object.entries(kinds)) {
            const problem = numberOptionProblem(name, (argv as Record<string, unknown>)[name], kind);
            if (problem) return problem;
        }
        return true;
    });
}
