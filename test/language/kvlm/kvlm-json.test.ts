import { describe, expect, test } from '@jest/globals';
import { kvlmFromJson, kvlmToJson, validateKvlmJson, type KvlmJson } from '../../../src/language/kvlm/kvlm-json.js';
import { printKvlm } from '../../../src/language/kvlm/kvlm-printer.js';
import { fixtureCanonical, parseKvlm, parseValidKvlmSyntax } from './kvlm-test-helpers.js';

async function fixtureJson(): Promise<KvlmJson> {
    return kvlmToJson(await parseValidKvlmSyntax(fixtureCanonical));
}

describe('the JSON form of KVLM', () => {
    test('the fixture converts to plain data that validates against schemas/kvlm.schema.json', async () => {
        const json = await fixtureJson();
        expect(validateKvlmJson(json)).toEqual([]);
        expect(JSON.stringify(json)).not.toContain('"$');
        expect(json.merge).toEqual({ policy: 'safe', threshold: 0.8 });
        expect(json.collections[0].key).toEqual({
            field: 'Q3_passengersOfGivenFlight_id',
            strategy: 'natural',
            parts: [
                { node: 'Passenger', attribute: 'idPassport' },
                { node: 'FL', attribute: 'code' },
            ],
        });
        expect(json.collections[0].queries[0].where).toEqual({
            kind: 'comparison',
            field: 'FL_code',
            operator: '=',
            value: { kind: 'param', name: 'code' },
        });
        expect(json.decisions).toEqual([
            {
                left: 'Q4_passengersDepartingGivenCountry',
                right: 'Q5_passengersDepartingGivenPeriod',
                result: 'Q4_passengersDepartingGivenCountry_Q5_passengersDepartingGivenPeriod',
                common: 10,
                leftSize: 11,
                rightSize: 11,
            },
        ]);
    });

    test('JSON → AST → print gives back the fixture text, and survives a JSON.stringify round trip', async () => {
        const json = JSON.parse(JSON.stringify(await fixtureJson())) as KvlmJson;
        expect(printKvlm(kvlmFromJson(json))).toBe(fixtureCanonical);
    });

    test('the AST built from JSON resolves references by name and sets $container, so the validator accepts it', async () => {
        const model = kvlmFromJson(await fixtureJson());
        const collection = model.collections[1];
        const field = collection.fields[0];
        expect(field.$container).toBe(collection);
        expect(field.node.ref).toBe(collection.nodes[1]);
        expect(field.roles[0].queries[0].ref).toBe(collection.queries[0]);
        const comparison = collection.queries[0].where;
        expect(comparison?.$type).toBe('KBinaryExpression');
    });

    test('the printed JSON model parses and validates without errors', async () => {
        const document = await parseKvlm(printKvlm(kvlmFromJson(await fixtureJson())));
        expect(document.diagnostics?.filter((d) => d.severity === 1)).toEqual([]);
    });

    test('a missing property is reported at its own pointer', async () => {
        const json = (await fixtureJson()) as unknown as { collections: Record<string, unknown>[] };
        delete json.collections[1].root;
        expect(validateKvlmJson(json)).toEqual([
            { pointer: '/collections/1/root', message: "/collections/1 is missing the required property 'root'." },
        ]);
    });

    test('a wrong enum value, a bad name and an unknown property are each reported where they are', async () => {
        const json = (await fixtureJson()) as unknown as KvlmJson;
        (json.collections[0].fields[2] as { type: string }).type = 'string';
        json.collections[1].nodes[0].name = '1FL';
        (json.collections[0].queries[0] as unknown as Record<string, unknown>).limit = 10;
        expect(validateKvlmJson(json)).toEqual([
            {
                pointer: '/collections/0/fields/2/type',
                message:
                    '/collections/0/fields/2/type must be one of "text", "int", "float", "boolean", "date", "time", "datetime".',
            },
            {
                pointer: '/collections/0/queries/0/limit',
                message: "/collections/0/queries/0 has an unknown property 'limit'.",
            },
            {
                pointer: '/collections/1/nodes/0/name',
                message:
                    "/collections/1/nodes/0/name must be a name: letters, digits and '_', not starting with a digit.",
            },
        ]);
    });

    test('inside a filter, errors follow the kind of the expression', async () => {
        const json = await fixtureJson();
        json.collections[1].queries[0].where = {
            kind: 'and',
            left: {
                kind: 'comparison',
                field: 'FL_departureDate',
                operator: '<>' as never,
                value: { kind: 'param', name: 'departureDate' },
            },
            right: { kind: 'not' } as never,
        };
        expect(validateKvlmJson(json)).toEqual([
            {
                pointer: '/collections/1/queries/0/where/left/operator',
                message: '/collections/1/queries/0/where/left/operator must be one of "=", "!=", "<", "<=", ">", ">=".',
            },
            {
                pointer: '/collections/1/queries/0/where/right/operand',
                message: "/collections/1/queries/0/where/right is missing the required property 'operand'.",
            },
        ]);
    });

    test('a merge decision needs a result or a reason, not both', async () => {
        const json = await fixtureJson();
        const decision = json.decisions[0] as Record<string, unknown>;
        delete decision.result;
        expect(validateKvlmJson(json)).toEqual([
            {
                pointer: '/decisions/0/refusedBecause',
                message: "/decisions/0 is missing the required property 'refusedBecause'.",
            },
        ]);
        decision.result = 'X';
        decision.refusedBecause = 'grain';
        expect(validateKvlmJson(json)).toEqual([
            { pointer: '/decisions/0/refusedBecause', message: '/decisions/0/refusedBecause is not allowed here.' },
        ]);
    });

    test('a model that is not an object is reported at the root pointer', () => {
        expect(validateKvlmJson(42)).toEqual([{ pointer: '', message: 'the model must be of type object.' }]);
    });
});
