/**
 * The PIDM printer: text that parses back to the same model. It serves models built in memory (the
 * random and grid models of the benchmarks, which need files to time the commands users run) and relies
 * only on what such models hold: cross-references are read through their `$refText` (or the target's
 * name), never through CST nodes. The layout is one member or clause per line, one projection per line.
 */
import type { Reference } from 'langium';
import type { Cardinality, Entity, Expression, Member, Path, PidmModel, Query, Value } from '../generated/ast.js';
import { quoteKvlmString } from '../kvlm/kvlm-printer.js';

const ID_PATTERN = /^[_a-zA-Z]\w*$/;

/** Prints a PIDM AST as text: the database's name (when declared), entities, then queries, in model order. */
export function printPidm(model: PidmModel): string {
    return [...pidmChunks(model)].join('');
}

/**
 * The same text in pieces (one per entity or query), so that a caller can write a large model to a
 * stream without holding the whole text: `printPidm` is their concatenation.
 */
export function* pidmChunks(model: PidmModel): Generator<string> {
    let first = true;
    for (const database of model.databases ?? []) {
        yield `database ${name(database.name)}\n`;
        first = false;
    }
    for (const entity of model.entities) {
        yield (first ? '' : '\n') + printEntity(entity);
        first = false;
    }
    for (const query of model.queries) {
        yield (first ? '' : '\n') + printQuery(query);
        first = false;
    }
}

function printEntity(entity: Entity): string {
    const lines = [`entity ${name(entity.name)} {`];
    for (const member of entity.members) lines.push(`  ${printMember(member)}`);
    lines.push('}');
    return lines.join('\n') + '\n';
}

function printMember(member: Member): string {
    switch (member.$type) {
        case 'Attribute':
            return `${name(member.name)} ${member.type}`;
        case 'IdAttribute':
            return `id ${name(member.name)}${member.type !== undefined ? ` ${member.type}` : ''}${member.unique ? ' unique' : ''}`;
        case 'Reference':
            return `ref ${refText(member.target)}${printCardinality(member.cardinality)} ${name(member.name)}`;
    }
}

function printCardinality(cardinality: Cardinality): string {
    if (cardinality.many) return '[*]';
    if (cardinality.lower === undefined) throw new Error('printPidm: a cardinality needs `*` or a lower bound.');
    const upper = cardinality.upperMany ? '..*' : cardinality.upper !== undefined ? `..${cardinality.upper}` : '';
    return `[${cardinality.lower}${upper}]`;
}

function printQuery(query: Query): string {
    const lines = [`query ${name(query.name)}:`];
    const projections = query.projections.map((p) => printPath(p.path) + alias(p.alias));
    lines.push(`SELECT ${projections.join(',\n  ')}`);
    lines.push(`FROM ${refText(query.from.entity)}${alias(query.from.alias)}`);
    if (query.includes.length > 0) {
        lines.push(
            `INCLUDE ${query.includes.map((include) => printPath(include.path) + alias(include.alias)).join(',\n  ')}`,
        );
    }
    if (query.where) lines.push(`WHERE ${printExpression(query.where)}`);
    if (query.orderBy.length > 0) {
        const items = query.orderBy.map(
            (item) => printPath(item.path) + (item.direction ? ` ${item.direction.toUpperCase()}` : ''),
        );
        lines.push(`ORDER BY ${items.join(', ')}`);
    }
    return lines.join('\n') + '\n';
}

/**
 * An expression with the parentheses its tree needs: `and` binds tighter than `or`, both associate to
 * the left, so an `or` under an `and`, a right operand of the same operator, and a binary under `not`
 * are wrapped.
 */
export function printExpression(expression: Expression): string {
    switch (expression.$type) {
        case 'BinaryExpression': {
            const left = expression.left;
            const right = expression.right;
            const wrapLeft = expression.operator === 'and' && isBinary(left, 'or');
            const wrapRight = isBinary(right, 'or') || (expression.operator === 'and' && isBinary(right, 'and'));
            return `${wrap(printExpression(left), wrapLeft)} ${expression.operator} ${wrap(printExpression(right), wrapRight)}`;
        }
        case 'NotExpression':
            return `not ${wrap(printExpression(expression.operand), expression.operand.$type === 'BinaryExpression')}`;
        case 'GroupExpression':
            return `(${printExpression(expression.inner)})`;
        case 'Comparison':
            return `${printPath(expression.path)} ${expression.operator} ${printValue(expression.value)}`;
    }
}

function isBinary(expression: Expression, operator: 'and' | 'or'): boolean {
    return expression.$type === 'BinaryExpression' && expression.operator === operator;
}

function wrap(text: string, needed: boolean): string {
    return needed ? `(${text})` : text;
}

function printValue(value: Value): string {
    switch (value.$type) {
        case 'StringValue':
            return quoteKvlmString(value.value);
        case 'NumberValue':
            return `${value.negative ? '-' : ''}${value.value}`;
        case 'BooleanValue':
            return value.value;
    }
}

function printPath(path: Path): string {
    return path.segments.map((segment) => refText(segment.element)).join('.');
}

function alias(text: string | undefined): string {
    return text !== undefined ? ` AS ${name(text)}` : '';
}

function refText(reference: Reference): string {
    const target = reference.ref as { name?: string; alias?: string } | undefined;
    const text = reference.$refText || target?.name || target?.alias;
    return name(text);
}

function name(text: string | undefined): string {
    if (typeof text !== 'string' || !ID_PATTERN.test(text)) {
        throw new Error(
            `printPidm: ${JSON.stringify(text)} is not a name (letters, digits and '_', not starting with a digit).`,
        );
    }
    return text;
}
