/**
 * How a collection is named on the server, so that a design can change online. Queries address a collection by its
 * STABLE name (the collection name, with the database prefix when asked); its rows and index live under a
 * VERSIONED physical name, `<stable>_<storage signature>`, which changes exactly when what the rows and the index
 * hold changes (fields, index schema, keys, row grain). A new design's index is then built beside the old one
 * and the stable name is switched to it in one step: an index alias on RediSearch 2.x (`FT.ALIASUPDATE`), and on
 * RediSearch 1.2, which has no aliases (`FT.ALIASADD` is an unknown command there, measured), a pointer key
 * (`kvmod:index:<stable>`) that every query resolves inside one Lua script, so resolving and searching are one atomic
 * step.
 */
import { createHash } from 'node:crypto';
import type { RedisCollection } from './redis-view-model-types.js';

/** The prefix of the 1.2 pointer keys: `kvmod:index:<stable name>` holds the physical index name. */
export const POINTER_KEY_PREFIX = 'kvmod:index:';

/** What a collection's rows and index hold: the inputs of its storage signature. */
export type StorageShape = Pick<RedisCollection, 'fields' | 'idField' | 'key' | 'root' | 'nodes'>;

/**
 * A short hash (6 hex digits) of what a collection stores: field names, types, sources, index specs, sort and
 * equality companions, the id field, the key parts and the row grain. Query names and reasons are left out: a query added
 * or removed without changing the fields keeps the rows where they are.
 */
export function storageSignature(shape: StorageShape): string {
    // The JSON of the canonical form below, written piece by piece into the hash: the same bytes as
    // `JSON.stringify({ fields, idField, key, root, nodes })` with each field reduced to
    // `{ name, type, source, index: index && { type, sortable, separator }, sortKey[, equalityKey] }`, without building a
    // thousand objects and a 100 kB string per collection.
    const hash = createHash('sha256');
    const json = JSON.stringify;
    let text = '{"fields":[';
    const fields = shape.fields;
    for (let i = 0; i < fields.length; i++) {
        const f = fields[i];
        const ix = f.index;
        // `json({ type, sortable, separator })` without the object.
        const index = ix
            ? `{"type":${quoted(ix.type)},"sortable":${ix.sortable},"separator":${quoted(ix.separator)}}`
            : json(ix);
        // An equality companion is named only where there is one: a design without any keeps its signature.
        const equality = f.equalityKey !== null ? `,"equalityKey":${quoted(f.equalityKey)}` : '';
        text += `${i > 0 ? ',' : ''}{"name":${quoted(f.name)},"type":${quoted(f.type)},"source":${quoted(f.source)},"index":${index},"sortKey":${quoted(f.sortKey)}${equality}}`;
        if (text.length > 16384) {
            hash.update(text);
            text = '';
        }
    }
    const key = { kind: shape.key.kind, parts: shape.key.parts.map((p) => [p.source, p.param, p.type]) };
    text += `],"idField":${json(shape.idField)},"key":${json(key)},"root":${json(shape.root)},"nodes":${json(shape.nodes)}}`;
    return hash.update(text).digest('hex').slice(0, 6);
}

/** Printable ASCII but `"` and `\\`: the characters JSON writes as they are. */
const VERBATIM_IN_JSON = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `JSON.stringify(value)`, without its call for a string JSON writes as it is (names, sources: most of them). */
function quoted(value: unknown): string {
    return typeof value === 'string' && VERBATIM_IN_JSON.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** `<stable>_<signature>`: the physical index name, and (with `:`) the key prefix of its rows. */
export function physicalIndexName(stable: string, signature: string): string {
    return `${stable}_${signature}`;
}

/** The 1.2 pointer key of a stable name. */
export function pointerKeyOf(stable: string): string {
    return `${POINTER_KEY_PREFIX}${stable}`;
}
