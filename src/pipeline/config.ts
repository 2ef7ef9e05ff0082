/**
 * The config file (`kvmod.config.ts`, `.mts`, `.mjs`, `.js` or `.json`): the settings every command and the
 * editor read, so that a project does not repeat its models, output folder, target options and Redis URL on
 * every run. Found upward from the working folder up to the project's root (like Prisma's and graphql-codegen's
 * config), or named (`--config`). A JSON file
 * is checked by `schemas/kvmod-config.schema.json` with problems at file:line:col; a script's default export
 * (loaded with jiti, which strips TypeScript on every Node version in `engines`) by the same schema, with
 * problems at the property path. Paths in it are relative to its folder; `load` returns them absolute.
 * Command-line options override it; the `REDIS_URL` environment variable overrides its `redis`.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { KvmodError, redactUrlsIn } from './errors.js';

/** The JSON config's file name (the first kind of config file kvmod read). */
export const CONFIG_FILE_NAME = 'kvmod.config.json';

/** Every config file name looked for, in each folder; two of them in one folder is an error. */
export const CONFIG_FILE_NAMES: readonly string[] = [
    'kvmod.config.ts',
    'kvmod.config.mts',
    'kvmod.config.mjs',
    'kvmod.config.js',
    CONFIG_FILE_NAME,
];

/** The settings, as the file holds them (every one optional). */
export interface KvmodConfig {
    models?: string[];
    output?: string;
    target?: string;
    templates?: string;
    threshold?: number;
    merge?: 'safe' | 'paper' | 'none' | 'cost';
    key?: 'natural' | 'counter';
    redis?: string;
    data?: string;
    /** Seconds to wait for a Redis connection and for each reply (`--timeout`). */
    timeout?: number;
    /** The target options, by their declared names (the targets' declarations say which exist). */
    [targetOption: string]: unknown;
}

/** A loaded config: where it was found and its settings, paths made absolute, REDIS_URL applied. */
export interface LoadedConfig {
    /** The config file (absent when none was found: then `config` holds REDIS_URL at most). */
    path?: string;
    config: KvmodConfig;
}

/**
 * The settings of a `kvmod.config.ts`, typed: `export default defineConfig({ … })` gets completion and type
 * checks in the editor (the file is checked against the config's JSON Schema again when it is loaded).
 */
export function defineConfig(config: KvmodConfig): KvmodConfig {
    return config;
}

/** What marks the root folder of a project: the config search goes no higher. */
export const PROJECT_ROOT_MARKERS: readonly string[] = ['package.json', '.git'];

/**
 * The nearest config file in `start` or a folder above it, up to the project's root (the nearest folder
 * with a `package.json` or `.git`): a script config runs code, and one in a folder above the project, that
 * the project does not hold, must not run. Two config files in one folder are a `KvmodError`
 * (`config.ambiguous`): which one wins would be a guess.
 */
export function findConfigFile(start: string): string | undefined {
    let dir = resolve(start);
    while (true) {
        const found = CONFIG_FILE_NAMES.filter((name) => existsSync(join(dir, name)));
        if (found.length > 1) {
            throw new KvmodError(
                `${found.length} config files in ${relative(process.cwd(), dir) || 'the working folder'} (${found.join(', ')}): keep one`,
                { code: 'config.ambiguous', path: join(dir, found[0]) },
            );
        }
        if (found.length === 1) return join(dir, found[0]);
        if (PROJECT_ROOT_MARKERS.some((marker) => existsSync(join(dir, marker)))) return undefined;
        const parent = dirname(dir);
        if (parent === dir) return undefined;
        dir = parent;
    }
}

/**
 * Loads the config that applies in `start` (the nearest file upward, an explicit `file`, or none with
 * `false`), with the environment's `REDIS_URL`. Throws a `KvmodError` (`config.invalid`) listing problems at
 * file:line:col, or (`config.missing`) for an explicit file that is not there.
 */
export async function loadConfig(
    start: string,
    env: Record<string, string | undefined> = process.env,
    file: string | false | undefined = findConfigFile(start),
): Promise<LoadedConfig> {
    let config: KvmodConfig = {};
    if (file && !existsSync(file)) {
        throw new KvmodError(`${relative(process.cwd(), file) || file}: no such config file`, {
            code: 'config.missing',
            path: file,
        });
    }
    if (file) {
        // Read through its path from the working folder: that is how problems name it (file:line:col).
        const shown = relative(process.cwd(), file) || file;
        config = file.endsWith('.json') ? await readJsonConfig(shown) : await readScriptConfig(file, shown);
        const base = dirname(resolve(file));
        const absolute = (path: string) => (isAbsolute(path) ? path : join(base, path));
        config = {
            ...config,
            ...(config.models && { models: config.models.map(absolute) }),
            ...(config.output && { output: absolute(config.output) }),
            ...(config.templates && { templates: absolute(config.templates) }),
            ...(config.data && { data: absolute(config.data) }),
        };
    }
    if (env.REDIS_URL) config = { ...config, redis: env.REDIS_URL };
    return { path: file || undefined, config };
}

/** The JSON Schema of the config (loaded only when there is a file: runs without a config never pay for it). */
async function configSchema(): Promise<object> {
    return (await import('../../schemas/kvmod-config.schema.json', { with: { type: 'json' } })).default;
}

async function readJsonConfig(shown: string): Promise<KvmodConfig> {
    const [{ readJsonDocument }, schema] = await Promise.all([import('./json-file.js'), configSchema()]);
    return (await readJsonDocument(shown, schema, 'config.invalid')).value as KvmodConfig;
}

/**
 * A `kvmod.config.ts` (or `.mts`, `.mjs`, `.js`): run with jiti, read fresh every time (watch mode and the
 * editor see edits), its default export checked against the schema. A syntax error is reported at
 * file:line:col, an exception the file throws as its message.
 */
async function readScriptConfig(file: string, shown: string): Promise<KvmodConfig> {
    const [{ createJiti }, { checkJsonValue }, schema] = await Promise.all([
        import('jiti'),
        import('./json-file.js'),
        configSchema(),
    ]);
    const jiti = createJiti(pathToFileURL(file).href, { moduleCache: false, fsCache: false, interopDefault: false });
    let module: Record<string, unknown>;
    try {
        module = (await jiti.import(file)) as Record<string, unknown>;
    } catch (error) {
        throw new KvmodError(scriptFailure(error, file, shown), { code: 'config.invalid', path: shown, cause: error });
    }
    let value = module?.default;
    // A script config may compute its settings: `export default async () => ({ … })`.
    if (typeof value === 'function') value = await (value as () => unknown)();
    if (value === undefined) {
        throw new KvmodError(
            `${shown}: no default export: write \`export default defineConfig({ … })\` (defineConfig from 'kvmod/config')`,
            { code: 'config.invalid', path: shown },
        );
    }
    // `redis: process.env.REDIS_URL` with the variable unset means "not set", as in a JSON file without the key.
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        value = Object.fromEntries(Object.entries(value).filter(([, setting]) => setting !== undefined));
    }
    checkJsonValue(value, shown, schema, 'config.invalid');
    return value as KvmodConfig;
}

/** Why a script config did not run, as a user reads it: a syntax error at file:line:col, or what it threw. */
function scriptFailure(error: unknown, file: string, shown: string): string {
    // Not `instanceof Error`: what the file throws comes from the realm jiti ran it in.
    const message =
        typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : String(error);
    // jiti reports a syntax error as "ParseError: <reason>\n <file>:<line>:<column>" with a 0-based column.
    const syntax = /^ParseError: (.*?)\s*\n\s*(.*):(\d+):(\d+)\s*$/s.exec(message);
    if (syntax && resolve(syntax[2]) === resolve(file))
        return `${shown}:${syntax[3]}:${Number(syntax[4]) + 1}: syntax error: ${syntax[1]}`;
    // What the script threw may name a server with its password (it is the user's code, not kvmod's message).
    return `${shown}: the config failed to load: ${redactUrlsIn(message.split('\n')[0])}`;
}
