import { describe, expect, test } from '@jest/globals';
import { loadTexts } from '../../src/pipeline/load.js';
import { instanceDataSchema, parseInstanceData, validateInstanceData } from '../../src/runtime/instance-data.js';
import { buildRuntimeModel, type RuntimeModel } from '../../src/runtime/runtime-model.js';

const MODEL = `
entity Passenger { id idPassport  firstname text  birthdate date  ref Flight[*] flights  ref Seat[0..1] seat }
entity Flight { id code  level int  departureTime time  ref Airport[1] origin  ref Passenger[1..*] crew }
entity Airport { id codeCAO  city text }
entity Seat { row int  ref Flight[1] flight }
`;

async function model(): Promise<RuntimeModel> {
    const workspace = await loadTexts([{ path: 'm.pidm', text: MODEL }]);
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
        expect(validateInstanceData(await model(), valid(), 'data.json')).toEqual([]);
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
        expect(validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[2] (id "P13").flights[1]: Flight "F1" is listed twice (first at flights[0])',
            'data.json: Passenger[2] (id "P13").flights[2]: unknown Flight "F999"',
        ]);
    });

    test('a duplicate id points at the first object with that id', async () => {
        const data = valid();
        data.Airport.push({ codeCAO: 'A1', city: 'Rome' });
        expect(validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Airport[1] (id "A1").codeCAO: duplicate id "A1" (first at Airport[0])',
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
        expect(validateInstanceData(await model(), data, 'data.json').sort()).toEqual([
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
        expect(validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[0] (id "P1").birthdate: "2001-02-29" is not a calendar date',
        ]);
    });

    test('years 0001-0099 are dates (Date.UTC would read them as 1900-1999); year 0000 is not', async () => {
        const data = valid();
        data.Passenger[0].birthdate = '0001-01-01';
        data.Passenger[1].birthdate = '0099-12-31';
        expect(validateInstanceData(await model(), data, 'data.json')).toEqual([]);
        data.Passenger[1].birthdate = '0000-06-01';
        expect(validateInstanceData(await model(), data, 'data.json')).toEqual([
            'data.json: Passenger[1] (id "P12").birthdate: "0000-06-01" is not a calendar date',
        ]);
    });

    test('a required list that is empty, and a required single reference that is a list, are errors', async () => {
        const data = valid();
        data.Flight[0].crew = [];
        data.Seat[0].flight = ['F1'];
        expect(validateInstanceData(await model(), data, 'data.json').sort()).toEqual([
            'data.json: Flight[0] (id "F1").crew: must list at least 1 identifiers',
            'data.json: Seat[0] (id "s1").flight: must be string',
        ]);
    });

    test('text that is not JSON is reported with the file name', async () => {
        expect(() => parseInstanceData('{"Passenger": [', { entities: new Map() }, 'data.json')).toThrow(
            /^data\.json: not valid JSON/,
        );
    });
});
