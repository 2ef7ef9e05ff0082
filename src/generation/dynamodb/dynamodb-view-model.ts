/**
 * The DynamoDB design's view model (what templates/dynamodb/ and the engine runtime see): per collection a table,
 * its keys (the base table's and one global secondary index per further query), and per served query the `Query`
 * request that serves it. Types only.
 */
import type { LogicalType } from '../../language/pidm/pidm-semantics.js';

/** The DynamoDB view model (`templates/dynamodb/view-model.schema.json`). */
export interface DynamoViewModel {
    target: 'dynamodb';
    /** The KVLM database name. */
    database: string;
    /** The source model named by the KVLM, or null. */
    source: string | null;
    /** Items per `Query` page (`Limit`). */
    pageSize: number;
    /** One table for every collection (`--single-table`): then every `DynamoTable` names that table. */
    singleTable: boolean;
    /** Per collection its share of the design (in one table, all share one name). */
    tables: DynamoTable[];
    /** The `CreateTable` inputs, one per table on the server (the entity table last). */
    createTables: Record<string, unknown>[];
    /** The table of the entity store: entity items, reverse references, the head item and change items. */
    entityTable: string;
    /** Every served query as one line of the access-pattern table, in model order. */
    accessPatterns: DynamoAccessPattern[];
    /** What DynamoDB cannot serve by key: what `generate` warns about. */
    warnings: DynamoWarning[];
    /** The design in AWS NoSQL Workbench's data-model format (`workbench.json`): one facet per query. */
    workbench: Record<string, unknown>;
}

/** An attribute of a table's items that holds a field. */
export interface DynamoField {
    /** The attribute name (the KVLM field name). */
    name: string;
    /** The name the queries use (`FL.departureTime`). */
    label: string;
    type: LogicalType;
    /** Its DynamoDB type: `S` (text, dates and times), `N` (numbers), `BOOL`. */
    attributeType: 'S' | 'N' | 'BOOL';
}

/** One component of a key: a field's value, order-preserving (src/generation/dynamodb/dynamodb-keys.ts). */
export interface DynamoKeyPart {
    field: string;
    type: LogicalType;
}

/** A key of a table (the base table's, or a global secondary index's). */
export interface DynamoKey {
    /** The index name, or null for the base table. */
    index: string | null;
    /** The query whose key it is. */
    query: string;
    /** The partition key attribute (type S). */
    partitionAttribute: string;
    /** The partition key's constant prefix (the query's name): keeps an empty text out of the key. */
    partitionPrefix: string;
    /** The equality values the partition key holds, in order. */
    partitionParts: DynamoKeyPart[];
    /** The sort key attribute (type S): its components, then `#` and the row key. */
    sortAttribute: string;
    sortParts: DynamoKeyPart[];
    /** For an index: what it projects (`ALL`, or `INCLUDE` with the attributes its query reads). */
    projection: { type: 'ALL' | 'INCLUDE'; attributes: string[] };
    /** The key as people read it: `pk = <Q2>·country`, `sk = city·#<row key>`. */
    shape: { partition: string; sort: string };
}

/** A table: one per collection. */
export interface DynamoTable {
    /** The table's name: `<database>_<collection>` (`<database>` in one table). */
    name: string;
    collection: string;
    keyField: string;
    /** `natural` (the row key is the identifiers along the path) or `counter`. */
    keyStrategy: 'natural' | 'counter';
    fields: DynamoField[];
    /** The base table's key first, then one per global secondary index. */
    keys: DynamoKey[];
    queries: DynamoQuery[];
    /** The `CreateTable` input, as the AWS SDK and CLI take it. */
    createTable: Record<string, unknown>;
}

/** A value of a condition: a query parameter (1-based position) or a literal. */
export type DynamoValue = { param: number } | { literal: string | number | boolean };

/** A bound of the range on the sort key's leading component. */
export interface DynamoBound {
    value: DynamoValue;
    inclusive: boolean;
}

/** A residual filter (FilterExpression) in negation normal form. */
export type DynamoFilter =
    | {
          op: 'cmp';
          field: string;
          type: LogicalType;
          operator: '=' | '<>' | '<' | '<=' | '>' | '>=';
          value: DynamoValue;
      }
    | { op: 'and' | 'or'; args: DynamoFilter[] };

/** A served query as one `Query` request. */
export interface DynamoQuery {
    name: string;
    params: { name: string; type: LogicalType; position: number }[];
    /** The KVLM filter and order, as the model writes them. */
    where: string | null;
    orderBy: string[];
    /** Which key of the table serves it (0: the base table). */
    key: number;
    /** The index name, or null for the base table. */
    index: string | null;
    /** The partition key's equality values, in the key's order. */
    partitionValues: DynamoValue[];
    /** The range on the sort key's leading component, or null. */
    range: { field: string; type: LogicalType; min: DynamoBound | null; max: DynamoBound | null } | null;
    /** What DynamoDB applies after reading (counted by `Limit` before it), or null. */
    filter: DynamoFilter | null;
    /** The expressions as the request carries them (names `#a0`…, values `:v0`…). */
    keyConditionExpression: string;
    filterExpression: string | null;
    /** false: the sort key read backwards (every ORDER BY key descending). */
    scanIndexForward: boolean;
    /** ORDER BY keys the sort key does not carry: the client sorts the whole answer by them, or []. */
    clientSort: { field: string; type: LogicalType; descending: boolean }[];
    projections: { field: string; label: string; type: LogicalType }[];
    /** Items read against items returned, in words. */
    itemsRead: string;
    /** What DynamoDB cannot serve of it by key (code and sentence). */
    warnings: { code: string; message: string }[];
}

/** One line of the README's access-pattern table. */
export interface DynamoAccessPattern {
    query: string;
    table: string;
    index: string;
    keyCondition: string;
    filter: string;
    itemsRead: string;
}

/** Something DynamoDB cannot serve by key. */
export interface DynamoWarning {
    /** `dynamodb.filter`, `dynamodb.client-sort`, `dynamodb.single-partition`. */
    code: string;
    query: string;
    collection: string;
    /** Why, what the design does instead, and its cost. */
    message: string;
}
