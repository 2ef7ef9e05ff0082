/**
 * What a redis-core server must hold for a set of live rows, computed from the rows alone with the library's own
 * rules (equality form, order form, scores), and a comparison with what it does hold: every index key of every
 * collection, member by member. An index that holds exactly the live rows has no stale entry left by an update
 * or a delete, and misses none.
 */
import {
    coreRowRecordKey,
    type CoreCollection,
    type CoreViewModel,
} from '../../generation/redis-core/redis-core-design.js';
import { rowMapKey } from '../../generation/shared/entity-store.js';
import type { CoreConnection, CoreNode } from './core-connection.js';
import { coreIndexPatterns } from './core-engine.js';

/** The form a text takes for equality: ASCII white space trimmed at both ends, ASCII letters lower-cased. */
export function coreEqualityForm(text: string): string {
    return asciiLower(text.replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, ''));
}

/** The form a text takes for order: ASCII letters lower-cased (then compared byte by byte). */
export function coreOrderForm(text: string): string {
    return asciiLower(text);
}

function asciiLower(text: string): string {
    return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** A key's content as comparable lines: a set's members, a sorted set's `score member`, a hash's `field=value`. */
export type KeyContent = Map<string, string[]>;

/** The index keys (and their content) a collection's live rows give: row key → encoded values in field order. */
export function expectedCoreIndex(
    collection: CoreCollection,
    rows: ReadonlyMap<string, readonly string[]>,
): KeyContent {
    const content: KeyContent = new Map();
    const add = (key: string, line: string) => {
        const lines = content.get(key) ?? [];
        lines.push(line);
        content.set(key, lines);
    };
    for (const [row, values] of rows) {
        const record = collection.record.map((column) => values[column.position - 1]);
        // The row's partition: its record key without `:rec` is the tag every index key of it starts with.
        const records = coreRowRecordKey(collection, values);
        const tag = records.slice(0, -':rec'.length);
        add(records, `${row}=${JSON.stringify(record)}`);
        for (const index of collection.indexes) {
            const value = record[index.column - 1];
            const key = tag + index.suffix;
            if (index.kind === 'eq') add(key + coreEqualityForm(value), row);
            else if (index.kind === 'score') add(key, `${Number(value)} ${row}`);
            else add(key, `0 ${coreOrderForm(value).replace(/\0/g, '\0\x01')}\0\0${row}`);
        }
    }
    for (const lines of content.values()) lines.sort();
    return content;
}

/** What the server holds under a collection's index keys (`{C}:*` and `{C:…}:*`, but the counter and row map), in the same form. */
export async function actualCoreIndex(connection: CoreConnection, collection: CoreCollection): Promise<KeyContent> {
    const content: KeyContent = new Map();
    for (const node of await connection.masters())
        for (const pattern of coreIndexPatterns(collection)) await readIndexKeys(node, pattern, collection, content);
    return content;
}

/** Adds the content of every key matching `pattern` on one node. */
async function readIndexKeys(
    node: CoreNode,
    pattern: string,
    collection: CoreCollection,
    content: KeyContent,
): Promise<void> {
    let cursor = '0';
    do {
        const [next, keys] = (await node.send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [
            string,
            string[],
        ];
        cursor = String(next);
        for (const key of keys) {
            // The versions a partition keeps for the cluster steps (core-cluster-entities.ts) are no index, nor
            // a counter-key collection's counter and row map.
            const counter = collection.key.counterKey;
            if ((counter !== null && (key === counter || key === rowMapKey(counter))) || key.endsWith(':@v')) continue;
            const type = String(await node.send(['TYPE', key]));
            let lines: string[];
            if (type === 'set') lines = ((await node.send(['SMEMBERS', key])) as string[]).map(String);
            else if (type === 'zset') {
                const flat = (await node.send(['ZRANGE', key, '0', '-1', 'WITHSCORES'])) as string[];
                lines = [];
                for (let i = 0; i < flat.length; i += 2) lines.push(`${Number(flat[i + 1])} ${flat[i]}`);
            } else if (type === 'hash') {
                const flat = (await node.send(['HGETALL', key])) as string[];
                lines = [];
                // The library writes records with cjson: compare them as JSON values.
                for (let i = 0; i < flat.length; i += 2) {
                    const parsed = JSON.parse(flat[i + 1]) as unknown;
                    // cjson writes an empty Lua table as `{}`.
                    const record = Array.isArray(parsed) || Object.keys(parsed as object).length > 0 ? parsed : [];
                    lines.push(`${flat[i]}=${JSON.stringify(record)}`);
                }
            } else lines = [`unexpected ${type}`];
            content.set(key, lines.sort());
        }
    } while (cursor !== '0');
}

/** The differences between two contents, one line each (empty when equal). */
export function diffKeyContent(expected: KeyContent, actual: KeyContent): string[] {
    const out: string[] = [];
    for (const key of new Set([...expected.keys(), ...actual.keys()])) {
        const want = new Set(expected.get(key) ?? []);
        const have = new Set(actual.get(key) ?? []);
        for (const line of want) if (!have.has(line)) out.push(`${JSON.stringify(key)} lacks ${JSON.stringify(line)}`);
        for (const line of have)
            if (!want.has(line)) out.push(`${JSON.stringify(key)} has a stale ${JSON.stringify(line)}`);
    }
    return out.sort();
}

/** Checks every collection's index keys against its live rows; the differences, empty when exact. */
export async function checkCoreIndexes(
    connection: CoreConnection,
    design: CoreViewModel,
    live: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>,
): Promise<string[]> {
    const out: string[] = [];
    for (const collection of design.collections) {
        const expected = expectedCoreIndex(collection, live.get(collection.name) ?? new Map());
        out.push(...diffKeyContent(expected, await actualCoreIndex(connection, collection)));
    }
    return out;
}
