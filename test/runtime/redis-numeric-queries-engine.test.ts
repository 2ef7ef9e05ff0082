/**
 * Generated RediSearch 1.2 queries on the real engine, compared with the oracle's comparisons: random conditions over
 * a float, an int and a text field (`!=`, `not`, and/or), with parameters drawn from the stored values and beside them,
 * over rows of ints, floats, negatives and repeated values. Each condition goes through the KVLM, the Redis design
 * and `bindRedisCommand`, as `kvmod verify` sends it.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { bindRedisCommand } from '../../src/generation/redis/redis-commands.js';
import { unservableNumber } from '../../src/generation/shared/redis-number-rules.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { compares } from '../../src/runtime/oracle.js';
import { redisEngine } from '../../src/runtime/redisearch/redis-engine.js';
import { redisearchCollation } from '../../src/runtime/redisearch/redis-collation.js';
import { parseKvlm } from '../generation/generation-fixtures.js';
import { redisForFile } from '../support/redis-server.js';

const redis = redisForFile();

type FieldName = 'a' | 'b' | 't';
const TYPES = { a: 'float', b: 'int', t: 'text' } as const;
type Row = { id: string; a: number; b: number; t: string };
type Condition =
    | { kind: 'compare'; field: FieldName; operator: string; param: number }
    | { kind: 'not'; operand: Condition }
    | { kind: 'and' | 'or'; left: Condition; right: Condition };

/** Floats RediSearch 1.2 stores exactly (whole numbers, and values float32 holds or that lie 0.01 and more from it). */
const FLOATS = [-1e15 - 0.5, -40.25, -2.5, -1, 0, 0.25, 0.5, 3, 7.75, 123456789.123, 1e300];
const INTS = [-7, -1, 0, 1, 2, 5, 2000, Number.MAX_SAFE_INTEGER];
const TEXTS = ['red', 'Red', 'green', 'blue sky'];

const row = fc.record({
    a: fc.constantFrom(...FLOATS),
    b: fc.constantFrom(...INTS),
    t: fc.constantFrom(...TEXTS),
});

/** A condition tree whose leaves each compare with their own parameter (numbered later). */
const condition: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
    c: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.record({
            kind: fc.constant('compare' as const),
            field: fc.constantFrom<FieldName>('a', 'b'),
            operator: fc.constantFrom('=', '!=', '<', '<=', '>', '>='),
            param: fc.constant(0),
        }),
        fc.record({
            kind: fc.constant('compare' as const),
            field: fc.constant<FieldName>('t'),
            operator: fc.constantFrom('=', '!='),
            param: fc.constant(0),
        }),
        fc.record({ kind: fc.constant('not' as const), operand: tie('c') }),
        fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('c'), right: tie('c') }),
    ),
})).c;

function leaves(c: Condition): Extract<Condition, { kind: 'compare' }>[] {
    if (c.kind === 'compare') return [c];
    if (c.kind === 'not') return leaves(c.operand);
    return [...leaves(c.left), ...leaves(c.right)];
}

function kvlmWhere(c: Condition): string {
    switch (c.kind) {
        case 'compare':
            return `${c.field} ${c.operator} ?p${c.param}`;
        case 'not':
            return `not (${kvlmWhere(c.operand)})`;
        default:
            return `(${kvlmWhere(c.left)} ${c.kind} ${kvlmWhere(c.right)})`;
    }
}

/** The KVLM roles of a field in the query `Q` of a condition (it selects `a`). */
function roles(c: Condition, field: FieldName): string {
    const operators = leaves(c)
        .filter((leaf) => leaf.field === field)
        .map((leaf) => leaf.operator);
    return [
        field === 'a' ? 'projected(Q)' : '',
        operators.some((o) => o === '=' || o === '!=') ? 'filtered(Q)' : '',
        operators.some((o) => o !== '=' && o !== '!=') ? 'ranged(Q)' : '',
    ].join(' ');
}

/** The oracle: its comparison in RediSearch's collation, for every leaf. */
function holds(c: Condition, r: Row, params: Record<string, number | string>): boolean {
    switch (c.kind) {
        case 'compare':
            return compares(redisearchCollation, TYPES[c.field], r[c.field], c.operator, params[`p${c.param}`]!);
        case 'not':
            return !holds(c.operand, r, params);
        case 'and':
            return holds(c.left, r, params) && holds(c.right, r, params);
        case 'or':
            return holds(c.left, r, params) || holds(c.right, r, params);
    }
}

/** Writes the rows with the design's own commands and runs the condition's query; the ids the engine answers. */
async function engineAnswer(c: Condition, rows: Row[], params: Record<string, number | string>): Promise<string[]> {
    const kvlm = await parseKvlm(`database n
collection C {
    key C_id natural(E.id)
    from E as E
    ${(['a', 'b', 't'] as const).map((f) => `field ${f}: ${TYPES[f]} = E.${f} ${roles(c, f)}`).join('\n    ')}
    query Q {
        ${leaves(c)
            .map((leaf) => `param p${leaf.param}: ${TYPES[leaf.field]}`)
            .join('\n        ')}
        where ${kvlmWhere(c)}
        select a
    }
}
`);
    const collection = buildRedisViewModel(kvlm, { dialect: 'redisearch1' }).collections[0]!;
    await redis.client.sendCommand(['FLUSHALL']);
    await redis.client.sendCommand(bindRedisCommand(collection.create, {}));
    await redis.client.sendCommand(bindRedisCommand(collection.point, {}));
    for (const r of rows) await redis.client.sendCommand(bindRedisCommand(collection.insert, { E_id: r.id, ...r }));
    const query = collection.queries[0]!;
    const reply = (await redis.client.sendCommand(bindRedisCommand(query.command, params))) as unknown[];
    return reply
        .slice(1)
        .filter((_, i) => i % 2 === 0)
        .map((key) => String(key).slice(collection.keyPrefix.length))
        .sort();
}

describe('RediSearch 1.2 answers generated numeric conditions as the oracle does', () => {
    test('`!=` on a float: two ranges, every row but the equal ones (the engine NOT drops rows)', async () => {
        const c: Condition = { kind: 'compare', field: 'a', operator: '!=', param: 1 };
        const rows = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => ({ id: `r${n}`, a: n / 4, b: n, t: 'red' }));
        const answer = await engineAnswer(c, rows, { p1: 0.75 });
        expect(answer).toEqual(
            rows
                .filter((r) => r.a !== 0.75)
                .map((r) => r.id)
                .sort(),
        );
    });

    test('random conditions with `!=`, not, and/or, parameters present and absent in the rows', async () => {
        await fc.assert(
            fc.asyncProperty(
                fc.array(row, { minLength: 1, maxLength: 40 }),
                condition.filter((c) => leaves(c).length <= 6),
                fc.array(
                    fc.oneof(
                        fc.nat().map((n) => ({ present: n })),
                        fc.constantFrom(...FLOATS, ...INTS, -3.5, 1.5, 1e15).map((v) => ({ absent: v })),
                    ),
                    { minLength: 6, maxLength: 6 },
                ),
                async (values, c, draws) => {
                    const rows = values.map((v, i) => ({ id: `r${i}`, ...v }));
                    const params: Record<string, number | string> = {};
                    leaves(c).forEach((leaf, i) => {
                        leaf.param = i + 1;
                        // A stored row's value, or a value of its own (which may or may not be stored too).
                        const draw = draws[i]!;
                        const own = 'absent' in draw ? draw.absent : null;
                        const stored = rows['present' in draw ? draw.present % rows.length : 0]!;
                        if (leaf.field === 't') params[`p${i + 1}`] = own === null ? stored.t : 'violet';
                        else if (leaf.field === 'b') params[`p${i + 1}`] = own === null ? stored.b : Math.trunc(own);
                        else params[`p${i + 1}`] = own === null ? stored.a : own;
                    });
                    const expected = rows
                        .filter((r) => holds(c, r, params))
                        .map((r) => r.id)
                        .sort();
                    expect([kvlmWhere(c), await engineAnswer(c, rows, params)]).toEqual([kvlmWhere(c), expected]);
                },
            ),
            { numRuns: 150, seed: 27 },
        );
    }, 240_000);
});

/** The next double above (`step` 1) or below (-1) a finite one. */
function adjacent(value: number, step: 1 | -1): number {
    if (value === 0) return step * Number.MIN_VALUE;
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, value);
    view.setBigInt64(0, view.getBigInt64(0) + BigInt(value > 0 ? step : -step));
    return view.getFloat64(0);
}

const OPERATORS = ['=', '!=', '<', '<=', '>', '>='] as const;

/** One collection with a query per operator on the float `a`; rows written with the design's own commands. */
async function loadFloats(rows: { id: string; a: number }[]) {
    const kvlm = await parseKvlm(`database f
collection C {
    key C_id natural(E.id)
    from E as E
    field a: float = E.a projected(${OPERATORS.map((_, i) => `Q${i}`).join(', ')}) filtered(Q0, Q1) ranged(Q2, Q3, Q4, Q5)
${OPERATORS.map((o, i) => `    query Q${i} {\n        param x: float\n        where a ${o} ?x\n        select a\n    }`).join('\n')}
}
`);
    const collection = buildRedisViewModel(kvlm, { dialect: 'redisearch1' }).collections[0]!;
    await redis.client.sendCommand(['FLUSHALL']);
    await redis.client.sendCommand(bindRedisCommand(collection.create, {}));
    await redis.client.sendCommand(bindRedisCommand(collection.point, {}));
    for (const r of rows) await redis.client.sendCommand(bindRedisCommand(collection.insert, { E_id: r.id, a: r.a }));
    return async (operator: number, x: number): Promise<string[]> => {
        const reply = (await redis.client.sendCommand(
            bindRedisCommand(collection.queries[operator]!.command, { x }),
        )) as unknown[];
        return reply
            .slice(1)
            .filter((_, i) => i % 2 === 0)
            .map((key) => String(key).slice(collection.keyPrefix.length))
            .sort();
    };
}

/** Doubles of every kind: any bit pattern, short decimals (prices), quarters, integers, tiny and huge magnitudes. */
const anyFloat = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => n / 100),
    fc.integer({ min: -400_000, max: 400_000 }).map((n) => n / 4),
    fc.integer({ min: -1e9, max: 1e9 }),
    fc.constantFrom(0.1, 323.55, 1e-7, 5e-324, 2.2250738585072014e-308, 123456789.123, 1e300, -0),
);

describe('RediSearch 1.2 numbers: what data check passes, the engine serves', () => {
    test('the check refuses what the issue found (0.1, 323.55, 1e-7, a denormal) and nothing on redisearch2', () => {
        const rules = redisEngine.textRules({ dialect: 'redisearch1', dbPrefix: false, limit: 10000 });
        const refused = [0.1, 323.55, 1e-7, 5e-324, 19.99, -0.3].map((v) => rules.unservableNumber!(v));
        expect(refused.every((why) => why !== null)).toBe(true);
        expect(rules.unservableNumber!(0.1)).toBe(
            'RediSearch 1.2 indexes it as the 32-bit float 0.10000000149011612, so comparisons with it answer wrongly; use a value a 32-bit float holds exactly (a whole number, 0.25, 19.75) or the redisearch2 dialect',
        );
        for (const v of [0, -7, 0.25, -12.25, 19.75, 123456789.123, 1e300, 2 ** 70, Number.MAX_VALUE])
            expect([v, rules.unservableNumber!(v)]).toEqual([v, null]);
        for (const v of [0.1, 5e-324]) expect(unservableNumber('redisearch2', v)).toBeNull();
    });

    test('the values the check refuses are the ones the engine misses by equality on themselves', async () => {
        const values = [0.1, 0.25, 323.55, 1e-7, 5e-324, 19.99, 19.75, 123456789.123, -0.3, 7];
        const query = await loadFloats(values.map((a, i) => ({ id: `r${i}`, a })));
        const missed: number[] = [];
        for (const [i, v] of values.entries()) if (!(await query(0, v)).includes(`r${i}`)) missed.push(v);
        expect(missed).toEqual(values.filter((v) => unservableNumber('redisearch1', v) !== null));
    });

    test('every float the check passes is found by each comparison with itself and its neighbours, as the oracle says', async () => {
        await fc.assert(
            fc.asyncProperty(
                fc.array(anyFloat, { minLength: 1, maxLength: 25 }),
                fc.array(anyFloat, { maxLength: 3 }),
                async (drawn, others) => {
                    const values = drawn.filter((v) => unservableNumber('redisearch1', v) === null);
                    fc.pre(values.length > 0);
                    const rows = values.map((a, i) => ({ id: `r${i}`, a }));
                    const query = await loadFloats(rows);
                    // Parameters: each stored value, the doubles beside it, its 32-bit float, and values of their own
                    // (which the check does not restrict: a parameter is read exactly).
                    const params = [
                        ...values.flatMap((v) => [v, adjacent(v, 1), adjacent(v, -1), Math.fround(v)]),
                        ...others,
                    ].filter((x) => Number.isFinite(x));
                    const wrong: string[] = [];
                    for (const x of params) {
                        for (const [o, operator] of OPERATORS.entries()) {
                            const expected = rows
                                .filter((r) => compares(redisearchCollation, 'float', r.a, operator, x))
                                .map((r) => r.id)
                                .sort();
                            const answer = await query(o, x);
                            if (JSON.stringify(answer) !== JSON.stringify(expected))
                                wrong.push(`a ${operator} ${x}: ${answer.join(',')} instead of ${expected.join(',')}`);
                        }
                    }
                    expect(wrong).toEqual([]);
                },
            ),
            { numRuns: 40, seed: 2027 },
        );
    }, 240_000);
});
