/**
 * The KVLM printer: the one canonical text of a KVLM model. The transformation builds ASTs in memory
 * and prints them here, so this file must not rely on anything only the parser provides (`$container`,
 * CST nodes, linked references): a cross-reference is read through its `$refText`, or its target's name.
 */
import type { Reference } from 'langium';
import type {
    Collection,
    Field,
    FieldRole,
    KExpression,
    KValue,
    KvlmModel,
    MergeDecision,
    PathNode,
    ServedQuery,
} from '../generated/ast.js';

/** The order field roles are printed in, whatever order the AST holds them in. */
export const KVLM_ROLE_ORDER = ['projected', 'filtered', 'ranged', 'sorted'] as const;

const INDENT = '    ';
const ID_PATTERN = /^[_a-zA-Z]\w*$/;

/** Prints a KVLM AST (parsed, or built in memory by the transformation) as canonical .kvlm text. */
export function printKvlm(model: KvlmModel): string {
    const lines: string[] = [];
    lines.push(`database ${printName(model.name, 'database name')}`);
    if (model.source !== undefined) {
        lines.push(`source ${quoteKvlmString(model.source)}`);
    }
    if (model.policy !== undefined || model.threshold !== undefined) {
        if (model.policy === undefined || model.threshold === undefined) {
            throw new Error('printKvlm: the merge header needs both a policy and a threshold.');
        }
        lines.push(`merge ${model.policy} threshold ${formatKvlmNumber(model.threshold)}`);
    }
    for (const collection of model.collections ?? []) {
        lines.push('');
        lines.push(...printCollection(collection));
    }
    const decisions = model.decisions ?? [];
    if (decisions.length > 0) {
        lines.push('');
        for (const decision of decisions) {
            lines.push(printDecision(decision));
        }
    }
    return lines.join('\n') + '\n';
}

function printCollection(collection: Collection): string[] {
    const where = `collection '${collection.name}'`;
    const lines = [`collection ${printName(collection.name, 'collection name')} {`];
    lines.push(INDENT + printKey(collection, where));
    if (!collection.root) {
        throw new Error(`printKvlm: ${where} has no root node.`);
    }
    lines.push(
        `${INDENT}from ${printName(collection.root.entity, 'entity')} as ${printName(collection.root.name, 'node name')}`,
    );
    for (const node of collection.nodes ?? []) {
        lines.push(INDENT + printPathNode(node));
    }
    for (const field of collection.fields ?? []) {
        lines.push(INDENT + printField(field, where));
    }
    for (const query of collection.queries ?? []) {
        lines.push(...printQuery(query, where).map((line) => INDENT + line));
    }
    lines.push('}');
    return lines;
}

function printKey(collection: Collection, where: string): string {
    const head = `key ${printName(collection.keyField, 'key field name')} `;
    const strategy = collection.strategy;
    if (!strategy) {
        throw new Error(`printKvlm: ${where} has no key strategy.`);
    }
    if (strategy.$type === 'CounterKey') {
        return head + 'counter';
    }
    if (strategy.parts.length === 0) {
        throw new Error(`printKvlm: the natural key of ${where} has no parts.`);
    }
    const parts = strategy.parts.map(
        (part) => `${refText(part.node, 'key node')}.${printName(part.attribute, 'attribute')}`,
    );
    return `${head}natural(${parts.join(', ')})`;
}

function printPathNode(node: PathNode): string {
    return (
        `include ${printName(node.name, 'node name')} = ${refText(node.parent, 'parent node')}.` +
        `${printName(node.reference, 'reference')} -> ${printName(node.entity, 'entity')} ${node.cardinality}`
    );
}

function printField(field: Field, where: string): string {
    let text =
        `field ${printName(field.name, 'field name')}: ${field.type} = ` +
        `${refText(field.node, 'field node')}.${printName(field.attribute, 'attribute')}`;
    if (field.label !== undefined) {
        text += ` label ${quoteKvlmString(field.label)}`;
    }
    if (field.indexed) {
        text += ' indexed';
    }
    for (const role of sortRoles(field.roles ?? [])) {
        if (role.queries.length === 0) {
            throw new Error(`printKvlm: role '${role.kind}' of field '${field.name}' in ${where} names no query.`);
        }
        text += ` ${role.kind}(${role.queries.map((query) => refText(query, 'query')).join(', ')})`;
    }
    return text;
}

/** A stable sort: roles of the same kind keep their relative order. */
function sortRoles(roles: readonly FieldRole[]): FieldRole[] {
    const rank = (role: FieldRole) => {
        const index = (KVLM_ROLE_ORDER as readonly string[]).indexOf(role.kind);
        return index < 0 ? KVLM_ROLE_ORDER.length : index;
    };
    return roles
        .map((role, index) => ({ role, index }))
        .sort((a, b) => rank(a.role) - rank(b.role) || a.index - b.index)
        .map((entry) => entry.role);
}

function printQuery(query: ServedQuery, where: string): string[] {
    const lines = [`query ${printName(query.name, 'query name')} {`];
    for (const param of query.params ?? []) {
        lines.push(`${INDENT}param ${printName(param.name, 'parameter name')}: ${param.type}`);
    }
    if (query.where) {
        lines.push(`${INDENT}where ${printKvlmExpression(query.where)}`);
    }
    const sortKeys = query.sortKeys ?? [];
    if (sortKeys.length > 0) {
        lines.push(
            `${INDENT}order by ${sortKeys.map((key) => `${refText(key.field, 'sort field')} ${key.direction}`).join(', ')}`,
        );
    }
    const projections = query.projections ?? [];
    if (projections.length === 0) {
        throw new Error(`printKvlm: query '${query.name}' in ${where} selects nothing.`);
    }
    const select = projections.map(
        (projection) =>
            refText(projection.field, 'projected field') +
            (projection.label !== undefined ? ` as ${quoteKvlmString(projection.label)}` : ''),
    );
    lines.push(`${INDENT}select ${select.join(', ')}`);
    lines.push('}');
    return lines;
}

const PRECEDENCE = { or: 1, and: 2 } as const;

/**
 * Prints a filter. Parenthesis nodes print as written; where an in-memory AST nests a looser operator
 * under a tighter one without a group, parentheses are added so that the text means what the AST means.
 */
export function printKvlmExpression(expression: KExpression, context = 0): string {
    switch (expression.$type) {
        case 'KBinaryExpression': {
            const own = PRECEDENCE[expression.operator];
            const text = `${printKvlmExpression(expression.left, own)} ${expression.operator} ${printKvlmExpression(expression.right, own)}`;
            return own < context ? `(${text})` : text;
        }
        case 'KNotExpression':
            return `not ${printKvlmExpression(expression.operand, 3)}`;
        case 'KGroupExpression':
            return `(${printKvlmExpression(expression.inner, 0)})`;
        case 'KComparison':
            return `${refText(expression.field, 'compared field')} ${expression.operator} ${printValue(expression.value)}`;
    }
}

function printValue(value: KValue): string {
    switch (value.$type) {
        case 'ParameterRef':
            return `?${refText(value.parameter, 'parameter')}`;
        case 'KStringValue':
            return quoteKvlmString(value.value);
        case 'KNumberValue': {
            const negative = Boolean(value.negative) !== value.value < 0;
            return (negative ? '-' : '') + formatKvlmNumber(Math.abs(value.value));
        }
        case 'KBooleanValue':
            return String(value.value);
    }
}

function printDecision(decision: MergeDecision): string {
    let text = `merge ${printName(decision.left, 'merged collection')} + ${printName(decision.right, 'merged collection')} `;
    if (decision.result !== undefined) {
        text += `-> ${printName(decision.result, 'merge result')}`;
    } else if (decision.reason !== undefined) {
        text += `refused ${quoteKvlmString(decision.reason)}`;
    } else {
        throw new Error(
            `printKvlm: the merge decision '${decision.left} + ${decision.right}' has neither a result nor a reason.`,
        );
    }
    return `${text} common ${formatKvlmNumber(decision.common)} of ${formatKvlmNumber(decision.leftSize)} and ${formatKvlmNumber(decision.rightSize)}`;
}

/** A cross-reference's name: its text as written, or its target's name in an AST built in memory. */
function refText(reference: Pick<Reference, '$refText' | 'ref'> | undefined, what: string): string {
    const text = reference?.$refText || (reference?.ref as { name?: unknown } | undefined)?.name;
    if (typeof text !== 'string' || text === '') {
        throw new Error(`printKvlm: a reference to a ${what} has neither text nor target.`);
    }
    return printName(text, what);
}

/** Names are IDs; keyword spellings are IDs too and re-parse because the grammar's KName allows them. */
function printName(name: string | undefined, what: string): string {
    if (typeof name !== 'string' || !ID_PATTERN.test(name)) {
        throw new Error(
            `printKvlm: ${JSON.stringify(name)} is not a valid ${what} (letters, digits and '_', not starting with a digit).`,
        );
    }
    return name;
}

/**
 * Quotes a string so that Langium's STRING converter gives it back: backslash, quote and the escapes
 * the converter knows; other characters (unicode included) are written as they are.
 */
export function quoteKvlmString(value: string): string {
    let out = '"';
    for (const char of value) {
        switch (char) {
            case '\\':
                out += '\\\\';
                break;
            case '"':
                out += '\\"';
                break;
            case '\n':
                out += '\\n';
                break;
            case '\r':
                out += '\\r';
                break;
            case '\t':
                out += '\\t';
                break;
            case '\b':
                out += '\\b';
                break;
            case '\f':
                out += '\\f';
                break;
            case '\v':
                out += '\\v';
                break;
            case '\0':
                out += '\\0';
                break;
            default:
                out += char;
        }
    }
    return out + '"';
}

/** Writes a non-negative number the NUMBER terminal accepts: plain decimal digits, never an exponent. */
export function formatKvlmNumber(value: number): string {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new Error(`printKvlm: ${String(value)} is not a non-negative finite number.`);
    }
    const text = String(value);
    const match = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
    if (!match) {
        return text;
    }
    const digits = match[1] + (match[2] ?? '');
    const point = 1 + Number(match[3]);
    if (point <= 0) {
        return `0.${'0'.repeat(-point)}${digits}`;
    }
    if (point >= digits.length) {
        return digits + '0'.repeat(point - digits.length);
    }
    return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
