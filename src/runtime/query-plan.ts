/**
 * A PIDM query read into a plain plan the oracle evaluates: the node tree (every reference path prefix
 * bound once, rooted at the FROM entity), the projected columns, the WHERE tree, the sort keys and the
 * parameters, named as the KVLM names them (one rule for both: `QueryParameterNamer`).
 */
import {
    isBinaryExpression,
    isBooleanValue,
    isComparison,
    isGroupExpression,
    isNotExpression,
    isNumberValue,
    isStringValue,
    type Expression,
    type Path,
    type Query,
    type Reference,
} from '../language/generated/ast.js';
import {
    attributeType,
    type CardinalityKind,
    cardinalityKind,
    comparisonOperator,
    type LogicalType,
    parameterName,
    resolvePath,
} from '../language/pidm/pidm-semantics.js';
import { QueryParameterNamer } from '../language/pidm/pidm-parameters.js';
import type { TypedValue } from './collation.js';

/** A node of the row grain: the root (FROM entity) or a reference followed from its parent. */
export interface PlanNode {
    /** The reference path from the FROM entity: `Passenger.flights.origin`. */
    key: string;
    entity: string;
    /** Undefined for the root. */
    parent?: string;
    reference?: string;
    kind: CardinalityKind | 'root';
}

/** A value read from a bound node: `node.attribute` with its type. */
export interface PlanValue {
    node: string;
    attribute: string;
    type: LogicalType;
    /** How the query spells it: `FL.departureTime`. */
    spelling: string;
}

/** A projected column with the label the application sees. */
export interface PlanColumn extends PlanValue {
    label: string;
}

/** A comparison operator (`<>` is read as `!=`). */
export type PlanOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** The WHERE tree over plan values. */
export type PlanExpression =
    | { kind: 'compare'; value: PlanValue; operator: PlanOperator; parameter?: string; literal?: TypedValue }
    | { kind: 'and' | 'or'; left: PlanExpression; right: PlanExpression }
    | { kind: 'not'; operand: PlanExpression };

/** A sort key. */
export interface PlanSortKey extends PlanValue {
    descending: boolean;
}

/** A query parameter, typed like the attribute it is compared with. */
export interface PlanParameter {
    name: string;
    type: LogicalType;
    /** The value it is compared with (for sampling parameter values from data). */
    value: PlanValue;
    operator: PlanOperator;
}

/** Everything the oracle needs about one query. */
export interface QueryPlan {
    name: string;
    root: string;
    /** Parents before children. */
    nodes: PlanNode[];
    columns: PlanColumn[];
    where?: PlanExpression;
    orderBy: PlanSortKey[];
    parameters: PlanParameter[];
}

/** Reads a linked, valid PIDM query into a plan; throws on unresolved paths (validation reports those). */
export function planQuery(query: Query): QueryPlan {
    const rootEntity = query.from.entity.ref;
    if (!rootEntity) throw new Error(`query ${query.name}: unknown FROM entity ${query.from.entity.$refText}`);
    const nodes = new Map<string, PlanNode>();
    const root: PlanNode = { key: rootEntity.name, entity: rootEntity.name, kind: 'root' };
    nodes.set(root.key, root);
    const addSteps = (steps: Reference[]): string => {
        let key = root.key;
        for (const step of steps) {
            const childKey = `${key}.${step.name}`;
            if (!nodes.has(childKey)) {
                nodes.set(childKey, {
                    key: childKey,
                    entity: step.target.ref?.name ?? step.target.$refText,
                    parent: key,
                    reference: step.name,
                    kind: cardinalityKind(step.cardinality),
                });
            }
            key = childKey;
        }
        return key;
    };
    const valueOf = (path: Path): PlanValue => {
        const resolved = resolvePath(path);
        if (!resolved?.attribute) throw new Error(`query ${query.name}: cannot resolve ${spell(path)} to an attribute`);
        return {
            node: addSteps(resolved.steps),
            attribute: resolved.attribute.name,
            type: attributeType(resolved.attribute),
            spelling: spell(path),
        };
    };
    for (const include of query.includes) {
        const resolved = resolvePath(include.path);
        if (!resolved || resolved.attribute)
            throw new Error(`query ${query.name}: cannot resolve INCLUDE ${spell(include.path)}`);
        addSteps(resolved.steps);
    }
    const columns = query.projections.map((projection) => {
        const value = valueOf(projection.path);
        return { ...value, label: projection.alias ?? value.spelling };
    });
    const parameters: PlanParameter[] = [];
    const namer = new QueryParameterNamer();
    const readExpression = (expression: Expression): PlanExpression => {
        if (isBinaryExpression(expression))
            return {
                kind: expression.operator === 'or' ? 'or' : 'and',
                left: readExpression(expression.left),
                right: readExpression(expression.right),
            };
        if (isNotExpression(expression)) return { kind: 'not', operand: readExpression(expression.operand) };
        if (isGroupExpression(expression)) return readExpression(expression.inner);
        if (isComparison(expression)) {
            const value = valueOf(expression.path);
            const operator = comparisonOperator(expression.operator) as PlanOperator;
            const literal = expression.value;
            const explicit = parameterName(literal);
            if (explicit !== undefined) {
                const { name, isNew } = namer.name(explicit, value.attribute, value.type);
                if (isNew) parameters.push({ name, type: value.type, value, operator });
                return { kind: 'compare', value, operator, parameter: name };
            }
            if (isStringValue(literal)) return { kind: 'compare', value, operator, literal: literal.value };
            if (isNumberValue(literal))
                return { kind: 'compare', value, operator, literal: literal.negative ? -literal.value : literal.value };
            if (isBooleanValue(literal)) return { kind: 'compare', value, operator, literal: literal.value === 'true' };
        }
        throw new Error(`query ${query.name}: unsupported expression ${expression.$type}`);
    };
    const where = query.where ? readExpression(query.where) : undefined;
    const orderBy = query.orderBy.map((item) => ({
        ...valueOf(item.path),
        descending: item.direction?.toLowerCase() === 'desc',
    }));
    return { name: query.name, root: root.key, nodes: [...nodes.values()], columns, where, orderBy, parameters };
}

function spell(path: Path): string {
    return path.segments.map((segment) => segment.element.$refText).join('.');
}
