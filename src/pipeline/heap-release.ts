/**
 * Hands memory back between the phases of a large run. V8 grows the heap rather than collect while it is
 * far below its limit, so the source model's syntax tree, dropped after the transformation, can still count in
 * the peak when the files are rendered. A full collection at the point where most of the heap just became
 * garbage costs about the marking of what is still live (the KVLM) and keeps the peak down.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Below this much heap in use a collection is not worth its time: nothing large was dropped. */
const WORTH_COLLECTING_BYTES = 256 * 1024 ** 2;

let collect: (() => void) | null | undefined;

/**
 * Runs a full garbage collection now if the heap is large; a no-op otherwise, and where the runtime does
 * not allow it (`gc` is exposed by the V8 flag `--expose-gc`, which a new context picks up when set late).
 */
export function releaseHeap(): void {
    if (getHeapStatistics().used_heap_size < WORTH_COLLECTING_BYTES) return;
    if (collect === undefined) {
        try {
            setFlagsFromString('--expose-gc');
            collect = runInNewContext('gc') as () => void;
        } catch {
            collect = null;
        }
    }
    collect?.();
}
