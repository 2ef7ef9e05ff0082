/**
 * A served query of the DynamoDB design as plain data (`DynamoClientQuery`): what the generated client embeds and
 * what `kvmod verify` runs, both through the client runtime's `queryCommandInput` (one request, one source).
 */
import type { DynamoClientQuery, DynamoClientValue } from '../typescript/client-runtime/kvmod-dynamo-client.js';
import {
    expressionOf,
    type DynamoFilter,
    type DynamoQuery,
    type DynamoTable,
    type DynamoValue,
} from './dynamodb-design.js';

/**
 * The plain form of a query of a table. `propOf` names a parameter's property (default its KVLM name) and `column`
 * a projected field's (default the field's name, a value always there).
 */
export function dynamoClientQuery(
    pageSize: number,
    table: DynamoTable,
    query: DynamoQuery,
    names: {
        propOf?: (param: string) => string;
        column?: (field: string) => { prop: string; required: boolean };
    } = {},
): DynamoClientQuery {
    const key = table.keys[query.key];
    const value = (v: DynamoValue): DynamoClientValue => {
        if ('literal' in v) return { literal: v.literal };
        const name = query.params[v.param - 1].name;
        return { param: names.propOf?.(name) ?? name };
    };
    const attributeNames: Record<string, string> = { '#pk': key.partitionAttribute };
    if (query.range !== null) attributeNames['#sk'] = key.sortAttribute;
    const filterValues: DynamoClientQuery['filterValues'] = [];
    if (query.filter !== null) {
        const filterNames = new Map<string, string>();
        expressionOf(query.filter, filterNames, { count: 0 });
        for (const [field, alias] of filterNames) attributeNames[alias] = field;
        const visit = (filter: DynamoFilter): void => {
            if (filter.op === 'cmp') filterValues.push({ type: filter.type, value: value(filter.value) });
            else filter.args.forEach(visit);
        };
        visit(query.filter);
    }
    const read = [...new Set([...query.projections.map((p) => p.field), ...query.clientSort.map((s) => s.field)])];
    read.forEach((field, at) => (attributeNames[`#p${at}`] = field));
    const bound = (b: { value: DynamoValue; inclusive: boolean } | null) =>
        b === null ? null : { value: value(b.value), inclusive: b.inclusive };
    return {
        name: query.name,
        table: table.name,
        index: key.index,
        keyCondition: query.keyConditionExpression,
        filter: query.filterExpression,
        names: attributeNames,
        projection: read.map((_, at) => `#p${at}`).join(', '),
        scanIndexForward: query.scanIndexForward,
        limit: pageSize,
        partition: {
            prefix: key.partitionPrefix,
            parts: query.partitionValues.map((v, at) => ({ type: key.partitionParts[at].type, value: value(v) })),
        },
        range:
            query.range === null
                ? null
                : { type: query.range.type, min: bound(query.range.min), max: bound(query.range.max) },
        filterValues,
        clientSort: query.clientSort.map(({ field, type, descending }) => ({ field, type, descending })),
        columns: query.projections.map((p) => ({
            field: p.field,
            type: p.type,
            ...(names.column?.(p.field) ?? { prop: p.field, required: true }),
        })),
    };
}
