/**
 * `kvmod.config.json`: the settings every command and the editor read, so that a project does not repeat
 * its models, output folder, target options and Redis URL on every run. Found upward from the working
 * folder (like Prisma's and graphql-codegen's config), checked by `schemas/kvmod-config.schema.json`
 * (problems at file:line:col). Paths in it are relative to its folder; `load` returns them absolute.
 * Command-line options override it; the `REDIS_URL` environment variable overrides its `redis`.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

/** The file name looked for. */
export const CONFIG_FILE_NAME = 'kvmod.config.json';

/** The settings, as the file holds them (every one optional). */
export interface KvmodConfig {
    models?: string[];
    output?: string;
    target?: string;
    templates?: string;
    threshold?: number;
    merge?: 'safe' | 'paper' | 'none';
    key?: 'natural' | 'counter';
    redis?: string;
    data?: string;
    /** The target options, by their declared names (the targets' declarations say which exist). */
    [targetOption: string]: unknown;
}

/** A loaded config: where it was found and its settings, paths made absolute, REDIS_URL applied. */
export interface LoadedConfig {
    /** The config file (absent when none was found: then `config` holds REDIS_URL at most). */
    path?: string;
    config: KvmodConfig;
}

/** The nearest `kvmod.config.json` in `start` or a folder above it. */
export function findConfigFile(start: string): string | undefined {
    let dir = resolve(start);
    while (true) {
        const candidate = join(dir, CONFIG_FILE_NAME);
        if (existsSync(candidate)) return candidate;
        const parent = dirname(dir);
        if (parent === dir) return undefined;
        dir = parent;
    }
}

/**
 * Loads the config that applies in `start` (the nearest file upward, or an explicit `file`), with the
 * environment's `REDIS_URL`. Throws a `KvmodError` (`config.invalid`) listing problems at file:line:col.
 */
export async function loadConfig(
    start: string,
    env: Record<string, string | undefined> = process.env,
    file: string | undefined = findConfigFile(start),
): Promise<LoadedConfig> {
    let config: KvmodConfig = {};
    if (file) {
        // Loaded only when there is a file: `kvmod --help` and runs without a config never pay for ajv.
        const [{ readJsonDocument }, schema] = await Promise.all([
            import('./json-file.js'),
            import('../../schemas/kvmod-config.schema.json', { with: { type: 'json' } }),
        ]);
        // Read through its path from the working folder: that is how problems name it (file:line:col).
        const shown = relative(process.cwd(), file) || file;
        config = (await readJsonDocument(shown, schema.default, 'config.invalid')).value as KvmodConfig;
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
    return { path: file, config };
}
