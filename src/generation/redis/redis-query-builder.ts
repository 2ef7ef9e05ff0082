/**
 * A served query lowered to a RediSearch command: its WHERE as a query string (OR binds tighter than AND there, so
 * operands are parenthesised), FT.SEARCH or FT.AGGREGATE by its sort keys, the paging slots `LIMIT $offset $count`,
 * and what the dialect strategy adds (PARAMS and DIALECT 2, or values escaped into the query string).
 */
import type { Collection, Field, KExpression, KValue, ServedQuery } from '../../language/generated/ast.js';
import { NEGATED_OPERATOR } from '../../language/kvlm/kvlm-filter.js';
import { GenerationError } from '../generation-errors.js';
import {
    encodeRedisValue,
    isNumericType,
    RedisEncodingError,
    type RedisLogicalType,
} from '../shared/redis-encoding.js';
import { escapeQueryFieldName } from '../shared/redis-escaping.js';
import { command, fieldOf, lit, mergeLiterals, slot } from './redis-command-parts.js';
import type { RedisDialectStrategy } from './redis-dialect-strategy.js';
import type { RedisArgPart, RedisField, RedisGenerationOptions, RedisQuery } from './redis-view-model-types.js';

/** A served query as an FT.SEARCH (at most one sort key) or an FT.AGGREGATE (several). */
export function buildQuery(
    query: ServedQuery,
    collection: Collection,
    index: string,
    idField: string,
    fields: RedisField[],
    opts: RedisGenerationOptions,
    strategy: RedisDialectStrategy,
): RedisQuery {
    const fieldByName = new Map(fields.map((f) => [f.name, f]));
    const usedParams: string[] = [];
    const paramTypes = new Map<string, RedisLogicalType>();
    const paramFields = new Map<string, string>();
    const filterParts: RedisArgPart[] = query.where
        ? translate(query.where, {
              collection,
              query,
              strategy,
              fieldByName,
              usedParams,
              paramTypes,
              paramFields,
              top: true,
              negated: false,
          })
        : ['*'];
    const filter = mergeLiterals(filterParts);
    const params = query.params.map((p) => ({
        name: p.name,
        type: p.type as RedisLogicalType,
        field: paramFields.get(p.name) ?? null,
    }));
    const projections = query.projections.map((p) => {
        const field = fieldByName.get(fieldOf(p.field, collection).name)!;
        return { field: field.name, label: p.label ?? field.label, type: field.type };
    });
    const sortKeys = query.sortKeys.map((k) => {
        const field = fieldByName.get(fieldOf(k.field, collection).name)!;
        return {
            field: field.name,
            direction: (k.direction.toLowerCase() === 'desc' ? 'DESC' : 'ASC') as 'ASC' | 'DESC',
            property: `@${field.name}`,
            numeric: isNumericType(field.type),
        };
    });
    const kind: RedisQuery['kind'] = sortKeys.length > 1 ? 'aggregate' : 'search';

    const page = pagingSlots(query.params.map((p) => p.name));
    const limitArgs: RedisArgPart[][] = [
        ['LIMIT'],
        [{ ...slot(page.offset, 'int', 'value'), default: '0' }],
        [{ ...slot(page.count, 'int', 'value'), default: String(opts.limit) }],
    ];
    const argv: RedisArgPart[][] = [];
    const load: string[] = [];
    if (kind === 'search') {
        argv.push(...strategy.queryHead('FT.SEARCH', index), filter);
        argv.push(...lit('RETURN', String(projections.length), ...projections.map((p) => p.field)));
        if (sortKeys.length === 1) argv.push(...lit('SORTBY', sortKeys[0]!.field, sortKeys[0]!.direction));
        argv.push(...limitArgs);
    } else {
        // FT.AGGREGATE cannot return the document key (load the id field) and compares LOADed values as
        // byte strings: numbers sort on an APPLY'd `@x + 0`, text on its case-folded sort companion.
        for (const key of sortKeys) {
            const companion = fieldByName.get(key.field)!.sortKey;
            if (!key.numeric && companion !== null) key.property = `@${companion}`;
        }
        const sortLoads = sortKeys.map((k) => (k.numeric ? k.field : k.property.slice(1)));
        for (const name of [idField, ...projections.map((p) => p.field), ...sortLoads]) {
            if (!load.includes(name)) load.push(name);
        }
        argv.push(...strategy.queryHead('FT.AGGREGATE', index), filter);
        argv.push(...lit('LOAD', String(load.length), ...load.map((n) => `@${n}`)));
        // The names an APPLY alias must not take (only an FT.AGGREGATE has aliases).
        const taken = new Set([
            ...fields.map((f) => f.name),
            ...fields.flatMap((f) => (f.sortKey !== null ? [f.sortKey] : [])),
            idField,
        ]);
        for (const key of sortKeys) {
            if (!key.numeric) continue;
            let alias = `${key.field}_num`;
            while (taken.has(alias)) alias += '_';
            taken.add(alias);
            key.property = `@${alias}`;
            argv.push(...lit('APPLY', `@${key.field} + 0`, 'AS', alias));
        }
        argv.push(...lit('SORTBY', String(sortKeys.length * 2), ...sortKeys.flatMap((k) => [k.property, k.direction])));
        argv.push(...limitArgs);
    }
    argv.push(...strategy.queryTail(usedParams.map((name) => ({ name, type: paramTypes.get(name)! }))));
    return {
        name: query.name,
        params,
        kind,
        filter: filter.map((p) => (typeof p === 'string' ? p : `$${p.param}`)).join(''),
        sortKeys,
        projections,
        load,
        limit: opts.limit,
        page,
        rowIdentity: kind === 'search' ? 'document-key' : 'id-field',
        command: command(argv),
    };
}

/** The names of the paging slots: `offset` and `count`, with `_` appended until no query parameter has the name. */
function pagingSlots(params: readonly string[]): { offset: string; count: string } {
    const free = (name: string): string => (params.includes(name) ? free(`${name}_`) : name);
    return { offset: free('offset'), count: free('count') };
}

interface TranslateContext {
    collection: Collection;
    query: ServedQuery;
    strategy: RedisDialectStrategy;
    fieldByName: ReadonlyMap<string, RedisField>;
    usedParams: string[];
    paramTypes: Map<string, RedisLogicalType>;
    paramFields: Map<string, string>;
    top: boolean;
    /** True inside an odd number of NOTs that the strategy pushes down (`negation: 'push-down'`). */
    negated: boolean;
}

/**
 * A KVLM condition as a RediSearch query string. OR binds tighter than AND in RediSearch, so every operand
 * of `|` and every compound operand of an intersection is parenthesised.
 */
function translate(expr: KExpression, ctx: TranslateContext): RedisArgPart[] {
    const inner = { ...ctx, top: false };
    switch (expr.$type) {
        case 'KGroupExpression':
            return translate(expr.inner, ctx);
        case 'KNotExpression':
            if (ctx.strategy.negation === 'push-down')
                return translate(expr.operand, { ...ctx, negated: !ctx.negated });
            return ['-(', ...translate(expr.operand, inner), ')'];
        case 'KBinaryExpression': {
            // De Morgan: a pushed-down NOT turns an intersection into a union and back.
            const operator = ctx.negated ? (expr.operator === 'and' ? 'or' : 'and') : expr.operator;
            const wrap = (e: KExpression): RedisArgPart[] => {
                const parts = translate(e, inner);
                let clause = unwrapGroups(e);
                // A pushed-down NOT leaves a single clause.
                while (ctx.strategy.negation === 'push-down' && clause.$type === 'KNotExpression')
                    clause = unwrapGroups(clause.operand);
                const plain = clause.$type === 'KComparison';
                return operator === 'and' && plain ? parts : ['(', ...parts, ')'];
            };
            let operands = flatten(expr, expr.operator).map(wrap);
            if (operator === 'and' && ctx.strategy.negation === 'push-down')
                operands = [...operands.filter((p) => p[0] !== '-'), ...operands.filter((p) => p[0] === '-')];
            return operands.flatMap((parts, i) => [...(i > 0 ? [operator === 'and' ? ' ' : ' | '] : []), ...parts]);
        }
        case 'KComparison':
            return comparison(expr, ctx);
    }
}

/** The operands of a chain of one operator (`a and b and c`), groups of the same operator included. */
function flatten(expr: KExpression, operator: string): KExpression[] {
    const inner = unwrapGroups(expr);
    if (inner.$type === 'KBinaryExpression' && inner.operator === operator)
        return [...flatten(inner.left, operator), ...flatten(inner.right, operator)];
    return [expr];
}

function unwrapGroups(expr: KExpression): KExpression {
    return expr.$type === 'KGroupExpression' ? unwrapGroups(expr.inner) : expr;
}

function comparison(expr: Extract<KExpression, { $type: 'KComparison' }>, ctx: TranslateContext): RedisArgPart[] {
    const field = fieldOf(expr.field, ctx.collection);
    const type = field.type as RedisLogicalType;
    const at = `@${escapeQueryFieldName(field.name)}:`;
    const operator = ctx.negated ? COMPLEMENT[expr.operator] : expr.operator;
    const negate = operator === '!=';
    if (!isNumericType(type)) {
        // On 2.x the clause searches the equality companion, which holds the form the query binds.
        const companion = ctx.fieldByName.get(field.name)?.equalityKey ?? null;
        const tagAt = companion !== null ? `@${escapeQueryFieldName(companion)}:` : at;
        if (expr.operator !== '=' && expr.operator !== '!=') {
            throw new GenerationError(
                `query '${ctx.query.name}': '${field.name}' is text; RediSearch cannot range over text`,
                { code: 'generation.unsupported' },
            );
        }
        const value = valueParts(expr.value, type, 'tag', ctx, field);
        return [negate ? '-' : '', tagAt, '{', ...value, '}'];
    }
    const value = valueParts(expr.value, type, 'number', ctx, field);
    switch (operator) {
        case '=':
            return [at, '[', ...value, ' ', ...value, ']'];
        case '!=':
            if (ctx.strategy.negation === 'push-down')
                return ['((', at, '[-inf (', ...value, ']) | (', at, '[(', ...value, ' +inf]))'];
            return ['-', at, '[', ...value, ' ', ...value, ']'];
        case '<':
            return [at, '[-inf (', ...value, ']'];
        case '<=':
            return [at, '[-inf ', ...value, ']'];
        case '>':
            return [at, '[(', ...value, ' +inf]'];
        case '>=':
            return [at, '[', ...value, ' +inf]'];
    }
}

/** The comparison that holds exactly where another does not (every stored row has a value of every field). */
const COMPLEMENT = NEGATED_OPERATOR;

/** A comparison's right-hand side inside the query string: a literal, or a parameter. */
function valueParts(
    value: KValue,
    type: RedisLogicalType,
    kind: 'tag' | 'number',
    ctx: TranslateContext,
    field: Field,
): RedisArgPart[] {
    if (value.$type === 'ParameterRef') {
        const name = value.parameter.ref?.name ?? value.parameter.$refText;
        if (!ctx.query.params.some((p) => p.name === name)) {
            throw new GenerationError(`query '${ctx.query.name}': unknown parameter '?${name}'`, {
                code: 'generation.model',
            });
        }
        const known = ctx.paramTypes.get(name);
        if (known !== undefined && known !== type) {
            throw new GenerationError(
                `query '${ctx.query.name}': parameter '?${name}' is compared with fields of two types (${known}, ${type})`,
                { code: 'generation.model' },
            );
        }
        ctx.paramTypes.set(name, type);
        if (!ctx.paramFields.has(name)) ctx.paramFields.set(name, field.name);
        if (!ctx.usedParams.includes(name)) ctx.usedParams.push(name);
        return ctx.strategy.queryValue(name, type, kind);
    }
    let raw: unknown;
    if (value.$type === 'KStringValue') raw = value.value;
    else if (value.$type === 'KNumberValue') raw = `${value.negative ? '-' : ''}${value.value}`;
    else raw = value.value === 'true';
    let encoded: string;
    try {
        encoded = encodeRedisValue(type, raw);
    } catch (error) {
        const detail = error instanceof RedisEncodingError ? error.message : String(error);
        throw new GenerationError(
            `query '${ctx.query.name}': the literal compared with '${field.name}' does not fit its type ${type}: ${detail}`,
            { code: 'generation.model' },
        );
    }
    if (kind === 'tag') {
        try {
            return [ctx.strategy.text.queryTag(encoded, 'query-string')];
        } catch (error) {
            if (!(error instanceof RedisEncodingError)) throw error;
            throw new GenerationError(
                `query '${ctx.query.name}': the literal compared with '${field.name}' cannot be searched for: ${error.message}`,
                { code: 'generation.unsupported' },
            );
        }
    }
    return [encoded];
}
