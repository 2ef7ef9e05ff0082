/**
 * Layered template lookup (as in OpenAPI Generator): a user folder first, by relative file name, then the
 * built-in `templates/<target>/`. Every override is reported so a user always knows which file produced an
 * output. Partials are the templates under `partials/`; entry templates sit at the top level.
 */
import { copyFile, mkdir, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GenerationError } from './generation-errors.js';
import { builtInTemplateDir, packageRoot } from './generation-paths.js';

/** One template file as found. */
export interface TemplateSource {
    /** Relative name inside the target's template folder, with `/` separators (`partials/command.hbs`). */
    name: string;
    /** The path shown in messages: the user's path as given, or `templates/<target>/<name>` for built-ins. */
    displayPath: string;
    /** The absolute path. */
    absolutePath: string;
    /** Where it came from. */
    origin: 'user' | 'built-in';
}

/** The templates of a target after layering. */
export interface TemplateSet {
    /** All templates by relative name (user files replacing built-ins of the same name). */
    templates: Map<string, TemplateSource>;
    /** What the user folder changes, in one line (none without user templates). */
    notices: string[];
}

/**
 * Lists the `.hbs` files under a folder, as relative names with `/` separators, sorted. Symbolic links are
 * followed (a user may link a shared template or folder in): a link to a file counts as that file, a link to a
 * folder is walked once (a link back to a folder above is not walked again); a `.hbs` link to nothing is a
 * `template.link` error rather than a template silently left out.
 */
export async function listTemplateFiles(dir: string): Promise<string[]> {
    const out: string[] = [];
    const walked = new Set<string>();
    async function walk(current: string): Promise<void> {
        const real = await realpath(current);
        if (walked.has(real)) return;
        walked.add(real);
        const entries = await readdir(current, { withFileTypes: true });
        for (const entry of entries) {
            const path = join(current, entry.name);
            let folder = entry.isDirectory();
            let file = entry.isFile();
            if (entry.isSymbolicLink()) {
                const target = await stat(path).catch(() => undefined);
                if (target === undefined) {
                    if (!entry.name.endsWith('.hbs')) continue;
                    throw new GenerationError(`the template is a symbolic link to a file that does not exist`, {
                        code: 'template.link',
                        where: path,
                    });
                }
                folder = target.isDirectory();
                file = target.isFile();
            }
            if (folder) await walk(path);
            else if (file && entry.name.endsWith('.hbs')) out.push(relative(dir, path).split(sep).join('/'));
        }
    }
    await walk(dir);
    return out.sort();
}

/** Finds a target's templates: the user folder (when given) over the built-ins. */
export async function resolveTemplates(target: string, userDir?: string): Promise<TemplateSet> {
    const builtInDir = builtInTemplateDir(target);
    const templates = new Map<string, TemplateSource>();
    for (const name of await listTemplateFiles(builtInDir)) {
        templates.set(name, {
            name,
            displayPath: relative(packageRoot(), join(builtInDir, name)).split(sep).join('/'),
            absolutePath: join(builtInDir, name),
            origin: 'built-in',
        });
    }
    const notices: string[] = [];
    if (userDir !== undefined) {
        const info = await stat(userDir).catch(() => undefined);
        if (!info?.isDirectory()) {
            throw new GenerationError(`the templates folder '${userDir}' does not exist or is not a folder`, {
                code: 'template.folder',
            });
        }
        const overrides: string[] = [];
        const added: string[] = [];
        for (const name of await listTemplateFiles(userDir)) {
            (templates.has(name) ? overrides : added).push(name);
            templates.set(name, {
                name,
                displayPath: join(userDir, name),
                absolutePath: join(userDir, name),
                origin: 'user',
            });
        }
        // One line per run, not one per file: a fully ejected folder would repeat itself on every generate.
        const parts = [
            ...(overrides.length > 0 ? [`${overrides.length} override built-ins (${overrides.join(', ')})`] : []),
            ...(added.length > 0
                ? [`${added.length} added, with no built-in ${target} template of that name (${added.join(', ')})`]
                : []),
        ];
        if (parts.length > 0) notices.push(`templates from ${userDir}: ${parts.join('; ')}`);
    }
    return { templates, notices };
}

/** Reads a template's text. */
export async function readTemplate(source: TemplateSource): Promise<string> {
    try {
        return await readFile(source.absolutePath, 'utf8');
    } catch (error) {
        throw new GenerationError(`cannot read template: ${error instanceof Error ? error.message : String(error)}`, {
            code: 'template.unreadable',
            where: source.displayPath,
        });
    }
}

/**
 * Copies a target's built-in templates into `dir` so a user can edit them: all of them, or only the named
 * ones (relative names, `.hbs` optional: `queries.redis`, `partials/command.hbs`). Existing files are kept
 * unless `force` is set. Returns the relative names copied and skipped.
 */
export async function ejectTemplates(
    target: string,
    dir: string,
    force = false,
    only: readonly string[] = [],
): Promise<{ copied: string[]; skipped: string[] }> {
    const builtInDir = builtInTemplateDir(target);
    const all = await listTemplateFiles(builtInDir).catch(() => {
        throw new GenerationError(`no built-in templates for target '${target}'`, { code: 'template.target' });
    });
    const wanted = only
        .map((name) => name.split(sep).join('/'))
        .map((name) => (name.endsWith('.hbs') ? name : `${name}.hbs`));
    const unknown = wanted.filter((name) => !all.includes(name));
    if (unknown.length > 0) {
        throw new GenerationError(
            `no built-in ${target} template named ${unknown.map((name) => `'${name}'`).join(', ')} (the templates: ${all.join(', ')})`,
            { code: 'template.unknown' },
        );
    }
    const names = wanted.length > 0 ? all.filter((name) => wanted.includes(name)) : all;
    const copied: string[] = [];
    const skipped: string[] = [];
    for (const name of names) {
        const destination = join(dir, name);
        const exists = await stat(destination).then(
            () => true,
            () => false,
        );
        if (exists && !force) {
            skipped.push(name);
            continue;
        }
        await mkdir(join(destination, '..'), { recursive: true });
        await copyFile(join(builtInDir, name), destination);
        copied.push(name);
    }
    return { copied, skipped };
}
