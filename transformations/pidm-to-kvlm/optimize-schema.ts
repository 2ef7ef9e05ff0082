/**
 * Algorithm 3 (schema optimization), fast. Same result as `optimizeSchemaReference` — the first
 * mergeable pair in list order is merged, until none is left — but most pairs are never compared:
 *
 * - field identities are interned integers;
 * - an inverted list maps each field to the collections holding it, and a collection's partners are
 *   found by walking the lists of its own fields and counting hits per collection (count
 *   accumulation), so the cost is the number of actual co-occurrences, not m² · n²;
 * - size filtering: a pair can only pass if min(n1, n2) itself passes, so lists entries of collections
 *   too small or too large are skipped before counting;
 * - all pairs of Algorithm 1's collections are found in one pass (each collection probes the lists of
 *   the ones before it, then joins them); after a merge only the new collection is probed;
 * - when the collections share most of their fields (long inverted lists, few distinct fields), that
 *   first pass counts each pair's common fields as the population count of two bit sets instead:
 *   m² / 2 · (fields / 32) word operations rather than one step per co-occurrence.
 *
 * Why the result is the reference's: keep a position p with the invariant "no mergeable pair starts
 * before p, except pairs whose right side is a collection just made at p". A new collection at p is
 * first merged into its earliest partner before p (that pair is then the first in list order), else
 * with its earliest partner after p; when the collection at p has no partner, p moves on.
 */
import { passesThreshold, type CollectionModel } from './collection-model.js';
import { grainConflict } from './grain.js';
import { mergeCollections, mergedName } from './merge-collections.js';
import type { MergePolicy } from './options.js';
import { DecisionLog, type OptimizationResult } from './trace.js';

/** A partner of a collection: a class, so that every partner has one shape whatever `conflict` holds. */
class Partner {
    constructor(
        readonly handle: number,
        readonly common: number,
        readonly conflict: string | undefined,
    ) {}
}

/**
 * Each handle's partners, the list made with its first partner: pushing into lists made empty threw
 * `probe`'s optimized code away about once per pair found (`--trace-deopt`: "not a Smi", "wrong map"
 * at the push), and the rest of that probe ran in the interpreter.
 */
function addPartner(partners: (Partner[] | undefined)[], handle: number, partner: Partner): void {
    const list = partners[handle];
    if (list === undefined) partners[handle] = [partner];
    else list.push(partner);
}

/** Runs Algorithm 3 with inverted lists, size filtering and count accumulation. */
export function optimizeSchema(
    collections: readonly CollectionModel[],
    threshold: number,
    policy: MergePolicy,
): OptimizationResult {
    if (policy === 'none') return { collections: [...collections], decisions: [], warnings: [] };
    return new FastOptimizer(collections, threshold, policy).run();
}

const NO_PARTNERS: readonly Partner[] = [];

class FastOptimizer {
    private readonly log = new DecisionLog();
    private readonly takenNames: Set<string>;
    /** Every collection ever made, by handle: Algorithm 1's first (handle = slot), then each merge. */
    private readonly handles: CollectionModel[];
    private readonly alive: Uint8Array;
    private readonly slotOf: Int32Array;
    /** The handle holding each slot (a position in the list), or -1 once its collection merged away. */
    private readonly slotOwner: Int32Array;
    private readonly partners: (Partner[] | undefined)[];
    /**
     * The inverted lists, field id → handles holding it, in one typed array: the list of `id` is
     * `postings[listStart[id] …  listStart[id] + listLength[id]]`, with room for every Algorithm 1
     * collection holding the id. Dead handles are dropped lazily while walking; a merged collection
     * takes the place of its left or right side in each of its lists (it holds exactly the union of
     * their ids), so a list never outgrows its room. (A hundred thousand growing JavaScript arrays
     * cost more to make, to walk and to keep through the young generation's collections.)
     */
    private readonly postings: Int32Array;
    private readonly listStart: Int32Array;
    private readonly listLength: Int32Array;
    private readonly counts: Int32Array;
    /** Non-key field count by handle. */
    private readonly sizes: Int32Array;
    /** Algorithm 1's collections as bit sets of field ids, `words` words each, when the first pass uses them. */
    private readonly bits: Uint32Array | undefined;
    private readonly words: number;
    private merges = 0;

    constructor(
        collections: readonly CollectionModel[],
        private readonly threshold: number,
        private readonly policy: MergePolicy,
    ) {
        const m = collections.length;
        const maxHandles = Math.max(1, 2 * m - 1);
        this.handles = [...collections];
        this.takenNames = new Set(collections.map((collection) => collection.name));
        this.alive = new Uint8Array(maxHandles);
        this.slotOf = new Int32Array(maxHandles);
        this.slotOwner = new Int32Array(m);
        this.partners = [];
        this.counts = new Int32Array(maxHandles);
        this.sizes = new Int32Array(maxHandles);
        let maxId = -1;
        for (let handle = 0; handle < m; handle++) {
            this.alive[handle] = 1;
            this.slotOf[handle] = handle;
            this.slotOwner[handle] = handle;
            this.partners.push(undefined);
            this.sizes[handle] = collections[handle].fields.length;
            const ids = collections[handle].fieldIds;
            if (ids.length > 0 && ids[ids.length - 1] > maxId) maxId = ids[ids.length - 1];
        }
        this.listStart = new Int32Array(maxId + 2);
        this.listLength = new Int32Array(maxId + 1);
        for (let handle = 0; handle < m; handle++) {
            const ids = collections[handle].fieldIds;
            for (let k = 0; k < ids.length; k++) this.listStart[ids[k] + 1]++;
        }
        for (let id = 0; id <= maxId; id++) this.listStart[id + 1] += this.listStart[id];
        this.postings = new Int32Array(this.listStart[maxId + 1]);
        this.words = (maxId + 32) >>> 5;
        this.bits = bitSetsPay(this.listStart, maxId, m, this.words) ? new Uint32Array(m * this.words) : undefined;
        if (this.bits) {
            for (let handle = 0; handle < m; handle++) {
                const ids = collections[handle].fieldIds;
                const base = handle * this.words;
                for (let k = 0; k < ids.length; k++) this.bits[base + (ids[k] >>> 5)] |= 1 << (ids[k] & 31);
            }
        }
    }

    run(): OptimizationResult {
        const m = this.slotOwner.length;
        // Epoch 0: every pair of Algorithm 1's collections, each probing the ones before it.
        for (let handle = 0; handle < m; handle++) {
            if (this.bits) this.probeBits(handle, this.bits);
            else this.probe(handle, 0, -1, -1);
            this.index(handle);
        }
        let p = 0;
        while (p < m) {
            const handle = this.slotOwner[p];
            if (handle < 0) {
                p++;
                continue;
            }
            let before: Partner | undefined;
            let after: Partner | undefined;
            for (const partner of this.partners[handle] ?? NO_PARTNERS) {
                if (!this.alive[partner.handle]) continue;
                const slot = this.slotOf[partner.handle];
                if (slot < p) {
                    if (!before || slot < this.slotOf[before.handle]) before = partner;
                } else if (!after || slot < this.slotOf[after.handle]) {
                    after = partner;
                }
            }
            if (before) {
                p = this.slotOf[before.handle];
                this.merge(before.handle, handle, before);
            } else if (after) {
                this.merge(handle, after.handle, after);
            } else {
                p++;
            }
        }
        const result: CollectionModel[] = [];
        for (let slot = 0; slot < m; slot++) {
            if (this.slotOwner[slot] >= 0) result.push(this.handles[this.slotOwner[slot]]);
        }
        return { collections: result, decisions: this.log.decisions(), warnings: this.log.warnings };
    }

    /** Merges the collection at `leftHandle` with the one at `rightHandle` (left is earlier in the list). */
    private merge(leftHandle: number, rightHandle: number, pair: Partner): void {
        const left = this.handles[leftHandle];
        const right = this.handles[rightHandle];
        const merged = mergeCollections(left, right, mergedName(left, right, this.takenNames));
        this.log.merged(left, right, merged, pair.common, pair.conflict);
        this.merges++;
        const handle = this.handles.length;
        this.handles.push(merged);
        this.partners.push(undefined);
        const slot = this.slotOf[leftHandle];
        this.alive[leftHandle] = 0;
        this.alive[rightHandle] = 0;
        this.slotOwner[this.slotOf[rightHandle]] = -1;
        this.slotOwner[slot] = handle;
        this.slotOf[handle] = slot;
        this.sizes[handle] = merged.fields.length;
        this.alive[handle] = 1;
        // The probe also puts the new collection in its lists, in place of left or right.
        this.probe(handle, this.merges, leftHandle, rightHandle);
    }

    /** Adds one of Algorithm 1's collections to the end of its inverted lists. */
    private index(handle: number): void {
        const ids = this.handles[handle].fieldIds;
        const { postings, listStart, listLength } = this;
        for (let k = 0; k < ids.length; k++) {
            const id = ids[k];
            postings[listStart[id] + listLength[id]++] = handle;
        }
    }

    /**
     * `probe` of the first pass with bit sets: the same pairs against every earlier collection, the same
     * partners and refusals (the log orders refusals itself).
     */
    private probeBits(handle: number, bits: Uint32Array): void {
        const collection = this.handles[handle];
        const { sizes, words, threshold, handles } = this;
        const size = sizes[handle];
        const [smallest, largest] = partnerSizeRange(size, threshold);
        const base = handle * words;
        for (let other = 0; other < handle; other++) {
            const otherSize = sizes[other];
            if (otherSize < smallest || otherSize > largest) continue;
            const otherBase = other * words;
            let common = 0;
            for (let w = 0; w < words; w++) {
                let x = bits[base + w] & bits[otherBase + w];
                x -= (x >>> 1) & 0x55555555;
                x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
                common += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
            }
            if (!passesThreshold(common, size, otherSize, threshold)) continue;
            const otherCollection = handles[other];
            // `other` is earlier in the list: every earlier collection still holds its own slot.
            const conflict = grainConflict(otherCollection, collection);
            if (this.policy === 'paper' || !conflict) {
                addPartner(this.partners, handle, new Partner(other, common, conflict));
                addPartner(this.partners, other, new Partner(handle, common, conflict));
            } else {
                this.log.refused(0, handle, collection, other, otherCollection, common, conflict);
            }
        }
    }

    /**
     * Finds every live collection in the inverted lists that passes the threshold with `handle`. A
     * merged collection (`left` and `right`: the handles it was made of, else -1) takes the place of
     * the first of them in each list it walks, which is each of its lists.
     */
    private probe(handle: number, epoch: number, left: number, right: number): void {
        const collection = this.handles[handle];
        const ids = collection.fieldIds;
        const size = this.sizes[handle];
        const { counts, alive, sizes, handles, threshold, postings, listStart, listLength } = this;
        const [smallest, largest] = partnerSizeRange(size, threshold);
        const touched: number[] = [];
        for (let k = 0; k < ids.length; k++) {
            const id = ids[k];
            const start = listStart[id];
            const end = start + listLength[id];
            let write = start;
            let placed = left < 0;
            for (let r = start; r < end; r++) {
                const other = postings[r];
                if (!alive[other]) {
                    if (!placed && (other === left || other === right)) {
                        postings[write++] = handle;
                        placed = true;
                    }
                    continue;
                }
                if (write !== r) postings[write] = other;
                write++;
                const otherSize = sizes[other];
                if (otherSize < smallest || otherSize > largest) continue;
                if (counts[other]++ === 0) touched.push(other);
            }
            if (!placed)
                throw new Error(`optimizeSchema: field ${id} of ${collection.name} is in neither merged collection`);
            listLength[id] = write - start;
        }
        for (const other of touched) {
            const common = counts[other];
            counts[other] = 0;
            const otherCollection = handles[other];
            if (!passesThreshold(common, size, sizes[other], threshold)) continue;
            const otherFirst = this.slotOf[other] < this.slotOf[handle];
            const conflict = otherFirst
                ? grainConflict(otherCollection, collection)
                : grainConflict(collection, otherCollection);
            if (this.policy === 'paper' || !conflict) {
                addPartner(this.partners, handle, new Partner(other, common, conflict));
                addPartner(this.partners, other, new Partner(handle, common, conflict));
            } else {
                this.log.refused(
                    epoch,
                    this.slotOf[handle],
                    collection,
                    this.slotOf[other],
                    otherCollection,
                    common,
                    conflict,
                );
            }
        }
    }
}

/**
 * Whether the first pass should count common fields with bit sets: when their word operations
 * (m² / 2 pairs of `words` words) cost less than the inverted lists' steps (a list of length L is
 * walked by L collections), and the sets take at most 64 MB.
 */
function bitSetsPay(listStart: Int32Array, maxId: number, m: number, words: number): boolean {
    if (m * words > 16 * 1024 * 1024) return false;
    let steps = 0;
    for (let id = 0; id <= maxId; id++) {
        const length = listStart[id + 1] - listStart[id];
        steps += length * length;
    }
    // Counted as m² / 2 · words word operations against Σ length² / 2 list steps, a word taken as eight steps.
    return 8 * m * m * words < steps;
}

/**
 * Size filtering: the sizes n2 a collection of n1 fields can pass the threshold with, as a range. A
 * pair can only pass if it would with every field of the smaller one in common; that holds for a
 * contiguous range of n2 around n1, found with the same floating-point test as the real check.
 */
export function partnerSizeRange(size: number, threshold: number): [number, number] {
    const fits = (other: number) => passesThreshold(Math.min(size, other), size, other, threshold);
    let smallest = Math.max(1, Math.floor(size * threshold) - 1);
    while (smallest > 1 && fits(smallest - 1)) smallest--;
    while (smallest < size && !fits(smallest)) smallest++;
    let largest = Math.max(size, Math.ceil(size / threshold) + 1);
    while (largest > size && !fits(largest)) largest--;
    while (fits(largest + 1)) largest++;
    return [smallest, largest];
}
