/**
 * A collection whose rows tell when a writer asks for its second batch: `probe` (e.g. a count read by another
 * process, while this one has not turned its event loop since the first batch was sent) is read then, once, into
 * `seen`. How the tests see that a writer sends each batch the moment it is made.
 */
import type { MaterializedCollection } from '../../src/runtime/materialize.js';

export function watchSecondBatch<C extends MaterializedCollection>(
    collection: C,
    probe: () => number,
): {
    watched: Omit<C, 'rows'> & { rows: { readonly length: number; slice(start: number, end: number): C['rows'] } };
    seen: number[];
} {
    const seen: number[] = [];
    const watched = {
        ...collection,
        rows: {
            get length() {
                return collection.rows.length;
            },
            slice(start: number, end: number) {
                if (start > 0 && seen.length === 0) seen.push(probe());
                return collection.rows.slice(start, end);
            },
        },
    };
    return { watched, seen };
}
