/**
 * A model too large for the memory this process may use must end with a sentence, not with V8's
 * "JavaScript heap out of memory" and a native stack dump (which no handler can catch). Parsing is the
 * first and largest allocation, and its cost follows the text's size, so the guard compares the size
 * with the heap limit before parsing; later phases check the headroom left at their boundaries.
 */
import { getHeapStatistics } from 'node:v8';
import { KvmodError } from './errors.js';

/**
 * Heap a loaded model takes per token (name, number, string, punctuation), parsed, linked and validated
 * (CST, AST, indexes), with a margin; calibrated on the 1000 × 1000 grid files (the figures: docs/benchmarks.md).
 * Tokens, not characters: a 10 MB string literal is one token. PIDM stays above what the batch runs' parser
 * needs: the guard runs before parsing, and a text with a syntax error is parsed again by Langium's parser once
 * the batch parser gives up, at Langium's cost.
 */
export const HEAP_BYTES_PER_TOKEN = { pidm: 500, kvlm: 560 } as const;

/**
 * Counts tokens the way the lexers split them, closely enough for an estimate: a run of letters, digits
 * and `_`; a quoted string; any other visible character. White space and `//` comments are skipped.
 * One pass over the character codes (about 25 ms per MB).
 */
export function estimateTokens(text: string): number {
    let tokens = 0;
    const n = text.length;
    let i = 0;
    while (i < n) {
        const c = text.charCodeAt(i);
        if (c === 32 || c === 10 || c === 13 || c === 9) {
            i++;
        } else if (isWordCode(c)) {
            tokens++;
            i++;
            while (i < n && isWordCode(text.charCodeAt(i))) i++;
        } else if (c === 34 || c === 39) {
            tokens++;
            i++;
            while (i < n) {
                const d = text.charCodeAt(i);
                if (d === c || d === 10) break;
                i += d === 92 ? 2 : 1;
            }
            i++;
        } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
            while (i < n && text.charCodeAt(i) !== 10) i++;
        } else {
            tokens++;
            i++;
        }
    }
    return tokens;
}

function isWordCode(c: number): boolean {
    return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Share of the heap limit in use past which a phase boundary stops the run. */
export const HEAP_HEADROOM_LIMIT = 0.92;

/** Stable code of the error. */
export const MEMORY_ISSUE_CODE = 'io.too-large';

/** `1.5 GB`, `300 MB` */
function formatBytes(bytes: number): string {
    if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
    if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(bytes >= 10 * 1024 ** 2 ? 0 : 1)} MB`;
    return `${Math.ceil(bytes / 1024)} KB`;
}

/** The advice every memory error ends with. */
function advice(neededBytes: number): string {
    const megabytes = Math.ceil((neededBytes * 1.25) / 1024 ** 2 / 512) * 512;
    return `run kvmod with NODE_OPTIONS=--max-old-space-size=${megabytes} on a machine with that much free memory`;
}

/**
 * Throws a `KvmodError` when loading these texts (then `scale` times as much for what follows) would need
 * more heap than the limit. `what` names the input in the message (a path, or "the 3 model files").
 */
export function checkHeapForTexts(
    what: string,
    texts: { language: 'pidm' | 'kvlm'; text: string }[],
    scale = 1,
    doing = 'load',
): void {
    const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
    const characters = texts.reduce((sum, entry) => sum + entry.text.length, 0);
    // There are at most as many tokens as characters: small texts need no count.
    if (characters * HEAP_BYTES_PER_TOKEN.pidm * scale + used <= limit) return;
    const needed = texts.reduce(
        (sum, entry) => sum + estimateTokens(entry.text) * HEAP_BYTES_PER_TOKEN[entry.language] * scale,
        used,
    );
    if (needed <= limit) return;
    throw new KvmodError(
        `${what} (${formatBytes(characters)} of text) needs about ${formatBytes(needed)} of memory to ${doing}, more than the ${formatBytes(limit)} this process may use; ${advice(needed)}`,
        { code: MEMORY_ISSUE_CODE },
    );
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

/** Heap this process may still take before a phase boundary would stop it (the headroom limit less what is in use). */
export function heapBudget(): number {
    const { heap_size_limit: limit, used_heap_size: used } = getHeapStatistics();
    return Math.max(0, HEAP_HEADROOM_LIMIT * limit - used);
}

/**
 * Throws a `KvmodError` when `what` needs more heap than `heapBudget()` leaves: `needed` bytes (estimated) `forWhat`
 * (e.g. "for the values objects draw from"); `lower` says how to ask for less with the budget there is (e.g.
 * "at most --scale 3000000 here").
 */
export function checkHeapBudget(
    what: string,
    needed: number,
    forWhat: string,
    lower?: (budget: number) => string | undefined,
): void {
    const budget = heapBudget();
    if (needed <= budget) return;
    const instead = lower?.(budget);
    throw new KvmodError(
        `${what} needs about ${formatBytes(needed)} of memory ${forWhat}, more than the ${formatBytes(budget)} this process has left: ${instead ? `${instead}, or ` : ''}${advice(needed)}`,
        { code: MEMORY_ISSUE_CODE },
    );
}
