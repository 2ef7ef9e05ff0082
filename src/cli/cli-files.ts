/**
 * Turns the file arguments of a command into paths: literal paths pass through (a missing one is reported
 * by the loader as a diagnostic), a directory stands for the models in it, globs expand via tinyglobby,
 * and a glob or directory that yields nothing is an error.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { glob, isDynamicPattern } from 'tinyglobby';
import { KvmodError } from '../pipeline/errors.js';

/** Expands file arguments in argument order; each glob's matches are sorted; duplicates are dropped. */
export async function expandFileArguments(args: readonly string[], cwd: string = process.cwd()): Promise<string[]> {
    const paths: string[] = [];
    const seen = new Set<string>();
    for (const arg of args) {
        let matches = [arg];
        if (isDynamicPattern(arg)) {
            matches = await expandGlob(arg, cwd);
            if (matches.length === 0)
                throw new KvmodError(`no files match '${arg}'`, { code: 'cli.no-match', path: arg });
        } else if (isDirectory(arg, cwd)) {
            const dir = arg.replace(/[/\\]+$/, '');
            matches = await expandGlob(`${dir}/**/*.{pidm,kvlm}`, cwd);
            if (matches.length === 0) {
                throw new KvmodError(`no .pidm or .kvlm files in '${arg}'`, { code: 'cli.no-match', path: arg });
            }
        }
        for (const match of matches) {
            if (!seen.has(match)) {
                seen.add(match);
                paths.push(match);
            }
        }
    }
    return paths;
}

/** A glob's matching files, sorted; absolute when the pattern is, else relative to `cwd` as the user wrote them. */
async function expandGlob(pattern: string, cwd: string): Promise<string[]> {
    const matches = await glob(pattern, {
        cwd,
        onlyFiles: true,
        expandDirectories: false,
        absolute: isAbsolute(pattern),
    });
    return matches.sort();
}

/**
 * The model of a command that takes one (`load`, `verify`): a file passes through; a folder or a glob (a
 * project's config names its models so: `"models": ["models"]`) stands for the one model it holds, and
 * holding several is a `KvmodError` naming them.
 */
export async function singleModelArgument(arg: string, cwd: string = process.cwd()): Promise<string> {
    if (!isDynamicPattern(arg) && !isDirectory(arg, cwd)) return arg;
    const models = await expandFileArguments([arg], cwd);
    if (models.length === 1) return models[0];
    const shown = models.length > 3 ? [...models.slice(0, 3), '…'] : models;
    throw new KvmodError(`'${arg}' holds ${models.length} models (${shown.join(', ')}): name the one to use`, {
        code: 'cli.option',
        path: arg,
    });
}

function isDirectory(path: string, cwd: string): boolean {
    try {
        return statSync(isAbsolute(path) ? path : `${cwd}/${path}`).isDirectory();
    } catch {
        return false;
    }
}
