/**
 * Algorithm 2 of the paper (section 4.5.2): merging two collections into one. The paper keeps the
 * first collection's fields, adds the second's new ones, and keeps a field indexed if either side
 * indexed it. Here a field is identified by its resolved path, nodes by their reference path, and the
 * merged collection also serves both collections' queries, each with its own plan.
 */
import { fieldRecord, presized, type CollectionModel, type FieldModel, type NodeModel } from './collection-model.js';
import { uniqueName } from '../../src/language/kvlm/kvlm-names.js';

/**
 * Merges `right` into `left` as a new collection called `name` (the caller makes it unique). Neither
 * input is modified (both implementations of Algorithm 3 call this, and the reference caches what it
 * saw of each pair).
 */
export function mergeCollections(left: CollectionModel, right: CollectionModel, name: string): CollectionModel {
    if (left.rootEntity !== right.rootEntity) {
        throw new Error(
            `mergeCollections: ${left.name} and ${right.name} have different FROM entities; their fields cannot overlap`,
        );
    }
    const nodes: NodeModel[] = [...left.nodes];
    const nodeKeys = new Set(left.nodes.map((node) => node.key));
    const nodeNames = new Set(left.nodes.map((node) => node.name));
    for (const node of right.nodes) {
        if (nodeKeys.has(node.key)) continue;
        nodeKeys.add(node.key);
        const nodeName = uniqueName(node.name, nodeNames);
        nodes.push(nodeName === node.name ? node : { ...node, name: nodeName });
    }

    // Fields are immutable: one that the merge does not change (same name, no new query) is shared.
    const fieldNames = new Set<string>([`${name}_id`]);
    const fieldIds = unionSorted(left.fieldIds, right.fieldIds);
    const fields = presized<FieldModel>(fieldIds.length);
    let count = 0;
    const positions = positionScratch(Math.max(lastId(left.fieldIds), lastId(right.fieldIds)));
    for (const field of left.fields) {
        positions.set(field.id, count);
        fields[count++] = renamed(field, fieldNames);
    }
    // Most shared fields carry the same query and role lists: concatenate each distinct pair once.
    // Right's fields name its queries by position: they come after left's in the merged collection.
    const queryLists = new Map<readonly number[], Map<readonly number[], readonly number[]>>();
    const maskLists = new Map<readonly number[], Map<readonly number[], readonly number[]>>();
    const shifted = new Map<readonly number[], readonly number[]>();
    const offset = left.queries.length;
    for (const field of right.fields) {
        let queries = shifted.get(field.queries);
        if (!queries) {
            queries = field.queries.map((query) => query + offset);
            shifted.set(field.queries, queries);
        }
        const position = positions.get(field.id);
        if (position < 0) {
            fields[count++] = renamed(field, fieldNames, queries);
            continue;
        }
        const existing = fields[position];
        fields[position] = fieldRecord(
            existing.id,
            existing.name,
            existing.label,
            existing.type,
            existing.nodeKey,
            existing.attribute,
            existing.indexed || field.indexed,
            concatOnce(queryLists, existing.queries, queries),
            concatOnce(maskLists, existing.roleMasks, field.roleMasks),
        );
    }

    return {
        name,
        rootEntity: left.rootEntity,
        nodes,
        fields,
        fieldIds,
        queries: [...left.queries, ...right.queries],
    };
}

/** The name Algorithm 2 gives a merge: `left_right`, made unique among all collection names so far. */
export function mergedName(left: CollectionModel, right: CollectionModel, takenNames: Set<string>): string {
    return uniqueName(`${left.name}_${right.name}`, takenNames);
}

/** `[...a, ...b]`, made once per distinct pair of arrays (the results are never mutated). */
function concatOnce<T>(
    cache: Map<readonly T[], Map<readonly T[], readonly T[]>>,
    a: readonly T[],
    b: readonly T[],
): readonly T[] {
    let byB = cache.get(a);
    if (!byB) {
        byB = new Map();
        cache.set(a, byB);
    }
    let joined = byB.get(b);
    if (!joined) {
        joined = [...a, ...b];
        byB.set(b, joined);
    }
    return joined;
}

function lastId(ids: Int32Array): number {
    return ids.length > 0 ? ids[ids.length - 1] : -1;
}

let scratchOwner = new Int32Array(0);
let scratchPosition = new Int32Array(0);
let scratchStamp = 0;

/**
 * Field id → position in the merged list, for one merge: two typed arrays shared by all merges and
 * told apart by a stamp, instead of a Map per merge (merges of million-field models are frequent).
 */
function positionScratch(maxId: number): { set(id: number, position: number): void; get(id: number): number } {
    if (scratchOwner.length <= maxId) {
        const size = Math.max(maxId + 1, 2 * scratchOwner.length);
        scratchOwner = new Int32Array(size);
        scratchPosition = new Int32Array(size);
        scratchStamp = 0;
    }
    const stamp = ++scratchStamp;
    const owner = scratchOwner;
    const position = scratchPosition;
    return {
        set(id, value) {
            owner[id] = stamp;
            position[id] = value;
        },
        get(id) {
            return owner[id] === stamp ? position[id] : -1;
        },
    };
}

/** The field itself when its name is still free and its queries unchanged, else a copy with a fresh name and `queries`. */
function renamed(field: FieldModel, taken: Set<string>, queries = field.queries): FieldModel {
    const name = uniqueName(field.name, taken);
    return name === field.name && queries === field.queries
        ? field
        : fieldRecord(
              field.id,
              name,
              field.label,
              field.type,
              field.nodeKey,
              field.attribute,
              field.indexed,
              queries,
              field.roleMasks,
          );
}

/** The union of two ascending id arrays, ascending. */
function unionSorted(a: Int32Array, b: Int32Array): Int32Array {
    const out = new Int32Array(a.length + b.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < a.length && j < b.length) {
        if (a[i] < b[j]) out[k++] = a[i++];
        else if (a[i] > b[j]) out[k++] = b[j++];
        else {
            out[k++] = a[i++];
            j++;
        }
    }
    while (i < a.length) out[k++] = a[i++];
    while (j < b.length) out[k++] = b[j++];
    return k === out.length ? out : out.slice(0, k);
}
