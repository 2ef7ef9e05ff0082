/**
 * Parameter sets for checking a query: most are read from one binding of the query's tree (so an
 * equality filter matches at least that row, usually several), a few are values found nowhere in the
 * data (so the query should return nothing). The bindings read are those the query's literal comparisons
 * let through: with `status = "cancelled" and clinic = ?c`, a clinic read from any row would mostly be one
 * without a cancelled row, and the query would answer nothing. Deterministic for a seed.
 */
import type { Collation, TypedValue } from './collation.js';
import { SeededRandom } from './data-generator.js';
import { compares, type Binding, type ParameterValues, type PreparedQuery } from './oracle.js';
import type { PlanExpression, PlanParameter } from './query-plan.js';

/** A parameter set and whether it was drawn from the data or made up to match nothing. */
export interface SampledParameters {
    values: ParameterValues;
    kind: 'from data' | 'made up';
}

/** A value of a type that generated data never holds. */
function absentValue(parameter: PlanParameter): TypedValue {
    switch (parameter.type) {
        case 'int':
            return -987654321;
        case 'float':
            return -98765.4321;
        case 'boolean':
            return true;
        case 'date':
            return '1901-02-03';
        case 'time':
            return '04:05:06';
        case 'datetime':
            return '1901-02-03T04:05:06';
        default:
            return 'no such value ∅';
    }
}

const RANGE = new Set(['<', '<=', '>', '>=']);

/** Makes a lower and an upper bound on one attribute a non-empty interval (swaps them when reversed). */
function orderBounds(parameters: readonly PlanParameter[], values: ParameterValues, collation: Collation): void {
    for (const lower of parameters.filter((p) => p.operator === '>' || p.operator === '>=')) {
        for (const upper of parameters.filter((p) => p.operator === '<' || p.operator === '<=')) {
            if (lower.value.node !== upper.value.node || lower.value.attribute !== upper.value.attribute) continue;
            if (collation.compare(lower.type, values[lower.name], values[upper.name]) > 0) {
                [values[lower.name], values[upper.name]] = [values[upper.name], values[lower.name]];
            }
        }
    }
}

/**
 * The WHERE of a binding with only its literal comparisons known: true or false when they decide it, undefined when
 * it depends on parameter values (Kleene's three-valued logic: `false and ?` is false, `true or ?` is true).
 */
function fixedPart(prepared: PreparedQuery, binding: Binding, expression: PlanExpression): boolean | undefined {
    switch (expression.kind) {
        case 'and': {
            const left = fixedPart(prepared, binding, expression.left);
            if (left === false) return false;
            const right = fixedPart(prepared, binding, expression.right);
            return right === false ? false : left && right;
        }
        case 'or': {
            const left = fixedPart(prepared, binding, expression.left);
            if (left === true) return true;
            const right = fixedPart(prepared, binding, expression.right);
            return right === true ? true : left === false && right === false ? false : undefined;
        }
        case 'not': {
            const operand = fixedPart(prepared, binding, expression.operand);
            return operand === undefined ? undefined : !operand;
        }
        case 'compare': {
            if (expression.parameter !== undefined) return undefined;
            const { node, attribute, type } = expression.value;
            const value = binding[prepared.positions.get(node)!][attribute] as TypedValue;
            return compares(prepared.collation, type, value, expression.operator, expression.literal!);
        }
    }
}

/**
 * Up to `count` distinct parameter sets drawn from the query's bindings, plus one made-up set when
 * `absent` > 0; a query without parameters gets one empty set.
 */
export function sampleParameters(
    prepared: PreparedQuery,
    count: number,
    absent: number,
    seed: number,
): SampledParameters[] {
    const { plan, positions, collation } = prepared;
    if (plan.parameters.length === 0) return [{ values: {}, kind: 'from data' }];
    // The bindings some parameter values would return; all of them when the literals let none through (the query
    // then answers nothing whatever the values).
    const open = plan.where ? prepared.bindings.filter((b) => fixedPart(prepared, b, plan.where!) !== false) : [];
    const bindings = open.length > 0 ? open : prepared.bindings;
    const random = new SeededRandom(seed);
    const sets: SampledParameters[] = [];
    const seen = new Set<string>();
    for (let attempt = 0; attempt < count * 10 && sets.length < count && bindings.length > 0; attempt++) {
        const binding = random.pick(bindings);
        const values: ParameterValues = {};
        let usable = true;
        for (const parameter of plan.parameters) {
            // A range bound comes from another binding: bounds read from one row would make `a >= x and a < x`.
            const source = RANGE.has(parameter.operator) ? random.pick(bindings) : binding;
            const value = source[positions.get(parameter.value.node)!][parameter.value.attribute] as TypedValue;
            // The engine is never asked for a value its collation cannot look for (RediSearch: a blank tag).
            if (!collation.searchable(parameter.type, value)) usable = false;
            values[parameter.name] = value;
        }
        orderBounds(plan.parameters, values, collation);
        const key = JSON.stringify(values);
        if (!usable || seen.has(key)) continue;
        seen.add(key);
        sets.push({ values, kind: 'from data' });
    }
    if (absent > 0) {
        // Made-up values (found nowhere in the data): equality finds nothing, ranges cut at an extreme.
        const values: ParameterValues = {};
        for (const parameter of plan.parameters) values[parameter.name] = absentValue(parameter);
        sets.push({ values, kind: 'made up' });
    }
    return sets;
}
