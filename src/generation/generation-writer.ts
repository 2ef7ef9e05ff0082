/**
 * The one place that writes generated files. A folder is replaced as a whole and atomically: the files are
 * staged in a temporary folder beside it, then renamed into place, so a failure leaves either the old folder
 * or the new one, never a half-written mix (and no stale files from an earlier run).
 */
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';

/** A file to write: its path relative to the output folder, and its text. */
export interface OutputFile {
    path: string;
    content: string;
}

/** Writes `files` as the complete contents of `dir` (created if missing, replaced if present). */
export async function writeOutputs(dir: string, files: readonly OutputFile[]): Promise<void> {
    for (const file of files) {
        const normal = normalize(file.path);
        if (isAbsolute(normal) || normal === '..' || normal.startsWith(`..${sep}`) || normal === '.' || normal === '') {
            throw new Error(`refusing to write '${file.path}' outside the output folder`);
        }
    }
    const parent = dirname(dir);
    await mkdir(parent, { recursive: true });
    const staging = await mkdtemp(join(parent, `.${basename(dir)}.staging-`));
    let backup: string | undefined;
    try {
        for (const file of files) {
            const target = join(staging, file.path);
            await mkdir(dirname(target), { recursive: true });
            await writeFile(target, file.content, 'utf8');
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
}
