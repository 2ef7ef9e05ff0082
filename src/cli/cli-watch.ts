/**
 * `--watch` for `validate` and `generate`: run once, then again whenever a model, a template or the config
 * file changes (fs.watch on their folders, recursive; bursts of events are one run). A model error is printed
 * like any run's and the watch goes on; only Ctrl-C (or the run's AbortSignal, in tests) ends it, with exit 0.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { CliContext } from './cli-command.js';

/** The commands that take `--watch`. */
export const WATCHABLE_COMMANDS: ReadonlySet<string> = new Set(['validate', 'generate']);

/** The files whose change starts a new run. */
const WATCHED_EXTENSIONS = new Set(['.pidm', '.kvlm', '.hbs']);

/** Quiet time after the last event before a run starts (editors write a file in several steps). */
const SETTLE_MS = 150;

/** A command module with a `--watch` option that reruns its handler on every change. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function withWatch(module: CommandModule<any, any>, context: CliContext): CommandModule<any, any> {
    const builder = module.builder;
    const handler = module.handler;
    if (typeof builder !== 'function') return module;
    return {
        ...module,
        builder: (yargs: Argv) =>
            ((builder(yargs) ?? yargs) as Argv).option('watch', {
                describe: 'Run again whenever a model, a template or the config file changes (Ctrl-C stops)',
                type: 'boolean',
                default: false,
            }),
        handler: async (args: ArgumentsCamelCase<Record<string, unknown>>) => {
            if (!args.watch) return handler(args);
            await watchAndRun(await watchedFolders(args), () => Promise.resolve(handler(args)), context);
            context.exitCode = 0;
        },
    };
}

/** What to watch: the model arguments (a glob's fixed prefix), the templates folder, the config file. */
async function watchedFolders(args: Record<string, unknown>): Promise<string[]> {
    const inputs = [args.files, args.inputs].flatMap((value) => (Array.isArray(value) ? value.map(String) : []));
    const folders = inputs.map((input) => {
        const fixed = input.split(/[*?[{]/)[0];
        return fixed === input ? input : dirname(`${fixed}x`);
    });
    if (typeof args.templates === 'string') folders.push(args.templates);
    const { findConfigFile } = await import('../pipeline/config.js');
    const config = findConfigFile(process.cwd());
    if (config) folders.push(config);
    return [...new Set(folders.map((folder) => resolve(folder)))];
}

/** Runs, then runs again after each settled burst of changes, until the signal (or the process) ends. */
export async function watchAndRun(folders: string[], run: () => Promise<void>, context: CliContext): Promise<void> {
    const { io, signal } = context;
    // Loaded here, not at the top: `kvmod --help` loads this module and must stay light.
    const { CONFIG_FILE_NAMES } = await import('../pipeline/config.js');
    let pending: NodeJS.Timeout | undefined;
    let running = Promise.resolve();
    let changed: string | undefined;
    const runOnce = async (reason?: string) => {
        if (reason) io.err(`\nkvmod: ${reason} changed: running again\n`);
        await run();
        io.err(`kvmod: watching for changes (Ctrl-C to stop)\n`);
    };
    const schedule = (file: string) => {
        changed = file;
        clearTimeout(pending);
        pending = setTimeout(() => {
            running = running.then(() => runOnce(changed));
        }, SETTLE_MS);
    };
    const watchers: FSWatcher[] = [];
    for (const folder of folders) {
        const info = await stat(folder).catch(() => undefined);
        const target = info?.isDirectory() ? folder : dirname(folder);
        try {
            const watcher = watch(target, { recursive: info?.isDirectory() ?? false }, (_event, name) => {
                const file = name ? String(name) : '';
                if (WATCHED_EXTENSIONS.has(extname(file)) || CONFIG_FILE_NAMES.some((name) => file.endsWith(name)))
                    schedule(file);
            });
            watcher.on('error', () => undefined);
            watchers.push(watcher);
        } catch {
            // A folder that vanished is not watched; the others are.
        }
    }
    await runOnce();
    await new Promise<void>((done) => {
        if (signal?.aborted) return done();
        signal?.addEventListener('abort', () => done(), { once: true });
        if (!signal) process.once('SIGINT', () => done());
    });
    clearTimeout(pending);
    for (const watcher of watchers) watcher.close();
    await running;
}
