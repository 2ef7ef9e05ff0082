/**
 * Where the package's own files are (built-in templates, schemas): templates ship as files, not compiled in,
 * so they can be listed, ejected and overridden.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/** The kvmod package root: the nearest folder above this module holding `package.json` and `templates/`. */
export function packageRoot(): string {
    if (cachedRoot) return cachedRoot;
    let dir = dirname(fileURLToPath(import.meta.url));
    while (true) {
        if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'templates'))) return (cachedRoot = dir);
        const parent = dirname(dir);
        if (parent === dir)
            throw new Error('cannot find the kvmod package root (a folder with package.json and templates/)');
        dir = parent;
    }
}

/** The folder of a target's built-in templates: `templates/<target>/`. */
export function builtInTemplateDir(target: string): string {
    return join(packageRoot(), 'templates', target);
}
