/**
 * Reads the entity store of a design back from a live server (issue 28): every entity hash (`SCAN` of the
 * design's entity keys, then `HGETALL`, pipelined) decoded into instance data, and every reverse hash as it is.
 * Read-only. What `kvmod verify --live` and `kvmod load` (which entities the server holds) start from.
 */
import { decodeEntityHash, ENTITY_KEY_ROOT, type EntityStoreSchema } from '../../generation/shared/entity-store.js';
import type { InstanceData, InstanceObject } from '../instance-data.js';
import type { RuntimeModel } from '../runtime-model.js';

/** What reading needs of a connection to the one server: send a command (concurrent sends are pipelined). */
export interface EntityNode {
    send(argv: readonly string[]): Promise<unknown>;
}

/** Keys SCAN asks for per call: the store of a design is read whole, so few round trips matter more than latency. */
const SCAN_COUNT = '10000';
/** Commands sent before awaiting their replies. */
const READ_WINDOW = 1000;

/** One entity hash as read. */
export interface ServerEntity {
    entity: string;
    key: string;
    /** The hash as stored. */
    hash: Record<string, string>;
    /** Decoded (`decodeEntityHash`), or why it could not be. */
    object: InstanceObject | null;
    problem?: string;
    version: number;
}

/** The entity store as the server holds it. */
export interface ServerEntities {
    /** The decodable entities, per entity name (every entity of the model, maybe empty), as instance data. */
    data: InstanceData;
    /** Every entity hash, by key, in key order. */
    entities: Map<string, ServerEntity>;
    /** Every reverse hash, by key: its fields (referrer ids) and their values. */
    reverse: Map<string, Record<string, string>>;
}

/** Every key matching `pattern` (SCAN, deduplicated), sorted. */
export async function scanKeys(node: EntityNode, pattern: string): Promise<string[]> {
    const keys = new Set<string>();
    let cursor = '0';
    do {
        const [next, batch] = (await node.send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT])) as [
            unknown,
            unknown[],
        ];
        cursor = String(next);
        for (const key of batch) keys.add(String(key));
    } while (cursor !== '0');
    return [...keys].sort();
}

/** HGETALL of every key, pipelined a window at a time. */
export async function readHashes(node: EntityNode, keys: readonly string[]): Promise<Record<string, string>[]> {
    const hashes: Record<string, string>[] = [];
    for (let start = 0; start < keys.length; start += READ_WINDOW) {
        const replies = await Promise.all(
            keys.slice(start, start + READ_WINDOW).map((key) => node.send(['HGETALL', key])),
        );
        for (const reply of replies) hashes.push(pairsOf(reply));
    }
    return hashes;
}

/** A flat HGETALL reply (RESP2) or a map (RESP3) as a record. */
export function pairsOf(reply: unknown): Record<string, string> {
    const hash: Record<string, string> = {};
    if (Array.isArray(reply))
        for (let i = 0; i + 1 < reply.length; i += 2) hash[String(reply[i])] = String(reply[i + 1]);
    else if (reply !== null && typeof reply === 'object')
        for (const [field, value] of Object.entries(reply as Record<string, unknown>)) hash[field] = String(value);
    return hash;
}

/** The glob of every key of a design's entity store: entity hashes and reverse hashes. */
export function entityStorePattern(database: string): string {
    return `${ENTITY_KEY_ROOT}:${database}:{*`;
}

/** The entity a key of the store belongs to (`kvmod:<db>:{<Entity>:…`), or undefined. */
function entityOfKey(database: string, key: string): string | undefined {
    const head = `${ENTITY_KEY_ROOT}:${database}:{`;
    if (!key.startsWith(head)) return undefined;
    const colon = key.indexOf(':', head.length);
    return colon < 0 ? undefined : key.slice(head.length, colon);
}

/**
 * Reads every entity and reverse hash of the design from the server: entity hashes decoded into instance data
 * (an undecodable hash is kept with its problem, out of the data); hashes of entities the model lacks are kept too,
 * so that a check can name them.
 */
export async function readServerEntities(
    node: EntityNode,
    schema: EntityStoreSchema,
    model: RuntimeModel,
): Promise<ServerEntities> {
    const all = await scanKeys(node, entityStorePattern(schema.database));
    const entityKeys = all.filter((key) => key.endsWith('}'));
    const reverseKeys = all.filter((key) => !key.endsWith('}'));
    const [entityHashes, reverseHashes] = await Promise.all([
        readHashes(node, entityKeys),
        readHashes(node, reverseKeys),
    ]);
    const data: InstanceData = {};
    for (const entity of model.entities.keys()) data[entity] = [];
    const entities = new Map<string, ServerEntity>();
    entityKeys.forEach((key, position) => {
        const entity = entityOfKey(schema.database, key) ?? '';
        const hash = entityHashes[position];
        const read: ServerEntity = { entity, key, hash, object: null, version: Number(hash._v ?? 0) };
        if (!model.entities.has(entity) || schema.entities[entity] === undefined) {
            read.problem = `${entity} is no entity of the design`;
        } else {
            // Every attribute is required: a hash without one (a field deleted by hand, a writer of another design)
            // implies no row, so it is named here rather than failing the encoding of what it implies.
            const missing = schema.entities[entity].attributes.filter(
                (attribute) => hash[attribute.name] === undefined,
            );
            if (missing.length > 0) {
                read.problem = `it lacks the attribute${missing.length > 1 ? 's' : ''} ${missing.map((a) => a.name).join(', ')}`;
                entities.set(key, read);
                return;
            }
            try {
                const stored = decodeEntityHash(schema, entity, hash);
                read.object = stored.object as InstanceObject;
                data[entity].push(read.object);
            } catch (error) {
                read.problem = error instanceof Error ? error.message : String(error);
            }
        }
        entities.set(key, read);
    });
    const reverse = new Map<string, Record<string, string>>();
    reverseKeys.forEach((key, position) => reverse.set(key, reverseHashes[position]));
    return { data, entities, reverse };
}
