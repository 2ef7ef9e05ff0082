import { describe, expect, test } from '@jest/globals';
import type {
    Collection,
    Field,
    KvlmModel,
    Parameter,
    RootNode,
    ServedQuery,
} from '../../../src/language/generated/ast.js';
import { formatKvlmNumber, printKvlm, quoteKvlmString } from '../../../src/language/kvlm/kvlm-printer.js';
import { fixtureCanonical, parseKvlm, parseValidKvlmSyntax } from './kvlm-test-helpers.js';

/** A reference as the transformation builds it: a target and the name to print. */
function ref<T extends { name: string }>(target: T, text = target.name): { ref: T; $refText: string } {
    return { ref: target, $refText: text };
}

/** A small model built in memory, without `$container`, the way the transformation builds one. */
function inMemoryModel(names: {
    collection: string;
    node: string;
    field: string;
    query: string;
    param: string;
}): KvlmModel {
    const root = { $type: 'RootNode', entity: 'Flight', name: names.node } as unknown as RootNode;
    const query = {
        $type: 'ServedQuery',
        name: names.query,
        params: [],
        sortKeys: [],
        projections: [],
    } as unknown as ServedQuery;
    const param = { $type: 'Parameter', name: names.param, type: 'text' } as unknown as Parameter;
    const field = {
        $type: 'Field',
        name: names.field,
        type: 'text',
        node: ref(root),
        attribute: 'code',
        label: 'F.code',
        indexed: false,
        roles: [
            { $type: 'FieldRole', kind: 'filtered', queries: [ref(query)] },
            { $type: 'FieldRole', kind: 'projected', queries: [{ ref: query, $refText: '' }] },
        ],
    } as unknown as Field;
    Object.assign(query, {
        params: [param],
        where: {
            $type: 'KComparison',
            field: ref(field),
            operator: '=',
            value: { $type: 'ParameterRef', parameter: ref(param) },
        },
        projections: [{ $type: 'KProjection', field: ref(field), label: 'F.code' }],
    });
    const collection = {
        $type: 'Collection',
        name: names.collection,
        keyField: `${names.collection}_id`,
        strategy: { $type: 'NaturalKey', parts: [{ $type: 'KeyPart', node: ref(root), attribute: 'code' }] },
        root,
        nodes: [],
        fields: [field],
        queries: [query],
    } as unknown as Collection;
    return { $type: 'KvlmModel', name: 'db', collections: [collection], decisions: [] } as unknown as KvlmModel;
}

describe('printKvlm', () => {
    test('the contract fixture prints exactly as written (without its comment)', async () => {
        const model = await parseValidKvlmSyntax(fixtureCanonical);
        expect(printKvlm(model)).toBe(fixtureCanonical);
    });

    test('an AST built in memory without $container prints, taking names from $refText or else the target', () => {
        const model = inMemoryModel({ collection: 'Q1', node: 'F', field: 'F_code', query: 'Q1', param: 'code' });
        expect(printKvlm(model)).toBe(
            [
                'database db',
                '',
                'collection Q1 {',
                '    key Q1_id natural(F.code)',
                '    from Flight as F',
                '    field F_code: text = F.code label "F.code" projected(Q1) filtered(Q1)',
                '    query Q1 {',
                '        param code: text',
                '        where F_code = ?code',
                '        select F_code as "F.code"',
                '    }',
                '}',
                '',
            ].join('\n'),
        );
    });

    test('names spelled like KVLM keywords print and parse back', async () => {
        const model = inMemoryModel({
            collection: 'collection',
            node: 'from',
            field: 'where',
            query: 'query',
            param: 'param',
        });
        const text = printKvlm(model);
        expect(text).toContain('    field where: text = from.code label "F.code" projected(query) filtered(query)');
        const reparsed = await parseKvlm(text);
        expect(reparsed.parseResult.parserErrors).toEqual([]);
        expect(printKvlm(reparsed.parseResult.value)).toBe(text);
        expect(reparsed.diagnostics?.filter((d) => d.severity === 1)).toEqual([]);
    });

    test('labels and reasons with quotes, backslashes, control characters and unicode are escaped and read back unchanged', async () => {
        const tricky = 'a "quoted" \\ back\\slash\ttab\nnewline\r\u0000 – ünïcødé 🚀 \'single\'';
        const text = [
            'database d',
            '',
            'collection C {',
            '    key C_id counter',
            '    from E as E',
            `    field f: text = E.a label ${quoteKvlmString(tricky)} projected(Q)`,
            '    query Q {',
            `        where f = ${quoteKvlmString(tricky)}`,
            `        select f as ${quoteKvlmString(tricky)}`,
            '    }',
            '}',
            '',
            `merge A + B refused ${quoteKvlmString(tricky)} common 1 of 2 and 3`,
            '',
        ].join('\n');
        const model = await parseValidKvlmSyntax(text);
        const field = model.collections[0].fields[0];
        expect(field.label).toBe(tricky);
        expect(model.decisions[0].reason).toBe(tricky);
        expect(printKvlm(model)).toBe(text);
    });

    test('strings are double-quoted with backslash escapes', () => {
        expect(quoteKvlmString('say "hi" \\ now\n')).toBe('"say \\"hi\\" \\\\ now\\n"');
    });

    test('numbers never use an exponent, so the NUMBER terminal accepts them', () => {
        expect(formatKvlmNumber(0.8)).toBe('0.8');
        expect(formatKvlmNumber(12)).toBe('12');
        expect(formatKvlmNumber(1e-7)).toBe('0.0000001');
        expect(formatKvlmNumber(1.5e-7)).toBe('0.00000015');
        expect(formatKvlmNumber(1e21)).toBe('1000000000000000000000');
        expect(formatKvlmNumber(1.25e22)).toBe('12500000000000000000000');
        expect(() => formatKvlmNumber(-1)).toThrow(/not a non-negative finite number/);
    });

    test('an in-memory filter that nests `or` under `and` without a group gets parentheses, so it keeps its meaning', () => {
        const model = inMemoryModel({ collection: 'Q1', node: 'F', field: 'f', query: 'Q1', param: 'p' });
        const query = model.collections[0].queries[0];
        const field = model.collections[0].fields[0];
        const cmp = (value: number) => ({
            $type: 'KComparison',
            field: ref(field),
            operator: '<',
            value: { $type: 'KNumberValue', negative: value < 0, value: Math.abs(value) },
        });
        Object.assign(query, {
            where: {
                $type: 'KBinaryExpression',
                operator: 'and',
                left: {
                    $type: 'KNotExpression',
                    operand: { $type: 'KBinaryExpression', operator: 'and', left: cmp(1), right: cmp(2) },
                },
                right: {
                    $type: 'KBinaryExpression',
                    operator: 'or',
                    left: cmp(-3.5),
                    right: { ...cmp(4), operator: '=', value: { $type: 'KBooleanValue', value: 'true' } },
                },
            },
        });
        expect(printKvlm(model)).toContain('        where not (f < 1 and f < 2) and (f < -3.5 or f = true)');
    });

    test('a name that is not an identifier is refused with a message naming it', () => {
        const model = inMemoryModel({ collection: 'Q 1', node: 'F', field: 'f', query: 'Q1', param: 'p' });
        expect(() => printKvlm(model)).toThrow('printKvlm: "Q 1" is not a valid collection name');
    });

    test('a reference with neither text nor target is refused, not printed empty', () => {
        const model = inMemoryModel({ collection: 'Q1', node: 'F', field: 'f', query: 'Q1', param: 'p' });
        Object.assign(model.collections[0].fields[0], { node: { ref: undefined, $refText: '' } });
        expect(() => printKvlm(model)).toThrow('printKvlm: a reference to a field node has neither text nor target.');
    });

    test('merge header, refused and accepted decisions print in the fixture style', async () => {
        const text = [
            'database d',
            'source "x.pidm"',
            'merge paper threshold 0.75',
            '',
            'merge A + B -> A_B common 3 of 4 and 4',
            'merge A + C refused "grain differs" common 3 of 3 and 3',
            '',
        ].join('\n');
        expect(printKvlm(await parseValidKvlmSyntax(text))).toBe(text);
    });
});
