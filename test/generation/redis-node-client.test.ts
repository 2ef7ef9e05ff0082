/**
 * The redisearch2 output cannot run here (only RediSearch 1.2 is installed), so every line is checked against
 * an independent implementation of the 2.x command syntax: the argument builders of the `redis` npm client
 * (`@redis/search` for FT.*, `@redis/client` for HSET/DEL/EVAL). Each script line is parsed back with
 * redis-cli's quoting rules and must equal the argv the client builds for the same intent.
 */
import { describe, expect, test } from '@jest/globals';
import { createRequire } from 'node:module';
import {
    bindRedisCommand,
    generateTarget,
    redisTarget,
    splitCliLine,
    type RedisCollection,
    type RedisQuery,
    type RedisViewModel,
} from '../../src/generation/index.js';
import { KVLM_MODELS, loadKvlmFile } from './generation-fixtures.js';

const require = createRequire(import.meta.url);
type Parser = { redisArgs: string[]; push(...args: string[]): void };
type Builder = { parseCommand(parser: Parser, ...args: unknown[]): void };
const { BasicCommandParser } = require('@redis/client/dist/lib/client/parser.js') as {
    BasicCommandParser: new () => Parser;
};
const CREATE = (require('@redis/search/dist/lib/commands/CREATE.js') as { default: Builder }).default;
const SEARCH = (require('@redis/search/dist/lib/commands/SEARCH.js') as { default: Builder }).default;
const AGGREGATE = (require('@redis/search/dist/lib/commands/AGGREGATE.js') as { default: Builder }).default;
const ALIASUPDATE = (require('@redis/search/dist/lib/commands/ALIASUPDATE.js') as { default: Builder }).default;
const DROPINDEX = (require('@redis/search/dist/lib/commands/DROPINDEX.js') as { default: Builder }).default;
const HSET = (require('@redis/client/dist/lib/commands/HSET.js') as { default: Builder }).default;
const DEL = (require('@redis/client/dist/lib/commands/DEL.js') as { default: Builder }).default;
const EVAL = (require('@redis/client/dist/lib/commands/EVAL.js') as { default: Builder }).default;

/** The argv node-redis sends for a command builder and its arguments. */
function build(builder: Builder, ...args: unknown[]): string[] {
    const parser = new BasicCommandParser();
    builder.parseCommand(parser, ...args);
    return parser.redisArgs.map(String);
}

/** Placeholder text for a parameter, as the scripts print it. */
const marker = (name: string) => `$${name}`;

function clientCreate(c: RedisCollection): string[] {
    const indexed = c.fields.filter((f) => f.index || f.equalityKey !== null);
    const schema: Record<string, unknown> = {};
    if (indexed.length === 0) schema[c.idField] = { type: 'TAG', SEPARATOR: '\u001f' };
    for (const f of indexed) {
        if (f.index) {
            schema[f.name] = {
                type: f.index.type,
                ...(f.index.separator !== null ? { SEPARATOR: f.index.separator } : {}),
                ...(f.index.sortable ? { SORTABLE: true } : {}),
            };
        }
        // The equality companion that equality clauses search (2.x).
        if (f.equalityKey !== null) schema[f.equalityKey] = { type: 'TAG', SEPARATOR: '\u001f' };
    }
    return build(CREATE, c.physicalIndex, schema, { ON: 'HASH', PREFIX: c.keyPrefix, STOPWORDS: [] });
}

/** The stable name is an alias of the physical index. */
function clientPoint(c: RedisCollection): string[] {
    return build(ALIASUPDATE, c.index, c.physicalIndex);
}

function rowKey(c: RedisCollection): string {
    return c.keyPrefix + c.key.parts.map((p) => marker(p.param)).join(':');
}

/** A field and its value marker, then its sort and equality companions when it has them. */
function fieldValues(f: RedisCollection['fields'][number]): [string, string][] {
    const pairs: [string, string][] = [[f.name, marker(f.name)]];
    if (f.sortKey !== null) pairs.push([f.sortKey, `sortKey(${marker(f.name)})`]);
    if (f.equalityKey !== null) pairs.push([f.equalityKey, `equalityKey(${marker(f.name)})`]);
    return pairs;
}

/**
 * `TIMEOUT 0` moved from where the client writes it to just before PARAMS, where kvmod writes it: RediSearch 2.x reads
 * these options in any order (`handleCommonArgs`), and kvmod keeps them in one tail that counting an aggregate reuses.
 */
function timeoutInTail(argv: string[]): string[] {
    const at = argv.indexOf('TIMEOUT');
    const rest = [...argv.slice(0, at), ...argv.slice(at + 2)];
    const tail = rest.findIndex((arg) => arg === 'PARAMS' || arg === 'DIALECT');
    return [...rest.slice(0, tail), 'TIMEOUT', '0', ...rest.slice(tail)];
}

function clientInsert(c: RedisCollection, lua: string | null): string[] {
    const pairs = c.fields.flatMap(fieldValues).flat();
    if (c.key.kind === 'counter') {
        return build(EVAL, lua, { keys: [c.key.counterKey], arguments: [c.keyPrefix, c.idField, ...pairs] });
    }
    const value: Record<string, string> = { [c.idField]: c.key.parts.map((p) => marker(p.param)).join(':') };
    for (const [name, text] of c.fields.flatMap(fieldValues)) value[name] = text;
    return build(HSET, rowKey(c), value);
}

function clientQuery(c: RedisCollection, q: RedisQuery): string[] {
    // The paging slots are the LIMIT's offset and count, not PARAMS: RediSearch takes no parameter there.
    const queryParams = q.command.params.filter((p) => p !== q.page.offset && p !== q.page.count);
    const params = queryParams.length > 0 ? Object.fromEntries(queryParams.map((p) => [p, marker(p)])) : undefined;
    const limit = { from: marker(q.page.offset) as unknown as number, size: marker(q.page.count) as unknown as number };
    if (q.kind === 'search') {
        return timeoutInTail(
            build(SEARCH, c.index, q.filter, {
                TIMEOUT: 0,
                RETURN: q.projections.map((p) => p.field),
                ...(q.sortKeys.length === 1
                    ? { SORTBY: { BY: q.sortKeys[0]!.field, DIRECTION: q.sortKeys[0]!.direction } }
                    : {}),
                LIMIT: limit,
                ...(params ? { PARAMS: params } : {}),
                DIALECT: 2,
            }),
        );
    }
    const applies = q.sortKeys
        .filter((k) => k.numeric)
        .map((k) => ({ type: 'APPLY', expression: `@${k.field} + 0`, AS: k.property.slice(1) }));
    return timeoutInTail(
        build(AGGREGATE, c.index, q.filter, {
            TIMEOUT: 0,
            LOAD: q.load.map((name) => `@${name}`),
            STEPS: [
                ...applies,
                { type: 'SORTBY', BY: q.sortKeys.map((k) => ({ BY: k.property, DIRECTION: k.direction })) },
                { type: 'LIMIT', ...limit },
            ],
            ...(params ? { PARAMS: params } : {}),
            DIALECT: 2,
        }),
    );
}

function lines(text: string): string[][] {
    return text
        .split('\n')
        .filter((l) => l !== '')
        .map(splitCliLine);
}

const MODELS = KVLM_MODELS;

describe.each(MODELS)('redisearch2 scripts of %s', (path) => {
    async function generated(options: Record<string, unknown> = {}) {
        const { files, viewModel } = await generateTarget(redisTarget, await loadKvlmFile(path), {
            dialect: 'redisearch2',
            ...options,
        });
        return {
            vm: viewModel as RedisViewModel,
            file: (name: string) => files.find((f) => f.path === name)!.content,
        };
    }

    test('every FT.CREATE line is the argv @redis/search builds for the planned schema', async () => {
        for (const options of [{}, { dbPrefix: true }]) {
            const { vm, file } = await generated(options);
            expect(lines(file('indexes.redis'))).toEqual(
                vm.collections.flatMap((c) => [clientCreate(c), clientPoint(c)]),
            );
        }
    });

    test('a physical index is dropped with its rows as the client builds FT.DROPINDEX … DD', async () => {
        const { vm } = await generated();
        for (const c of vm.collections) {
            expect(bindRedisCommand(c.drop, {})).toEqual(build(DROPINDEX, c.physicalIndex, { DD: true }));
        }
    });

    test('every write line is the argv the client builds (HSET for natural keys, EVAL of the Lua script for counters)', async () => {
        const { vm, file } = await generated();
        expect(lines(file('writes.redis'))).toEqual(vm.collections.map((c) => clientInsert(c, vm.counterInsertLua)));
        const deletes = vm.collections.filter((c) => c.key.kind === 'natural');
        for (const c of deletes) {
            expect(
                c.delete.argv.map((arg) => arg.map((p) => (typeof p === 'string' ? p : marker(p.param))).join('')),
            ).toEqual(build(DEL, [rowKey(c)]));
        }
    });

    test('every query line is the argv @redis/search builds for FT.SEARCH or FT.AGGREGATE with TIMEOUT 0, PARAMS and DIALECT 2', async () => {
        const { vm, file } = await generated();
        expect(lines(file('queries.redis'))).toEqual(
            vm.collections.flatMap((c) => c.queries.map((q) => clientQuery(c, q))),
        );
    });
});
