import { describe, expect, test } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTexts } from '../../src/pipeline/load.js';
import {
    instanceDataSchema,
    modelCheck,
    parseInstanceData,
    readInstanceText,
    validateInstanceData,
} from '../../src/runtime/instance-data.js';
import { buildRuntimeModel, type RuntimeModel } from '../../src/runtime/runtime-model.js';

const MODEL = `
entity Passenger { id idPassport  firstname text  birthdate date  ref Flight[*] flights  ref Seat[0..1] seat }
entity Flight { id code  level int  departureTime time  ref Airport[1] origin  ref Passenger[1..*] crew }
entity Airport { id codeCAO  city text }
entity Seat { row int  ref Flight[1] flight }
`;

/** Numeric ids (references to them take numbers too), floats, booleans, datetimes, a bounded list. */
const NUMERIC_MODEL = `
entity Gate { id number int  width float  open boolean  at datetime  ref Lane[1..3] lanes  ref Lane[0..1] spare }
entity Lane { id n int  name text }
`;

async function model(text = MODEL): Promise<RuntimeModel> {
    const workspace = await loadTexts([{ path: 'm.pidm', text }]);
    expect(workspace.hasErrors).toBe(false);
    return buildRuntimeModel(workspace.pidm.map((entry) => entry.model));
}

function valid(): Record<string, Record<string, unknown>[]> {
    return {
        Passenger: [
            { idPassport: 'P1', firstname: 'Mary', birthdate: '1970-01-31', flights: ['F1'], seat: null },
            { idPassport: 'P12', firstname: '', birthdate: '2000-02-29', flights: [] },
        ],
        Flight: [{ code: 'F1', level: 3, departureTime: '23:59:59', origin: 'A1', crew: ['P1'] }],
        Airport: [{ codeCAO: 'A1', city: 'Paris' }],
        Seat: [{ _id: 's1', row: 4, flight: 'F1' }],
    };
}

describe('instance data', () => {
    test('data that fits the model has no problems', async () => {
        expect(await validateInstanceData(await model(), valid(), 'data.json')).toEqual([]);
    });

    test('the schema types each attribute and reference by its declaration', async () => {
        const schema = instanceDataSchema(await model()) as {
            $defs: Record<string, { properties: Record<string, unknown>; required: string[] }>;
        };
        expect(schema.$defs.Passenger.properties.birthdate).toEqual({
            type: 'string',
            pattern: '^(\\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
        });
        expect(schema.$defs.Passenger.properties.seat).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
        expect(schema.$defs.Flight.properties.crew).toEqual({ type: 'array', items: { type: 'string' }, minItems: 1 });
        expect(schema.$defs.Seat.required).toEqual(['_id', 'row', 'flight']);
    });

    test('a dangling reference names the entity, the object, the field and the position', async () => {
        const data = valid();
        data.Passenger.push({
            idPassport: 'P13',
            firstname: 'x',
            birthdate: '1999-01-01',
            flights: ['F1', 'F1', 'F999'],
        });
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[2] (id "P13").flights[1]: Flight "F1" is listed twice (first at flights[0])',
            'data.json: Passenger[2] (id "P13").flights[2]: unknown Flight "F999"',
        ]);
    });

    test('a duplicate id points at the first object with that id', async () => {
        const data = valid();
        data.Airport.push({ codeCAO: 'A1', city: 'Rome' });
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Airport[1] (id "A1").codeCAO: duplicate id "A1" (first at Airport[0])',
        ]);
    });

    test('every duplicate id points at the first object with it, in any order', async () => {
        const data = valid();
        for (const code of ['A2', 'A1', 'A3', 'A2', 'A1', 'A4', 'A3'])
            data.Airport.push({ codeCAO: code, city: code === 'A1' ? 'Rome' : 'x' });
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Airport[2] (id "A1").codeCAO: duplicate id "A1" (first at Airport[0])',
            'data.json: Airport[4] (id "A2").codeCAO: duplicate id "A2" (first at Airport[1])',
            'data.json: Airport[5] (id "A1").codeCAO: duplicate id "A1" (first at Airport[0])',
            'data.json: Airport[7] (id "A3").codeCAO: duplicate id "A3" (first at Airport[3])',
        ]);
    });

    test('wrong types, bad dates, missing and unknown fields are schema errors at their place', async () => {
        const data = valid() as Record<string, Record<string, unknown>[]> & { Pilot?: unknown[] };
        data.Flight[0].level = 'high';
        data.Flight[0].departureTime = '24:00:00';
        data.Passenger[1].birthdate = '2000-13-01';
        delete data.Flight[0].origin;
        data.Airport[0].town = 'Paris';
        data.Pilot = [];
        expect((await validateInstanceData(await model(), data, 'data.json')).sort()).toEqual([
            'data.json: (top level): unknown entity "Pilot"',
            'data.json: Airport[0] (id "A1"): unknown field "town"',
            'data.json: Flight[0] (id "F1").departureTime: must be a time HH:MM:SS',
            'data.json: Flight[0] (id "F1").level: must be integer',
            'data.json: Flight[0] (id "F1").origin: is missing',
            'data.json: Passenger[1] (id "P12").birthdate: must be a date YYYY-MM-DD',
        ]);
    });

    test('a date that matches the pattern but not the calendar is an error', async () => {
        const data = valid();
        data.Passenger[0].birthdate = '2001-02-29';
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[0] (id "P1").birthdate: "2001-02-29" is not a calendar date',
        ]);
    });

    test('years 0001-0099 are dates (Date.UTC would read them as 1900-1999); year 0000 is not', async () => {
        const data = valid();
        data.Passenger[0].birthdate = '0001-01-01';
        data.Passenger[1].birthdate = '0099-12-31';
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([]);
        data.Passenger[1].birthdate = '0000-06-01';
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[1] (id "P12").birthdate: "0000-06-01" is not a calendar date',
        ]);
    });

    test('a required list that is empty, and a required single reference that is a list, are errors', async () => {
        const data = valid();
        data.Flight[0].crew = [];
        data.Seat[0].flight = ['F1'];
        expect((await validateInstanceData(await model(), data, 'data.json')).sort()).toEqual([
            'data.json: Flight[0] (id "F1").crew: must list at least 1 identifiers',
            'data.json: Seat[0] (id "s1").flight: must be string',
        ]);
    });

    test('the plain schema check accepts exactly what ajv accepts', async () => {
        // Every field of every object made wrong in many ways (and the top level, the lists, the objects): the plain
        // check (which lets valid data skip ajv) and ajv must agree on each variant.
        const strange: unknown[] = [
            ...(JSON.parse(
                '[null, true, false, 0, -0, 1, -1, 1.5, 9007199254740992, -9007199254740992, 9007199254740991, ' +
                    '-9007199254740991, 1e300, 1e400, "", "x", "F1", "A1", "P1", "1", "2", "1970-01-31", "2000-02-30", ' +
                    '"1970-1-31", "1970-01-31T10:00:00", "1970-01-31T24:00:00", "23:59:59", "24:00:00", "7:00:00", ' +
                    '"23:59:59\\n", "١٩٧٠-01-31", [], ["F1"], ["F1", "F1"], [1], [1, 2, 3], [1, 2, 3, 4], ' +
                    '["1", 2], [null], [[]], [{}], {}, {"a": 1}]',
            ) as unknown[]),
            -Infinity,
            NaN,
        ];
        const cases: [string, unknown][] = [];
        const variants = (base: Record<string, Record<string, unknown>[]>, label: string): void => {
            cases.push([`${label} as it is`, base]);
            for (const top of [null, [], 'x', 1, { ...base, Extra: [] }, { ...base, __proto__: [] }])
                cases.push([`${label} top ${JSON.stringify(top)}`, top]);
            for (const entity of Object.keys(base)) {
                for (const list of [null, {}, 'x', [null], [[]], ['x'], [1]])
                    cases.push([`${label} ${entity} = ${JSON.stringify(list)}`, { ...base, [entity]: list }]);
                const { [entity]: _omitted, ...without } = base;
                cases.push([`${label} without ${entity}`, without]);
                base[entity].forEach((object, index) => {
                    const names = new Set([...Object.keys(object), 'unknown', 'constructor', 'toString', '__proto__']);
                    for (const name of names) {
                        const { [name]: _dropped, ...rest } = object;
                        const variantsOf = [rest, ...strange.map((value) => ({ ...object, [name]: value }))];
                        for (const changed of variantsOf) {
                            const copy = structuredClone(base);
                            copy[entity][index] = structuredClone(changed) as Record<string, unknown>;
                            if (name === '__proto__' && changed !== rest)
                                Object.defineProperty(copy[entity][index], name, {
                                    value: (changed as Record<string, unknown>)[name],
                                    enumerable: true,
                                });
                            cases.push([`${label} ${entity}[${index}].${name} = ${JSON.stringify(changed)}`, copy]);
                        }
                    }
                });
            }
        };
        const models: [RuntimeModel, Record<string, Record<string, unknown>[]>][] = [
            [await model(), valid()],
            [
                await model(NUMERIC_MODEL),
                {
                    Gate: [
                        { number: 1, width: 2.5, open: true, at: '2020-02-29T12:00:00', lanes: [1, '2'], spare: null },
                        { number: 2, width: -1, open: false, at: '1999-12-31T23:59:59', lanes: [2] },
                    ],
                    Lane: [
                        { n: 1, name: 'a' },
                        { n: 2, name: 'b' },
                    ],
                },
            ],
        ];
        let accepted = 0;
        for (const [runtime, data] of models) {
            const ajv = new Ajv2020({ allErrors: true, strict: false }).compile(instanceDataSchema(runtime));
            cases.length = 0;
            variants(data, [...runtime.entities.keys()].join('+'));
            // The check the data check makes on its pass over the objects, read from the model, agrees with ajv.
            const fromModel = modelCheck(runtime);
            expect(fromModel).toBeDefined();
            const modelDisagreements = cases
                .filter(([, value]) => fromModel!(value) !== ajv(value))
                .map(([label, value]) => `${label}: model ${fromModel!(value)}, ajv ${ajv(value)}`);
            expect(modelDisagreements).toEqual([]);
            // And the data check itself (the shapes checked on its pass over the objects, ajv only where they do not
            // fit) refuses what ajv refuses: nothing the schema refuses gets past its fast path. (One refused variant
            // in eight: each costs the check an ajv compilation.)
            const passed: string[] = [];
            for (const [label, value] of cases.filter(([, v]) => !ajv(v)).filter((_, i) => i % 8 === 0))
                if ((await validateInstanceData(runtime, value, 'd.json')).length === 0) passed.push(label);
            expect(passed).toEqual([]);
            accepted += cases.filter(([, value]) => ajv(value)).length;
            expect(cases.length).toBeGreaterThan(500);
        }
        expect(accepted).toBeGreaterThan(20); // the variants exercise acceptance as well as refusal
    });

    test('a float too large for a double (JSON.parse makes it Infinity) is refused, by the fast check and by ajv', async () => {
        const runtime = await model(NUMERIC_MODEL);
        const text = (width: string) =>
            `{"Gate":[{"number":1,"width":${width},"open":true,"at":"2020-02-29T12:00:00","lanes":[1]}],"Lane":[{"n":1,"name":"a"}]}`;
        expect(modelCheck(runtime)!(JSON.parse(text('1e308')))).toBe(true);
        expect(await validateInstanceData(runtime, JSON.parse(text('1e308')), 'd.json')).toEqual([]);
        for (const width of ['1e400', '-1e400']) {
            expect(modelCheck(runtime)!(JSON.parse(text(width)))).toBe(false);
            expect(await validateInstanceData(runtime, JSON.parse(text(width)), 'd.json')).toEqual([
                'd.json: Gate[0] (id "1").width: must be a finite number (this one is too large for a float)',
            ]);
        }
    });

    test('repeated elements of a long list (searched through a map) are reported as in a short one', async () => {
        const data = valid();
        const flights = Array.from({ length: 20 }, (_, i) => `F${i + 2}`);
        data.Flight.push(
            ...flights.map((code) => ({ code, level: 1, departureTime: '00:00:00', origin: 'A1', crew: ['P1'] })),
        );
        data.Passenger[1].flights = [...flights, 'F1', 'F3', 'F21', 'F3', 'F99'];
        data.Passenger[0].flights = ['F2', 'F3', 'F2', 'F3', 'F99', 'F2'];
        expect(await validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[0] (id "P1").flights[2]: Flight "F2" is listed twice (first at flights[0])',
            'data.json: Passenger[0] (id "P1").flights[3]: Flight "F3" is listed twice (first at flights[1])',
            'data.json: Passenger[0] (id "P1").flights[4]: unknown Flight "F99"',
            'data.json: Passenger[0] (id "P1").flights[5]: Flight "F2" is listed twice (first at flights[0])',
            'data.json: Passenger[1] (id "P12").flights[21]: Flight "F3" is listed twice (first at flights[1])',
            'data.json: Passenger[1] (id "P12").flights[22]: Flight "F21" is listed twice (first at flights[19])',
            'data.json: Passenger[1] (id "P12").flights[23]: Flight "F3" is listed twice (first at flights[1])',
            'data.json: Passenger[1] (id "P12").flights[24]: unknown Flight "F99"',
        ]);
    });

    test('identifiers repeated as a number and as its text are one id, in short and long lists', async () => {
        const gates = await model(NUMERIC_MODEL);
        const lanes = Array.from({ length: 20 }, (_, i) => ({ n: i + 1, name: `l${i}` }));
        const data = {
            Gate: [
                { number: 1, width: 1, open: true, at: '2020-01-01T00:00:00', lanes: [1, '1'] },
                { number: 2, width: 1, open: true, at: '2020-01-01T00:00:00', lanes: [3, '3', 3] },
            ],
            Lane: lanes,
        };
        expect(await validateInstanceData(gates, data, 'g.json')).toEqual([
            'g.json: Gate[0] (id "1").lanes[1]: Lane "1" is listed twice (first at lanes[0])',
            'g.json: Gate[1] (id "2").lanes[1]: Lane "3" is listed twice (first at lanes[0])',
            'g.json: Gate[1] (id "2").lanes[2]: Lane "3" is listed twice (first at lanes[0])',
        ]);
    });

    test('a data file is read whole: a regular file, an empty one, a pipe; what cannot be read is io.unreadable', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'kvmod-instance-text-'));
        try {
            const file = join(dir, 'data.json');
            const text = `{"Airport": [{"codeCAO": "é\u{1F600}"}]}${' '.repeat(600 * 1024)}`; // more than one 512 KB chunk
            writeFileSync(file, text);
            expect(await readInstanceText(file)).toBe(text);
            writeFileSync(join(dir, 'empty.json'), '');
            expect(await readInstanceText(join(dir, 'empty.json'))).toBe('');
            // A pipe has no size to read at once: it is read to its end (the writer is a child process).
            const pipe = join(dir, 'pipe.json');
            execFileSync('mkfifo', [pipe]);
            const writer = spawn('sh', ['-c', `printf '%s' '{"A": []}' > "${pipe}"`]);
            expect(await readInstanceText(pipe)).toBe('{"A": []}');
            writer.kill();
            await expect(readInstanceText(join(dir, 'missing.json'))).rejects.toThrow(
                `cannot read ${join(dir, 'missing.json')}: no such file`,
            );
            await expect(readInstanceText(dir)).rejects.toThrow(
                `cannot read ${dir}: EISDIR: illegal operation on a directory, read`,
            );
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });

    test('text that is not JSON is reported with the file name, line and column', async () => {
        await expect(parseInstanceData('{"Passenger": [', { entities: new Map() }, 'data.json')).rejects.toThrow(
            /^data\.json:1:16: not valid JSON: [a-z ]+$/,
        );
    });
});
