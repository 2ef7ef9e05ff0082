/**
 * The loader's compiled row encoders write, byte for byte, the RESP of the argv `bindRedisCommand` binds (the form
 * every script, the runtime's other paths and redis-cli send), for every row of the airflights design in both
 * dialects and with both key strategies; optional values that are null drop their field/value pair the same way, and
 * a value that cannot be encoded fails with the same error.
 */
import { describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { bindRedisCommand } from '../../src/generation/redis/redis-commands.js';
import {
    buildRedisViewModel,
    type RedisDialect,
    type RedisParamSlot,
} from '../../src/generation/redis/redis-view-model.js';
import { loadWorkspace } from '../../src/pipeline/load.js';
import { generateInstanceData } from '../../src/runtime/data-generator.js';
import { indexInstanceData } from '../../src/runtime/instance-data.js';
import { materializeModel } from '../../src/runtime/materialize.js';
import { rowParameters } from '../../src/runtime/redis-loader.js';
import { compileRespEncoder, respBatch, respOf, RespWriter } from '../../src/runtime/redis-resp.js';
import { buildRuntimeModel } from '../../src/runtime/runtime-model.js';

async function designs() {
    const workspace = await loadWorkspace(['examples/airflights/airflights.pidm']);
    const pidm = workspace.pidm.map((entry) => entry.model);
    const model = buildRuntimeModel(pidm);
    const data = generateInstanceData(model, { scale: 30, seed: 7 });
    const index = indexInstanceData(model, data);
    const cases = [];
    for (const keyStrategy of ['natural', 'counter'] as const) {
        const kvlm = transformPidmToKvlm(pidm, { merge: 'safe', keyStrategy }).model;
        const collections = materializeModel(kvlm, data, index);
        for (const dialect of ['redisearch1', 'redisearch2'] as RedisDialect[])
            cases.push({ keyStrategy, dialect, view: buildRedisViewModel(kvlm, { dialect }), collections });
    }
    return cases;
}

describe('compiled RESP encoders', () => {
    test('write exactly the RESP of bindRedisCommand for every row, both dialects and key strategies', async () => {
        let rows = 0;
        let dropped = 0;
        for (const { view, collections } of await designs()) {
            for (const collection of view.collections) {
                const encode = compileRespEncoder(collection.insert);
                const materialized = collections.find((c) => c.name === collection.name)!;
                for (const row of materialized.rows) {
                    const values = rowParameters(collection, row);
                    expect(encode(values)).toBe(respOf(bindRedisCommand(collection.insert, values)));
                    // The same row with every optional value null: each drops its field/value pair in both.
                    const nulled = Object.fromEntries(Object.keys(values).map((name) => [name, null]));
                    const without = { ...values, ...nulled };
                    for (const part of collection.key.parts) without[part.param] = values[part.param];
                    for (const arg of collection.insert.argv)
                        for (const part of arg)
                            if (typeof part !== 'string' && !part.nullable) without[part.param] = values[part.param];
                    const bound = bindRedisCommand(collection.insert, without);
                    expect(encode(without)).toBe(respOf(bound));
                    dropped += bindRedisCommand(collection.insert, values).length - bound.length;
                    rows++;
                }
            }
        }
        expect(rows).toBeGreaterThan(1000);
        expect(dropped).toBeGreaterThan(0);
    });

    test.each([
        ['a number that is not one', 'not a number', (part: RedisParamSlot) => part.type !== 'text'],
        ['a missing key part', undefined, (part: RedisParamSlot) => part.use === 'key-part'],
    ])('%s fails with the error bindRedisCommand gives', async (_, given, pick) => {
        const [{ view, collections }] = await designs();
        const collection = view.collections[0]!;
        const values = { ...rowParameters(collection, collections.find((c) => c.name === collection.name)!.rows[0]!) };
        const slot = collection.insert.argv.flat().find((part) => typeof part !== 'string' && pick(part));
        if (!slot || typeof slot === 'string') throw new Error('the first collection has no such slot');
        values[slot.param] = given;
        const expected = (() => {
            try {
                bindRedisCommand(collection.insert, values);
            } catch (error) {
                return error as Error;
            }
            throw new Error('bindRedisCommand accepted the value');
        })();
        expect(() => compileRespEncoder(collection.insert)(values)).toThrow(expected);
    });

    test('a batch holds the UTF-8 bytes of its commands and their count', () => {
        const writer = new RespWriter();
        // Longer than the writer's first buffer, so that it grows, with two- and four-byte UTF-8 characters.
        const long = 'é'.repeat(40_000) + '😀';
        for (const argv of [
            ['SET', 'k', long],
            ['GET', 'k'],
        ])
            writer.append(respOf(argv));
        const batch = writer.take('SET');
        const expected = `*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$${Buffer.byteLength(long)}\r\n${long}\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n`;
        expect(Buffer.from(batch.bytes).toString('utf8')).toBe(expected);
        expect(batch.count).toBe(2);
        // Where each command ends: the pipe writes a batch a few whole commands at a time.
        expect([...batch.ends!]).toEqual([Buffer.byteLength(expected) - 20, Buffer.byteLength(expected)]);
        expect(Buffer.byteLength(long)).toBe(80_004);
        expect(respBatch([['PING']])).toEqual({
            bytes: Buffer.from('*1\r\n$4\r\nPING\r\n'),
            count: 1,
            first: 'PING',
            ends: Uint32Array.of(14),
        });
        expect(writer.take('').count).toBe(0);
    });
});
