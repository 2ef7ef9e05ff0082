/**
 * The oracle: what a PIDM query answers over instance data, by PIDM.md's semantics, computed directly
 * from the query and the objects (never from a generated design), so that every design can be checked
 * against it. A row is one binding of every node of the query's tree (a path prefix bound once; inner
 * join: a missing optional reference or an empty list drops the binding), kept when WHERE holds,
 * projected to SELECT; rows are a bag; WHERE compares and ORDER BY sorts with the collation of the engine the
 * design runs on (a parameter: collation.ts), never an assumed one.
 */
import type { Collation, TypedValue } from './collation.js';
import { identityOf, type InstanceData, type InstanceIndex, type InstanceObject } from './instance-data.js';
import type { PlanExpression, PlanNode, PlanValue, QueryPlan } from './query-plan.js';

/** One binding of the query's nodes to objects, aligned with `plan.nodes`. */
export type Binding = InstanceObject[];

/** Parameter values by name, typed as instance data types them. */
export type ParameterValues = Record<string, TypedValue>;

/** A result row: projected values, and the sort key values (also when not projected). */
export interface OracleRow {
    values: TypedValue[];
    sortKey: TypedValue[];
}

/**
 * Every binding of a tree of nodes over the data: the root ranges over all objects of its entity, each
 * child follows its reference from the parent's object (one object, none, or each listed object).
 */
export function bindNodes(
    nodes: readonly Pick<PlanNode, 'key' | 'entity' | 'parent' | 'reference' | 'kind'>[],
    data: InstanceData,
    index: InstanceIndex,
): Binding[] {
    const positions = new Map(nodes.map((node, position) => [node.key, position]));
    let bindings: Binding[] = (data[nodes[0].entity] ?? []).map((object) => [object]);
    for (const node of nodes.slice(1)) {
        const parentPosition = positions.get(node.parent!);
        if (parentPosition === undefined) throw new Error(`node ${node.key} has no parent ${node.parent}`);
        const targets = index.get(node.entity) ?? new Map<string, InstanceObject>();
        const reference = node.reference!;
        const next: Binding[] = [];
        // Index loops and a copy of each binding made at its size: a load binds ~100,000 rows in code not optimized
        // yet, where `for…of` and a spread make objects per step (a third of a load's garbage).
        const extend = (binding: Binding, target: InstanceObject | undefined): void => {
            if (!target) return;
            const extended: Binding = new Array<InstanceObject>(binding.length + 1);
            for (let position = 0; position < binding.length; position++) extended[position] = binding[position];
            extended[binding.length] = target;
            next.push(extended);
        };
        for (let at = 0; at < bindings.length; at++) {
            const binding = bindings[at];
            const value = binding[parentPosition][reference];
            if (value === undefined || value === null) continue;
            if (Array.isArray(value))
                for (let i = 0; i < value.length; i++) extend(binding, targets.get(identityOf(value[i])));
            else extend(binding, targets.get(identityOf(value)));
        }
        bindings = next;
    }
    return bindings;
}

/** A query's plan with its bindings computed once, to be evaluated for many parameter sets. */
export interface PreparedQuery {
    plan: QueryPlan;
    /** The engine's collation: what `=` and ORDER BY mean. */
    collation: Collation;
    bindings: Binding[];
    positions: Map<string, number>;
}

/** Binds a query's tree over the data once; the query compares and sorts with `collation`. */
export function prepareQuery(
    plan: QueryPlan,
    data: InstanceData,
    index: InstanceIndex,
    collation: Collation,
): PreparedQuery {
    return {
        plan,
        collation,
        bindings: bindNodes(plan.nodes, data, index),
        positions: new Map(plan.nodes.map((node, position) => [node.key, position])),
    };
}

/** Evaluates a prepared query for one parameter set: the rows, sorted by ORDER BY (ties in binding order). */
export function evaluatePrepared(prepared: PreparedQuery, parameters: ParameterValues): OracleRow[] {
    const { plan, positions, collation } = prepared;
    const read = (binding: Binding, value: PlanValue): TypedValue =>
        binding[positions.get(value.node)!][value.attribute] as TypedValue;
    const holds = (binding: Binding, expression: PlanExpression): boolean => {
        switch (expression.kind) {
            case 'and':
                return holds(binding, expression.left) && holds(binding, expression.right);
            case 'or':
                return holds(binding, expression.left) || holds(binding, expression.right);
            case 'not':
                return !holds(binding, expression.operand);
            case 'compare': {
                const left = read(binding, expression.value);
                let right: TypedValue | undefined;
                if (expression.parameter !== undefined) {
                    right = parameters[expression.parameter];
                    if (right === undefined)
                        throw new Error(`query ${plan.name}: no value for parameter ${expression.parameter}`);
                } else right = expression.literal!;
                return compares(collation, expression.value.type, left, expression.operator, right);
            }
        }
    };
    const rows: OracleRow[] = [];
    for (const binding of prepared.bindings) {
        if (plan.where && !holds(binding, plan.where)) continue;
        rows.push({
            values: plan.columns.map((column) => read(binding, column)),
            sortKey: plan.orderBy.map((key) => read(binding, key)),
        });
    }
    if (plan.orderBy.length > 0) rows.sort((a, b) => compareSortKeys(plan, collation, a.sortKey, b.sortKey));
    return rows;
}

/** Evaluates a query over instance data for one parameter set, with an engine's collation. */
export function evaluateQuery(
    plan: QueryPlan,
    data: InstanceData,
    index: InstanceIndex,
    collation: Collation,
    parameters: ParameterValues = {},
): OracleRow[] {
    return evaluatePrepared(prepareQuery(plan, data, index, collation), parameters);
}

/** Compares two rows' sort keys by the plan's ORDER BY in a collation (0: equal keys, any order allowed). */
export function compareSortKeys(plan: QueryPlan, collation: Collation, a: TypedValue[], b: TypedValue[]): number {
    for (const [position, key] of plan.orderBy.entries()) {
        const order = collation.compare(key.type, a[position], b[position]);
        if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
}

/** `left op right` for a typed attribute value, in a collation. */
export function compares(
    collation: Collation,
    type: PlanValue['type'],
    left: TypedValue,
    operator: string,
    right: TypedValue,
): boolean {
    switch (operator) {
        case '=':
            return collation.equals(type, left, right);
        case '!=':
        case '<>':
            return !collation.equals(type, left, right);
        case '<':
            return collation.compare(type, left, right) < 0;
        case '<=':
            return collation.compare(type, left, right) <= 0;
        case '>':
            return collation.compare(type, left, right) > 0;
        case '>=':
            return collation.compare(type, left, right) >= 0;
        default:
            throw new Error(`unknown operator ${operator}`);
    }
}
