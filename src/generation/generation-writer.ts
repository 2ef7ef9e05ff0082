/**
 * The one place that writes outputs, always atomically: a file is written beside its destination and
 * renamed over it; a folder is staged beside its destination and renamed into place. A failure leaves the
 * old contents or the new ones, never a half-written mix (and no stale files from an earlier run).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { isChunkedFile, type GeneratedFile } from './generation-target.js';

/**
 * Writes one file so that readers never see half of it: the text goes to a temporary file next to the
 * destination, which is then renamed over it (atomic on one file system). Creates the folder if needed.
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const temporary = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    try {
        await writeFile(temporary, text);
        await rename(temporary, path);
    } catch (error) {
        await rm(temporary, { force: true });
        throw error;
    }
}

/**
 * Writes `files` as the complete contents of `dir` (created if missing, replaced if present); the paths
 * written, in order. The files may come one at a time (`streamTarget`): each is written to the staging
 * folder as it arrives, so a large model's outputs are never all in memory; a failure on any of them
 * (a bad path, a template error while the next one renders) removes the staging folder and leaves `dir` as it was.
 */
export async function writeOutputs(
    dir: string,
    files: Iterable<GeneratedFile> | AsyncIterable<GeneratedFile>,
): Promise<string[]> {
    // Files given all at once are checked before anything is staged; streamed ones as they come.
    if (Array.isArray(files)) for (const file of files as GeneratedFile[]) checkOutputPath(file.path);
    const parent = dirname(dir);
    await mkdir(parent, { recursive: true });
    const staging = await makeStagingFolder(parent, basename(dir));
    const written: string[] = [];
    let backup: string | undefined;
    try {
        for await (const file of files) {
            checkOutputPath(file.path);
            const target = join(staging, file.path);
            await mkdir(dirname(target), { recursive: true });
            if (isChunkedFile(file)) await writeChunks(target, file.chunks);
            else await writeFile(target, file.content, 'utf8');
            written.push(file.path);
        }
        const existing = await stat(dir).catch(() => undefined);
        if (existing) {
            if (!existing.isDirectory()) throw new Error(`'${dir}' exists and is not a folder`);
            backup = `${staging}.previous`;
            await rename(dir, backup);
        }
        try {
            await rename(staging, dir);
        } catch (error) {
            if (backup) await rename(backup, dir); // put the old contents back
            backup = undefined;
            throw error;
        }
    } catch (error) {
        await rm(staging, { recursive: true, force: true });
        throw error;
    }
    if (backup) await rm(backup, { recursive: true, force: true });
    return written;
}

/**
 * Creates the folder that becomes `name` once renamed: with `mkdir`, whose mode the umask decides as for any
 * folder the user makes (`mkdtemp` makes it 0700 whatever the umask, and the rename keeps that mode). A fresh
 * random name, created exclusively (`mkdir` fails on an existing one), keeps two runs apart.
 */
async function makeStagingFolder(parent: string, name: string): Promise<string> {
    for (;;) {
        const staging = join(parent, `.${name}.staging-${process.pid}-${randomBytes(6).toString('hex')}`);
        try {
            await mkdir(staging);
            return staging;
        } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
    }
}

/** Writes a file's chunks in order (a file in the staging folder: atomic as the folder is). */
async function writeChunks(path: string, chunks: readonly Uint8Array[]): Promise<void> {
    const handle = await open(path, 'w');
    try {
        for (const chunk of chunks) {
            for (let at = 0; at < chunk.length;) {
                const { bytesWritten } = await handle.write(chunk, at, chunk.length - at);
                at += bytesWritten;
            }
        }
    } finally {
        await handle.close();
    }
}

/** Throws unless `path` is a file path inside the output folder. */
function checkOutputPath(path: string): void {
    const normal = normalize(path);
    if (isAbsolute(normal) || normal === '..' || normal.startsWith(`..${sep}`) || normal === '.' || normal === '') {
        throw new Error(`refusing to write '${path}' outside the output folder`);
    }
}
