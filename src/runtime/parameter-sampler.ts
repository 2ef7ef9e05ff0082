/**
 * Parameter sets for checking a query: most are read from one binding of the query's tree (so an
 * equality filter matches at least that row, usually several), a few are values found nowhere in the
 * data (so the query should return nothing). Deterministic for a seed.
 */
import type { Collation, TypedValue } from './collation.js';
import { SeededRandom } from './data-generator.js';
import type { ParameterValues, PreparedQuery } from './oracle.js';
import type { PlanParameter } from './query-plan.js';

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
 * Up to `count` distinct parameter sets drawn from the query's bindings, plus one made-up set when
 * `absent` > 0; a query without parameters gets one empty set.
 */
export function sampleParameters(
    prepared: PreparedQuery,
    count: number,
    absent: number,
    seed: number,
): SampledParameters[] {
    const { plan, bindings, positions, collation } = prepared;
    if (plan.parameters.length === 0) return [{ values: {}, kind: 'from data' }];
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
