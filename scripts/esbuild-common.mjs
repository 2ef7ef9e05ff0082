// What the esbuild bundles of kvmod share: the VS Code extension and its language server (build-extension.mjs)
// and the command line (build-cli-bundle.mjs).
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join, relative } from 'node:path';
import { build } from 'esbuild';

/** The repository root. */
export const root = fileURLToPath(new URL('..', import.meta.url));

/** The options every kvmod bundle starts from (Node 20 is what VS Code may run; the CLI needs no newer). */
export const nodeBundleOptions = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    // jsonc-parser's `main` is a UMD build whose require() calls esbuild cannot follow; its ESM build bundles.
    alias: { 'jsonc-parser': './node_modules/jsonc-parser/lib/esm/main.js' },
};

/**
 * Runs esbuild with each of `builds` (options whose `outdir`/`outfile` lie in `outdir`) without writing, writes what
 * they made into a private folder inside `outdir`, then renames each file into `outdir`: a test, an editor or a
 * command that starts while another build runs reads either the old or the new file, never a half-written one.
 * Source maps are made for the files' final place. The files named in `last` (entry points) are renamed after all
 * others, so that no entry is in place before the chunks it imports. With `prune`, files of `outdir` the new build
 * did not write (chunks of an older build, whose names hash their contents) are deleted afterwards; subfolders
 * are left alone.
 */
export async function buildInPlace(outdir, builds, { last = [], prune = false } = {}) {
    await mkdir(outdir, { recursive: true });
    const scratch = await mkdtemp(join(outdir, '.build-'));
    try {
        const results = await Promise.all(builds.map((options) => build({ ...options, write: false })));
        const written = [];
        for (const file of results.flatMap((result) => result.outputFiles)) {
            const name = relative(outdir, file.path);
            if (name.startsWith('..') || dirname(name) !== '.')
                throw new Error(`${file.path} is not a file of ${outdir}`);
            await writeFile(join(scratch, name), file.contents);
            written.push(name);
        }
        written.sort((a, b) => Number(last.includes(a)) - Number(last.includes(b)));
        for (const file of written) await rename(join(scratch, file), join(outdir, file));
        if (prune) {
            const kept = new Set(written);
            for (const entry of await readdir(outdir, { withFileTypes: true }))
                if (entry.isFile() && !kept.has(entry.name)) await rm(join(outdir, entry.name), { force: true });
        }
    } finally {
        await rm(scratch, { recursive: true, force: true });
    }
}
