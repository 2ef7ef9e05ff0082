/**
 * Answers a KVLM served query over materialized rows, in memory: what the logical design returns before
 * any engine is involved. Compared with the oracle it tells a transformation fault (the design already
 * answers differently) from a generation or engine fault (the design is right, the engine answers otherwise).
 * It compares and sorts with the engine's collation, like the oracle.
 */
import {
    isKBinaryExpression,
    isKComparison,
    isKGroupExpression,
    isKNotExpression,
    isParameterRef,
    type Collection,
    type KExpression,
    type ServedQuery,
} from '../language/generated/ast.js';
import { literalOf } from '../language/kvlm/kvlm-filter.js';
import type { LogicalType } from '../language/pidm/pidm-semantics.js';
import type { Collation, TypedValue } from './collation.js';
import type { MaterializedRow } from './materialize.js';
import { compares, type OracleRow, type ParameterValues } from './oracle.js';

function refName(reference: { ref?: { name: string }; $refText?: string }): string {
    return reference.ref?.name ?? reference.$refText ?? '';
}

/** The rows a served query returns from its collection's rows, sorted by its sort keys, in a collation. */
export function evaluateServedQuery(
    collection: Collection,
    query: ServedQuery,
    rows: readonly MaterializedRow[],
    parameters: ParameterValues,
    collation: Collation,
): OracleRow[] {
    const types = new Map(collection.fields.map((field) => [field.name, field.type as LogicalType]));
    const holds = (row: MaterializedRow, expression: KExpression): boolean => {
        if (isKBinaryExpression(expression)) {
            return expression.operator === 'or'
                ? holds(row, expression.left) || holds(row, expression.right)
                : holds(row, expression.left) && holds(row, expression.right);
        }
        if (isKNotExpression(expression)) return !holds(row, expression.operand);
        if (isKGroupExpression(expression)) return holds(row, expression.inner);
        if (isKComparison(expression)) {
            const field = refName(expression.field);
            const value = expression.value;
            let right: TypedValue;
            if (isParameterRef(value)) {
                const name = refName(value.parameter);
                if (parameters[name] === undefined)
                    throw new Error(`query ${query.name}: no value for parameter ${name}`);
                right = parameters[name];
            } else {
                const literal = literalOf(value);
                if (literal === undefined) throw new Error(`query ${query.name}: unsupported value`);
                right = literal;
            }
            return compares(collation, types.get(field) ?? 'text', row.values[field], expression.operator, right);
        }
        throw new Error(`query ${query.name}: unsupported expression ${(expression as KExpression).$type}`);
    };
    const sortKeys = query.sortKeys.map((key) => ({
        field: refName(key.field),
        descending: key.direction === 'desc',
        type: types.get(refName(key.field)) ?? 'text',
    }));
    const result: OracleRow[] = [];
    for (const row of rows) {
        if (query.where && !holds(row, query.where)) continue;
        result.push({
            values: query.projections.map((projection) => row.values[refName(projection.field)]),
            sortKey: sortKeys.map((key) => row.values[key.field]),
        });
    }
    if (sortKeys.length > 0) {
        // Each value's order key made once (a text's case folding costs its length), not twice per comparison.
        for (const row of result)
            row.orderKey = sortKeys.map((key, position) => collation.orderKey(key.type, row.sortKey[position]));
        result.sort((a, b) => {
            for (let position = 0; position < sortKeys.length; position++) {
                const key = sortKeys[position];
                const order = collation.compareOrderKeys(key.type, a.orderKey![position], b.orderKey![position]);
                if (order !== 0) return key.descending ? -order : order;
            }
            return 0;
        });
    }
    return result;
}
