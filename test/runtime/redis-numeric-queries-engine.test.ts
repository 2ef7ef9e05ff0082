/**
 * Generated RediSearch 1.2 queries on the real engine, compared with the oracle's comparisons: random conditions over
 * a float, an int and a text field (`!=`, `not`, and/or), with parameters drawn from the stored values and beside them,
 * over rows of ints, floats, negatives and repeated values. Each condition goes through the KVLM, the Redis design
 * and `bindRedisCommand`, as `kvmod verify` sends it.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { createClient } from 'redis';
import { bindRedisCommand } from '../../src/generation/redis/redis-commands.js';
import { buildRedisViewModel } from '../../src/generation/redis/redis-view-model.js';
import { compares } from '../../src/runtime/oracle.js';
import { redisearchCollation } from '../../src/runtime/redis/redis-collation.js';
import { parseKvlm } from '../generation/generation-fixtures.js';
import { startRedis, type RedisTestServer } from '../support/redis-server.js';

let server: RedisTestServer;
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
    server = await startRedis();
    client = createClient({ url: server.url });
    await client.connect();
});

afterAll(async () => {
    await client?.quit();
    await server?.stop();
});

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
    await client.sendCommand(['FLUSHALL']);
    await client.sendCommand(bindRedisCommand(collection.create, {}));
    await client.sendCommand(bindRedisCommand(collection.point, {}));
    for (const r of rows) await client.sendCommand(bindRedisCommand(collection.insert, { E_id: r.id, ...r }));
    const query = collection.queries[0]!;
    const reply = (await client.sendCommand(bindRedisCommand(query.command, params))) as unknown[];
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
    });
});
