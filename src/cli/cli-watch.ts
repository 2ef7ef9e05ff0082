/**
 * `--watch` for `validate` and `generate`: run once, then again whenever a model, a template or the config
 * file changes (a watcher on their folders and on every folder below them; bursts of events are one run). A
 * model error is printed like any run's and the watch goes on; only Ctrl-C (or the run's AbortSignal, in tests)
 * ends it, with exit 0.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import type { CliContext } from './cli-command.js';

/** The commands that take `--watch`. */
export const WATCHABLE_COMMANDS: ReadonlySet<string> = new Set(['validate', 'generate']);

/** The files whose change starts a new run. */
const WATCHED_EXTENSIONS = new Set(['.pidm', '.kvlm', '.hbs']);

/** Quiet time after the last event before a run starts (editors write a file in several steps). */
const SETTLE_MS = 150;

/**
 * A command module with a `--watch` option that runs the command again on every change through `runFresh`: the
 * whole command line parsed again without `--watch`, so a changed config file applies.
 */
export function withWatch(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    module: CommandModule<any, any>,
    context: CliContext,
    runFresh: () => Promise<unknown>,
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
): CommandModule<any, any> {
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
            const run = async () => void (await runFresh());
            await watchAndRun(watchedFolders(args, context.configPath), run, context);
            context.exitCode = 0;
        },
    };
}

/** The command line without its `--watch` (and a `true`/`false` given to it), for the runs it starts. */
export function withoutWatch(argv: readonly string[]): string[] {
    const kept: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        if (argv[i] === '--watch' && (argv[i + 1] === 'true' || argv[i + 1] === 'false')) i++;
        else if (argv[i] !== '--watch' && !argv[i].startsWith('--watch=')) kept.push(argv[i]);
    }
    return kept;
}

/** What to watch: the model arguments (a glob's fixed prefix), the templates folder, the config file read. */
function watchedFolders(args: Record<string, unknown>, config: string | undefined): string[] {
    const inputs = [args.files, args.inputs].flatMap((value) => (Array.isArray(value) ? value.map(String) : []));
    const folders = inputs.map((input) => {
        const fixed = input.split(/[*?[{]/)[0];
        return fixed === input ? input : dirname(`${fixed}x`);
    });
    if (typeof args.templates === 'string') folders.push(args.templates);
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
    const relevant = (file: string) =>
        WATCHED_EXTENSIONS.has(extname(file)) || CONFIG_FILE_NAMES.some((name) => file.endsWith(name));
    // A folder made, moved in or deleted may bring or take models: a run too.
    const tree = new FolderWatchers((file, folder) => {
        if (folder || relevant(file)) schedule(file);
    });
    for (const folder of folders) {
        const info = await stat(folder).catch(() => undefined);
        if (info?.isDirectory()) await tree.watchTree(folder);
        else tree.watchFolder(dirname(folder));
    }
    await runOnce();
    await new Promise<void>((done) => {
        if (signal?.aborted) return done();
        signal?.addEventListener('abort', () => done(), { once: true });
        if (!signal) process.once('SIGINT', () => done());
    });
    clearTimeout(pending);
    tree.close();
    await running;
}

/**
 * One non-recursive watcher per folder, for a folder and every folder below it, a folder made later included.
 * Not `fs.watch(…, { recursive: true })`: on Linux, Node (20) emulates it with a watcher per file, on the
 * file's inode, so a save that writes a new file and renames it over the old one (`sed -i`, many editors)
 * leaves the watcher on the replaced file, and no later change to that file is ever seen. A folder's own
 * watcher sees every entry written, renamed, made or deleted in it, whichever way.
 */
class FolderWatchers {
    private readonly watchers = new Map<string, FSWatcher>();

    /**
     * `changed` gets each changed entry, as a path relative to the folder watched, and whether it is a folder
     * that appeared or vanished below a tree.
     */
    constructor(private readonly changed: (file: string, folder: boolean) => void) {}

    /** Watches `root` and the folders below it (those made later too); tool folders are skipped. */
    async watchTree(root: string): Promise<void> {
        this.watchFolder(root, root);
        const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
        for (const entry of entries) {
            const folder = join(entry.parentPath, entry.name);
            if (entry.isDirectory() && !skipped(relative(root, folder))) this.watchFolder(folder, root);
        }
    }

    /** Watches one folder; with `root`, the folders made in it, moved in or deleted are followed. */
    watchFolder(folder: string, root?: string): void {
        if (this.watchers.has(folder)) return;
        try {
            const watcher = watch(folder, (_event, name) => {
                if (!name) return;
                const path = join(folder, String(name));
                const shown = relative(root ?? folder, path);
                if (!root || skipped(relative(root, path))) return this.changed(shown, false);
                void stat(path).then(
                    (info) => {
                        if (!info.isDirectory()) return this.changed(shown, false);
                        // A folder made (or deleted and made again: its old watcher is dead): watched anew.
                        this.forgetTree(path);
                        void this.watchTree(path).catch(() => undefined);
                        this.changed(shown, true);
                    },
                    () => this.changed(shown, this.forgetTree(path)),
                );
            });
            // A folder deleted while watched: its watcher may end with an error; the parent's sees the deletion.
            watcher.on('error', () => this.forgetTree(folder));
            this.watchers.set(folder, watcher);
        } catch {
            // A folder that vanished is not watched; the others are.
        }
    }

    /** Stops watching a folder and the folders below it; whether it was watched. */
    private forgetTree(folder: string): boolean {
        let watched = false;
        for (const [path, watcher] of this.watchers) {
            if (path !== folder && !path.startsWith(folder + sep)) continue;
            watcher.close();
            this.watchers.delete(path);
            watched = true;
        }
        return watched;
    }

    close(): void {
        for (const watcher of this.watchers.values()) watcher.close();
        this.watchers.clear();
    }
}

/** Folders no model lives in, whose churn would only cost watchers. */
function skipped(path: string): boolean {
    return path.split(sep).some((part) => part === 'node_modules' || part === '.git');
}
