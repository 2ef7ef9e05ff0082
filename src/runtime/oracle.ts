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
    /** The sort key values' order keys in the collation (`Collation.orderKey`), made once, when the rows are sorted. */
    orderKey?: TypedValue[];
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
    const roots = data[nodes[0].entity] ?? [];
    const bindings: Binding[] = [];
    nodeBinder(nodes, index)(roots, 0, roots.length, bindings);
    return bindings;
}

/**
 * Adds to `into` every binding of a tree of nodes whose root is one of `roots[from..to)`, in the order `bindNodes`
 * gives them: by root, then by the first child's object (in its list's order), then the next child's, and so on.
 */
export type NodeBinder = (roots: readonly InstanceObject[], from: number, to: number, into: Binding[]) => void;

/**
 * The binder of a tree of nodes (see `NodeBinder`): depth first, each binding made once, when its last node is bound
 * (a load binds ~100,000 rows: an array per node per row was a third of its garbage). Index loops: this runs in code
 * not optimized yet, where `for…of` makes objects per step.
 */
export function nodeBinder(
    nodes: readonly Pick<PlanNode, 'key' | 'entity' | 'parent' | 'reference' | 'kind'>[],
    index: InstanceIndex,
): NodeBinder {
    const positions = new Map(nodes.map((node, position) => [node.key, position]));
    const steps = nodes.slice(1).map((node) => {
        const parent = positions.get(node.parent!);
        if (parent === undefined) throw new Error(`node ${node.key} has no parent ${node.parent}`);
        return {
            parent,
            reference: node.reference!,
            targets: index.get(node.entity) ?? new Map<string, InstanceObject>(),
        };
    });
    const size = nodes.length;
    return (roots, from, to, into) => {
        if (size === 1) {
            for (let at = from; at < to; at++) into.push([roots[at]]);
            return;
        }
        const current: Binding = new Array<InstanceObject>(size);
        const last = size - 1;
        /** Binds the node at `position` (≥ 1) and those after it, the ones before bound in `current`. */
        const bind = (position: number): void => {
            const step = steps[position - 1];
            const value = current[step.parent][step.reference];
            if (value === undefined || value === null) return;
            if (Array.isArray(value)) {
                for (let i = 0; i < value.length; i++) {
                    const target = step.targets.get(identityOf(value[i]));
                    if (!target) continue;
                    current[position] = target;
                    if (position === last) into.push(current.slice());
                    else bind(position + 1);
                }
                return;
            }
            const target = step.targets.get(identityOf(value));
            if (!target) return;
            current[position] = target;
            if (position === last) into.push(current.slice());
            else bind(position + 1);
        };
        for (let at = from; at < to; at++) {
            current[0] = roots[at];
            bind(1);
        }
    };
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
    if (plan.orderBy.length > 0) {
        for (const row of rows) row.orderKey = orderKeysOf(plan, collation, row.sortKey);
        rows.sort((a, b) => compareOrderKeys(plan, collation, a.orderKey!, b.orderKey!));
    }
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

/** A row's sort key values as order keys (`Collation.orderKey`), to be compared by `compareOrderKeys`. */
export function orderKeysOf(plan: QueryPlan, collation: Collation, sortKey: TypedValue[]): TypedValue[] {
    return plan.orderBy.map((key, position) => collation.orderKey(key.type, sortKey[position]));
}

/** `compareSortKeys` of two rows whose order keys are made (`orderKeysOf`). */
export function compareOrderKeys(plan: QueryPlan, collation: Collation, a: TypedValue[], b: TypedValue[]): number {
    for (let position = 0; position < plan.orderBy.length; position++) {
        const key = plan.orderBy[position];
        const order = collation.compareOrderKeys(key.type, a[position], b[position]);
        if (order !== 0) return key.descending ? -order : order;
    }
    return 0;
}

/** Whether two rows of `evaluatePrepared` have equal sort keys (their order is free). */
export function sameSortKeys(plan: QueryPlan, collation: Collation, a: OracleRow, b: OracleRow): boolean {
    return a.orderKey && b.orderKey
        ? compareOrderKeys(plan, collation, a.orderKey, b.orderKey) === 0
        : compareSortKeys(plan, collation, a.sortKey, b.sortKey) === 0;
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
