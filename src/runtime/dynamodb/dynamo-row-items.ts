/**
 * A row as a DynamoDB item: its fields typed as the table defines them, and the key attributes of the table and of
 * every global secondary index (order-preserving encodings: ../../generation/dynamodb/dynamodb-keys.ts).
 */
import type { DynamoTable } from '../../generation/dynamodb/dynamodb-design.js';
import { DYNAMODB_LIMITS } from '../../generation/dynamodb/dynamodb-design.js';
import { partitionKey, rowKeyText, sortKey } from '../../generation/dynamodb/dynamodb-keys.js';
import type { LogicalType } from '../../language/pidm/pidm-semantics.js';
import type { TypedValue } from '../collation.js';
import { EngineError } from '../engine.js';
import type { MaterializedRow } from '../materialize.js';
import { itemValue } from '../../generation/typescript/client-runtime/kvmod-dynamo-client.js';

/** The item of a row: its fields, and the key attributes of the table and of every index. */
export function itemOf(table: DynamoTable, row: MaterializedRow): Record<string, unknown> {
    const item: Record<string, unknown> = {};
    const types = new Map(table.fields.map((field) => [field.name, field.type]));
    for (const field of table.fields) {
        const value = row.values[field.name];
        if (value !== undefined) item[field.name] = typedValue(field.type, value);
    }
    const rowKey = rowKeyText(row.keyParts);
    for (const key of table.keys) {
        const part = (p: { field: string }) => ({ type: types.get(p.field)!, value: row.values[p.field] ?? '' });
        const pk = partitionKey(key.partitionPrefix, key.partitionParts.map(part));
        const sk = sortKey(key.sortParts.map(part), rowKey);
        if (Buffer.byteLength(pk, 'utf8') > DYNAMODB_LIMITS.partitionKeyBytes)
            throw new EngineError(
                'refused',
                `collection ${table.collection}: the row ${row.keyParts.join(', ')} makes a partition key of ${Buffer.byteLength(pk, 'utf8')} bytes (${key.partitionParts.map((p) => p.field).join(', ')}), more than DynamoDB's ${DYNAMODB_LIMITS.partitionKeyBytes}`,
                { code: 'dynamodb.key-too-long' },
            );
        if (Buffer.byteLength(sk, 'utf8') > DYNAMODB_LIMITS.sortKeyBytes)
            throw new EngineError(
                'refused',
                `collection ${table.collection}: the row ${row.keyParts.join(', ')} makes a sort key of ${Buffer.byteLength(sk, 'utf8')} bytes (${[...key.sortParts.map((p) => p.field), 'the row key'].join(', ')}), more than DynamoDB's ${DYNAMODB_LIMITS.sortKeyBytes}`,
                { code: 'dynamodb.key-too-long' },
            );
        item[key.partitionAttribute] = pk;
        item[key.sortAttribute] = sk;
    }
    return item;
}

/** A value as the item holds it: numbers as numbers (N), booleans as BOOL, the rest as text (S) (the client's rule). */
export function typedValue(type: LogicalType, value: TypedValue): TypedValue {
    return itemValue(type, value);
}
