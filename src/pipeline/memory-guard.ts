/**
 * A model too large for the memory this process may use must end with a sentence, not with V8's
 * "JavaScript heap out of memory" and a native stack dump (which no handler can catch). Parsing is the
 * first and largest allocation, and its cost follows the text's size, so the guard compares the size
 * with the heap limit before parsing; later phases check the headroom left at their boundaries.
 */
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { KvmodError } from './errors.js';

/**
 * Heap a loaded model takes per character of text, parsed, linked and validated (CST, AST, indexes),
 * with a margin: measured on the issue-14 grid files (10.5 MB of PIDM peaked at 3.1 GB; 9 MB of KVLM
 * at 1.0 GB).
 */
export const HEAP_BYTES_PER_CHARACTER = { pidm: 320, kvlm: 120 } as const;

/**
 * How much more than loading a transformation and the generation after it take at their peak (the
 * KVLM model, its text, the generated files): measured on the 1000 × 100 grid file, generate peaked at
 * 2.1 times what validate did; with a margin.
 */
export const TRANSFORM_HEAP_SCALE = 2.5;

/** Share of the heap limit in use past which a phase boundary stops the run. */
export const HEAP_HEADROOM_LIMIT = 0.92;

/** Stable code of the error. */
export const MEMORY_ISSUE_CODE = 'io.too-large';

/** `1.5 GB`, `300 MB` */
function formatBytes(bytes: number): string {
    return bytes >= 1024 ** 3
        ? `${(bytes / 1024 ** 3).toFixed(1)} GB`
        : `${(bytes / 1024 ** 2).toFixed(bytes >= 10 * 1024 ** 2 ? 0 : 1)} MB`;
}

/** The advice every memory error ends with. */
function advice(neededBytes: number): string {
    const megabytes = Math.ceil((neededBytes * 1.25) / 1024 ** 2 / 512) * 512;
    return `run kvmod with NODE_OPTIONS=--max-old-space-size=${megabytes} on a machine with that much free memory, or split the model into several files validated separately`;
}

/**
 * Throws a `KvmodError` when loading texts of these sizes would need more heap than the limit. `what`
 * names the input in the message (a path, or "the 3 files").
 */
export function checkHeapForTexts(
    what: string,
    sizes: { language: 'pidm' | 'kvlm'; characters: number }[],
    scale = 1,
    doing = 'load',
): void {
    const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
    const characters = sizes.reduce((sum, size) => sum + size.characters, 0);
    const needed = sizes.reduce(
        (sum, size) => sum + size.characters * HEAP_BYTES_PER_CHARACTER[size.language] * scale,
        used,
    );
    if (needed <= limit) return;
    throw new KvmodError(
        `${what} (${formatBytes(characters)} of text) needs about ${formatBytes(needed)} of memory to ${doing}, more than the ${formatBytes(limit)} this process may use; ${advice(needed)}`,
        { code: MEMORY_ISSUE_CODE },
    );
}

/** `checkHeapForTexts` for files, by their size on disk (unreadable files are the loader's to report). */
export async function checkHeapForFiles(paths: readonly string[], scale: number, doing: string): Promise<void> {
    const sizes: { language: 'pidm' | 'kvlm'; characters: number }[] = [];
    for (const path of paths) {
        try {
            sizes.push({ language: extname(path) === '.kvlm' ? 'kvlm' : 'pidm', characters: (await stat(path)).size });
        } catch {
            // reported by the loader
        }
    }
    checkHeapForTexts(paths.length === 1 ? paths[0] : `the ${paths.length} model files`, sizes, scale, doing);
}

/** Throws a `KvmodError` when less than the headroom is left after `phase` (e.g. "transforming grid.pidm"). */
export function checkHeapHeadroom(phase: string): void {
    const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
    if (used <= HEAP_HEADROOM_LIMIT * limit) return;
    throw new KvmodError(
        `out of memory ${phase}: ${formatBytes(used)} of the ${formatBytes(limit)} this process may use are taken; ${advice(used * 1.5)}`,
        { code: MEMORY_ISSUE_CODE },
    );
}
