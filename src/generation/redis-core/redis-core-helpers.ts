/**
 * The redis-core target's Handlebars helpers: Lua literals for the function library (every string escaped byte by
 * byte, so any text a model or a literal holds is safe in the Lua source) and Markdown code for the README.
 */
import type { HelperDelegate } from 'handlebars';
import { quoteCliArgument } from '../shared/redis-escaping.js';
import type { CoreCollection, CoreQuery } from './redis-core-design.js';
import { coreClusterFunctions, coreClusterLua, type CoreClusterFunctions } from './redis-core-cluster-lua.js';
import { luaCollection, luaQuery } from './redis-core-lua.js';
import { rowMapKey } from '../shared/entity-store.js';

/** A string as a Lua literal: printable ASCII as is, `"` `\` and every other byte as a decimal escape. */
export function luaString(text: string): string {
    let out = '"';
    for (const byte of Buffer.from(text, 'utf8')) {
        const plain = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
        // Three digits always: a digit that follows is then never read into the escape.
        out += plain ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, '0')}`;
    }
    return `${out}"`;
}

/** A JSON value (strings, finite numbers, booleans, arrays, objects; no null) as a Lua table constructor. */
export function luaValue(value: unknown): string {
    if (typeof value === 'string') return luaString(value);
    if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new Error(`luaValue: not a finite number: ${value}`);
        return String(value);
    }
    if (typeof value === 'boolean') return String(value);
    if (Array.isArray(value)) return `{${value.map(luaValue).join(', ')}}`;
    if (typeof value === 'object' && value !== null) {
        const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
        return `{${entries.map(([k, v]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `[${luaString(k)}]`} = ${luaValue(v)}`).join(', ')}}`;
    }
    throw new Error(`luaValue: cannot write ${value === null ? 'null' : typeof value} as Lua`);
}

/** Inline Markdown code that survives backticks in the text. */
function markdownCode(text: string): string {
    const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
    const fence = '`'.repeat(longest + 1);
    const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
    return `${fence}${pad}${text}${pad}${fence}`;
}

/** The helpers registered for the redis-core templates. */
export const redisCoreHelpers: Readonly<Record<string, HelperDelegate>> = {
    /** `{{lua value}}`: a view-model value as a Lua literal. */
    lua(value: unknown) {
        return luaValue(value);
    },
    /** `{{luaCollection collection}}`: the table the library holds for a collection. */
    luaCollection(collection: unknown) {
        return luaValue(luaCollection(collection as CoreCollection));
    },
    /** `{{luaQuery query collection}}`: the table the library holds for a query (its plan). */
    luaQuery(query: unknown, collection: unknown) {
        return luaValue(luaQuery(query as CoreQuery, collection as CoreCollection));
    },
    /** `{{{coreClusterLua database}}}`: the library's cluster steps (redis-core-cluster-lua.ts). */
    coreClusterLua(database: unknown) {
        return coreClusterLua(String(database));
    },
    /** `{{clusterFunction database "row"}}`: the name of one of the library's cluster steps. */
    clusterFunction(database: unknown, role: unknown) {
        return coreClusterFunctions(String(database))[String(role) as keyof CoreClusterFunctions];
    },
    /** `{{#if (eq a b)}}`: strict equality. */
    eq(a: unknown, b: unknown) {
        return a === b;
    },
    /** `{{cliArg text}}`: one argument quoted for a redis-cli line. */
    cliArg(text: unknown) {
        return quoteCliArgument(String(text));
    },
    /** `{{mdCode text}}`: inline Markdown code.*/
    mdCode(text: unknown) {
        return markdownCode(String(text));
    },
    /** `{{rowMap key.counterKey}}`: the row map beside a counter (`rowMapKey`). */
    rowMap(counterKey: unknown) {
        return rowMapKey(String(counterKey));
    },
    /** `{{#if (anyCounter collections)}}`: whether some collection has counter keys. */
    anyCounter(collections: unknown) {
        return (collections as { key: { counterKey: string | null } }[]).some(
            (collection) => collection.key.counterKey !== null,
        );
    },
    /** `{{concat a b …}}`: the texts joined, for a name made of parts (`attribute#sort`). */
    concat(...args: unknown[]) {
        return args.slice(0, -1).map(String).join('');
    },
    /** `{{visible text}}`: control characters as `\xHH`, for prose. */
    visible(text: unknown) {
        return String(text).replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    },
};
