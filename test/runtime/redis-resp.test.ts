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
import { rowParameters } from '../../src/runtime/redisearch/redis-loader.js';
import {
    compileRespEncoder,
    ISO_FORMS,
    isPlainIso,
    respBatch,
    respOf,
    RespReplyReader,
    RespWriter,
} from '../../src/runtime/redis-connection/redis-resp.js';
import { encodeRedisValue, encodeSortKey } from '../../src/generation/shared/redis-encoding.js';
import { Decoder } from '@redis/client/dist/lib/RESP/decoder.js';
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
                const keyParams = collection.key.parts.map((part) => part.param);
                const withKeys = compileRespEncoder(collection.insert, keyParams);
                const materialized = collections.find((c) => c.name === collection.name)!;
                for (const row of materialized.rows) {
                    const values = rowParameters(collection, row);
                    expect(encode(values)).toBe(respOf(bindRedisCommand(collection.insert, values)));
                    // What the loader calls: the row's values and its key parts beside them, not merged.
                    expect(withKeys(row.values, row.keyParts)).toBe(encode(values));
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
            blocking: false,
        });
        expect(writer.take('FT.ADD', true).blocking).toBe(true);
        expect(writer.take('').count).toBe(0);
    });
});

describe('arguments written without measuring them first', () => {
    test('a UTF-8 length with more digits than the UTF-16 length is written as respOf writes it', () => {
        const texts = [
            '',
            'a',
            'é',
            'é'.repeat(5),
            'a'.repeat(9) + 'é',
            '😀'.repeat(3),
            'é'.repeat(50),
            'é'.repeat(499),
        ];
        texts.push(
            '€'.repeat(34),
            '€'.repeat(333),
            'x'.repeat(4096),
            'é'.repeat(4096),
            'é'.repeat(4097),
            '€'.repeat(5000),
        );
        for (const text of texts) {
            const writer = new RespWriter();
            writer.begin(3);
            writer.argument('SET');
            writer.argument(text);
            writer.argument(`${text}!`);
            writer.end();
            const written = Buffer.from(writer.take('SET').bytes).toString('utf8');
            expect([text.length, written]).toEqual([text.length, respOf(['SET', text, `${text}!`])]);
        }
    });
});

describe('dates and times written as their digits', () => {
    // Every form the general encoder reads or refuses, near every limit: the digits written straight from the
    // characters (when the value has the plain form) are the RESP of what encodeRedisValue makes of it.
    const dates = ['2000-02-29', '1900-02-29', '2001-02-28', '2024-12-31', '2024-04-31', '2024-13-01', '2024-00-10'];
    dates.push('0000-01-01', '0001-01-01', '0999-09-09', '9999-12-31', '1970-01-00', '1970-1-01', ' 1970-01-01');
    dates.push('1970-01-01 ', '1970/01/01', '197a-01-01', '١٩٧٠-01-01', '1970-01-011', '');
    const times = ['00:00:00', '23:59:59', '24:00:00', '23:60:00', '23:59:60', '09:05:07', '00:00:01', '12:30'];
    times.push(' 12:30:00', '12:30:00 ', '1:30:00', '12-30-00', '12:3a:00', '');
    const datetimes = dates.flatMap((date) => times.flatMap((time) => [`${date}T${time}`, `${date} ${time}`]));
    datetimes.push('2000-02-29t12:00:00', '2000-02-29_12:00:00', '0000-01-01T00:00:00', '0001-01-01T00:00:00');
    const cases: (readonly ['date' | 'time' | 'datetime', string])[] = [
        ...dates.map((value) => ['date', value] as const),
        ...times.map((value) => ['time', value] as const),
        ...datetimes.map((value) => ['datetime', value] as const),
    ];

    test.each([['date'], ['time'], ['datetime']] as const)(
        'a plain %s is written as encodeRedisValue encodes it; any other is left to it',
        (type) => {
            let written = 0;
            for (const [kind, value] of cases) {
                if (kind !== type) continue;
                const writer = new RespWriter();
                writer.begin(1);
                const plain = writer.isoDigits(value, ISO_FORMS[type]);
                writer.end();
                const text = Buffer.from(writer.take('').bytes).toString('utf8');
                if (!plain) {
                    expect([value, text]).toEqual([value, '*1\r\n']); // nothing written
                    expect(isPlainIso(value, ISO_FORMS[type])).toBe(false);
                    continue;
                }
                expect([value, text]).toEqual([value, respOf([encodeRedisValue(type, value)])]);
                written++;
            }
            expect(written).toBeGreaterThanOrEqual(type === 'datetime' ? 30 : 4);
        },
    );

    test('a value the general encoder refuses is never plain', () => {
        for (const [type, value] of cases) {
            let encoded: string | undefined;
            try {
                encoded = encodeRedisValue(type, value);
            } catch {
                encoded = undefined;
            }
            if (encoded === undefined)
                expect([type, value, isPlainIso(value, ISO_FORMS[type])]).toEqual([type, value, false]);
        }
    });
});

describe('sort keys', () => {
    test("an ASCII text's sort key is its lower case (what the row writer writes for one without a lookup)", () => {
        const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
        for (const text of [...ascii, ascii.join(''), 'Saint-Etienne', 'PA7716', 'FL-075'])
            expect([text, encodeSortKey(text)]).toEqual([text, text.toLowerCase()]);
        expect(encodeSortKey('Straße')).toBe('strasse'); // not its lower case: why the shortcut stops at ASCII
    });
});

describe("the link's reply reader", () => {
    // Replies of every RESP2 kind a pipelined batch can get, UTF-8 included.
    const stream = Buffer.from(
        [
            ':3\r\n',
            '+OK\r\n',
            "-ERR wrong number of arguments for 'hset' command\r\n",
            ':-12\r\n',
            '$7\r\nMüller\r\n',
            '$0\r\n\r\n',
            '$-1\r\n',
            '*3\r\n:1\r\n$2\r\nab\r\n*2\r\n+x\r\n-WRONGTYPE inner\r\n',
            '*0\r\n',
            '*-1\r\n',
            '-Document already exists\r\n',
            ':1234567890123\r\n',
        ].join(''),
        'utf8',
    );
    type Seen = ['value', unknown] | ['error', string];
    /** What node-redis's own decoder (RESP2, no type mapping: what the link used before) makes of a stream. */
    const expected = (bytes: Buffer = stream): Seen[] => {
        const seen: Seen[] = [];
        const decoder = new Decoder({
            onReply: (value: unknown) => seen.push(['value', value]),
            onErrorReply: (error: Error) => seen.push(['error', error.message]),
            onPush: () => undefined,
            getTypeMapping: () => ({}),
        });
        decoder.write(bytes);
        return seen;
    };
    const read = (chunks: Buffer[]): Seen[] => {
        const seen: Seen[] = [];
        const reader = new RespReplyReader(
            (value) => seen.push(['value', value]),
            (message) => seen.push(['error', message]),
        );
        for (const chunk of chunks) {
            // The caller may reuse its buffer once `write` returns: hand over a copy and scribble on it afterwards.
            const copy = Buffer.from(chunk);
            reader.write(copy);
            copy.fill(0x21);
        }
        return seen;
    };
    const normalise = (seen: Seen[]): unknown =>
        JSON.parse(
            JSON.stringify(seen, (_key, value: unknown) => (value instanceof Error ? `E:${value.message}` : value)),
        );

    test('reads what node-redis decodes, in one chunk or cut at any byte', () => {
        const want = normalise(expected());
        expect((want as unknown[]).length).toBe(12);
        expect(normalise(read([stream]))).toEqual(want);
        for (let cut = 1; cut < stream.length; cut++)
            expect(normalise(read([stream.subarray(0, cut), stream.subarray(cut)]))).toEqual(want);
        // One byte at a time.
        expect(normalise(read([...stream].map((byte) => Buffer.of(byte))))).toEqual(want);
    });

    test('a long reply (an FT.SEARCH answer) cut into many chunks: nested arrays and bulk strings read on across chunks', () => {
        const rows = Array.from(
            { length: 5_000 },
            (_, i) =>
                `$${`k:${i}`.length}\r\nk:${i}\r\n*4\r\n$4\r\nname\r\n$${Buffer.byteLength(`Müller ${i}`)}\r\nMüller ${i}\r\n$3\r\nage\r\n:${i}\r\n`,
        );
        const big = 'x'.repeat(300_000);
        const long = Buffer.from(
            `*${1 + 2 * rows.length}\r\n:${rows.length}\r\n${rows.join('')}$${big.length}\r\n${big}\r\n+OK\r\n*1\r\n*1\r\n*0\r\n`,
            'utf8',
        );
        const want = normalise(expected(long));
        expect((want as unknown[]).length).toBe(4);
        for (const size of [1_000, 4_096, 65_536]) {
            const chunks: Buffer[] = [];
            for (let at = 0; at < long.length; at += size) chunks.push(long.subarray(at, at + size));
            expect(normalise(read(chunks))).toEqual(want);
        }
    });

    test('a byte that starts no reply throws', () => {
        const reader = new RespReplyReader(
            () => undefined,
            () => undefined,
        );
        expect(() => reader.write(Buffer.from('hello\r\n'))).toThrow(/not a RESP reply/);
    });
});
