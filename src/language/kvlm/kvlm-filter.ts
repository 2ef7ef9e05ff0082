/**
 * A served query's filter as the engines plan it: in negation normal form (`not` pushed down to the comparisons,
 * nested `and`s and `or`s flattened), each comparison's field resolved and its value read once. The redis-core
 * and DynamoDB designs choose their access paths from this form and the oracle-side evaluator reads literals the
 * same way, so a filter means one thing to every target.
 */
import {
    isKBinaryExpression,
    isKBooleanValue,
    isKComparison,
    isKGroupExpression,
    isKNotExpression,
    isKNumberValue,
    isKStringValue,
    type Field,
    type KComparison,
    type KExpression,
    type KValue,
} from '../generated/ast.js';

/** A comparison operator of a KVLM filter. */
export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** The operator a `not` turns each comparison into. */
export const NEGATED_OPERATOR: Readonly<Record<FilterOperator, FilterOperator>> = {
    '=': '!=',
    '!=': '=',
    '<': '>=',
    '<=': '>',
    '>': '<=',
    '>=': '<',
};

/** A filter in negation normal form over resolved fields, its values as the caller reads them. */
export type FilterNnf<Value> =
    | { op: 'cmp'; field: Field; operator: FilterOperator; value: Value }
    | { op: 'and' | 'or'; args: FilterNnf<Value>[] };

/** A literal's logical value (a negative number signed), or undefined for a parameter reference. */
export function literalOf(value: KValue): string | number | boolean | undefined {
    if (isKStringValue(value)) return value.value;
    if (isKNumberValue(value)) return value.negative ? -value.value : value.value;
    if (isKBooleanValue(value)) return value.value === 'true';
    return undefined;
}

/**
 * The filter in negation normal form. `field` resolves a comparison's field, `value` reads its value (a parameter
 * or a literal) given the field; `unsupported` makes the error for an expression of no known kind (a node the
 * parser's recovery left untyped), which the caller reports in its own terms.
 */
export function filterNnf<Value>(
    expression: KExpression,
    read: {
        field: (comparison: KComparison) => Field;
        value: (value: KValue, field: Field) => Value;
        unsupported: () => Error;
    },
): FilterNnf<Value> {
    const walk = (node: KExpression, negate: boolean): FilterNnf<Value> => {
        if (isKGroupExpression(node)) return walk(node.inner, negate);
        if (isKNotExpression(node)) return walk(node.operand, !negate);
        if (isKBinaryExpression(node)) {
            const op = (node.operator === 'and') !== negate ? 'and' : 'or';
            // `a and (b and c)` is one conjunction: its ranges on one field can then merge.
            const args = [walk(node.left, negate), walk(node.right, negate)].flatMap((arg) =>
                arg.op === op ? arg.args : [arg],
            );
            return { op, args };
        }
        if (isKComparison(node)) {
            const field = read.field(node);
            const operator = negate ? NEGATED_OPERATOR[node.operator] : node.operator;
            return { op: 'cmp', field, operator, value: read.value(node.value, field) };
        }
        throw read.unsupported();
    };
    return walk(expression, false);
}
