/**
 * What JSON.parse lets through or words badly is refused in the data file's text, at its `line:col`, with a code,
 * before anything is written: bytes that are not UTF-8, escaped lone surrogates, repeated keys, syntax errors
 * (without quoting the file's control characters), and empty identifiers. A byte-order mark is accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isKvmodError } from '../../src/pipeline/errors.js';
import { parseJsonDocument } from '../../src/pipeline/json-file.js';
import { findJsonTextProblems, locateJsonValue, quoteText } from '../../src/pipeline/json-text.js';
import { loadTexts } from '../../src/pipeline/load.js';
import { parseInstanceData, readInstanceData, validateInstanceData } from '../../src/runtime/instance-data.js';
import { buildRuntimeModel, type RuntimeModel } from '../../src/runtime/runtime-model.js';

const MODEL = `
entity Person { id code  name text  ref Town[1] town }
entity Town { id name }
`;

let dir: string;
let model: RuntimeModel;

beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kvmod-data-text-'));
    const workspace = await loadTexts([{ path: 'm.pidm', text: MODEL }]);
    expect(workspace.hasErrors).toBe(false);
    model = buildRuntimeModel(workspace.pidm.map((entry) => entry.model));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The data of one person in one town, as text, with `name` written as given (already JSON). */
function data(name: string): string {
    return `{\n "Town": [{ "name": "Oslo" }],\n "Person": [\n  { "code": "P1", "name": ${name}, "town": "Oslo" }\n ]\n}\n`;
}

/** The KvmodError a promise rejects with: its code and message. */
async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
    try {
        await promise;
    } catch (error) {
        if (!isKvmodError(error)) throw error;
        return { code: error.code, message: error.message };
    }
    throw new Error('expected a KvmodError');
}

function file(name: string, content: string | Buffer): string {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
}

describe('data text refused at its position', () => {
    test('an escaped lone surrogate (stored as U+FFFD) is data.lone-surrogate at the escape', async () => {
        expect(await refusal(parseInstanceData(data('"Wil\\ud800son"'), model, 'd.json'))).toEqual({
            code: 'data.lone-surrogate',
            message:
                'd.json:4:31: \\ud800 is a high surrogate without the low one after it: it is no character, and a store would keep U+FFFD in its place (write the character, or both halves of its pair)',
        });
        expect((await refusal(parseInstanceData(data('"x\\uDC00"'), model, 'd.json'))).message).toMatch(
            /^d\.json:4:29: \\udc00 is a low surrogate without the high one before it/,
        );
        // A pair is a character, and an escaped backslash before `ud800` is no escape.
        expect(await parseInstanceData(data('"\\ud83d\\ude00 \\\\ud800"'), model, 'd.json')).toBeDefined();
    });

    test('bytes that are not UTF-8 are data.encoding at the first of them, line and column in characters', async () => {
        // A Latin-1 `ë` (0xEB) where UTF-8 needs two bytes.
        const latin1 = file('latin1.json', Buffer.from(data('"Zoë"'), 'latin1'));
        expect(await refusal(readInstanceData(latin1, model))).toEqual({
            code: 'data.encoding',
            message: `${latin1}:4:30: the file is not UTF-8 text: byte 0xeb is not part of a UTF-8 character (save the file as UTF-8)`,
        });
        // An encoded surrogate (CESU-8) is not UTF-8 either, nor a file cut inside a character.
        const cesu = file(
            'cesu.json',
            Buffer.concat([Buffer.from('{"Town": [{"name": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}]}')]),
        );
        expect((await refusal(readInstanceData(cesu, model))).message).toBe(
            `${cesu}:1:21: the file is not UTF-8 text: byte 0xed is not part of a UTF-8 character (save the file as UTF-8)`,
        );
    });

    test('a key given twice in one object is data.duplicate-key at the second, also when spelled with an escape', async () => {
        const text = data('"Ann", "name": "Bob"');
        expect(await refusal(parseInstanceData(text, model, 'd.json'))).toEqual({
            code: 'data.duplicate-key',
            message:
                'd.json:4:34: the key "name" is given twice in this object, and JSON keeps only the last (first at 4:19)',
        });
        expect((await refusal(parseInstanceData(data('"Ann", "n\\u0061me": "Bob"'), model, 'd.json'))).message).toMatch(
            /^d\.json:4:34: the key "name" is given twice .* \(first at 4:19\)$/,
        );
        // Entities too, and a key of the same name in another object is no repeat.
        const entities = '{"Town": [], "Person": [], "Town": [{"name": "a"}, {"name": "b"}]}';
        expect((await refusal(parseInstanceData(entities, model, 'd.json'))).message).toBe(
            'd.json:1:28: the key "Town" is given twice in this object, and JSON keeps only the last (first at 1:2)',
        );
    });

    test('an object of many keys is searched for a repeated one by key', () => {
        const keys = Array.from({ length: 2000 }, (_, i) => `"k${i}": ${i}`);
        expect(findJsonTextProblems(`{${keys.join(',')}}`)).toEqual([]);
        const problems = findJsonTextProblems(`{${keys.join(',')}, "k7": 0}`);
        expect(problems.map((p) => p.code)).toEqual(['data.duplicate-key']);
    });

    test('a syntax error is data.syntax at its position, and no control character of the file is printed', async () => {
        const text = '{ "Town": [ \u001b[31m\u009b ] }';
        const error = await refusal(parseInstanceData(text, model, 'd.json'));
        expect(error).toEqual({ code: 'data.syntax', message: 'd.json:1:13: not valid JSON: invalid symbol' });
        expect(error.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    });

    test('a byte-order mark is accepted, as JSON tools do', async () => {
        const path = file('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(data('"Ann"'))]));
        expect((await readInstanceData(path, model)).Person[0].name).toBe('Ann');
        expect((await parseInstanceData('\ufeff' + data('"Ann"'), model, 'd.json')).Person[0].name).toBe('Ann');
    });

    test('an empty identifier is refused at its value, for every target', async () => {
        const text = data('"Ann"').replace('"code": "P1"', '"code": ""');
        expect(await refusal(parseInstanceData(text, model, 'd.json'))).toEqual({
            code: 'data.invalid',
            message:
                'd.json does not fit the model:\nd.json:4:13: Person[0].code: the identifier is empty; every object needs one (its keys and the references to it are made of it)',
        });
        // Without the text (data given as values), the problem names the file.
        expect(await validateInstanceData(model, JSON.parse(text), 'd.json')).toEqual([
            'd.json: Person[0].code: the identifier is empty; every object needs one (its keys and the references to it are made of it)',
        ]);
    });

    test('values quoted in messages have their control characters escaped', async () => {
        const text = data('"Ann"').replace('"town": "Oslo"', '"town": "Os\\u009b\\u001b[2Jlo"');
        const error = await refusal(parseInstanceData(text, model, 'd.json'));
        expect(error.message).toBe(
            'd.json does not fit the model:\nd.json: Person[0] (id "P1").town: unknown Town "Os\\u009b\\u001b[2Jlo"',
        );
        expect(quoteText('a\u007f\u202eb\u2028')).toBe('"a\\u007f\\u202eb\\u2028"');
    });

    test('locateJsonValue finds a value by keys and indexes, through strings holding quotes and brackets', () => {
        const text = '{ "a\\"]": [1, "x}\\\\", {"b": [ {}, true ]}], "c": {"d" : null} }';
        expect(text.slice(locateJsonValue(text, ['a"]', 2, 'b', 1]))).toMatch(/^true/);
        expect(text.slice(locateJsonValue(text, ['c', 'd']))).toMatch(/^null/);
        expect(locateJsonValue(text, ['nope'])).toBe(0);
    });
});

describe('hand-written JSON files (config, data spec)', () => {
    const schema = { type: 'object' };

    test('a byte-order mark is accepted', () => {
        expect(parseJsonDocument('\ufeff{"a": 1}', 'c.json', schema, 'c.code').value).toEqual({ a: 1 });
    });

    test('a repeated key is refused at the second, with the file code', () => {
        expect(() => parseJsonDocument('{"a": 1,\n "a": 2}', 'c.json', schema, 'c.code')).toThrow(
            "c.json:2:2: the key 'a' is given twice in this object, and JSON keeps only the last (first at 1:2)",
        );
    });
});
