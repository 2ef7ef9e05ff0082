/**
 * The JSON form of a KVLM model: plain data (no `$` properties, references by name) for tools that
 * should not depend on Langium, described by `schemas/kvlm.schema.json`. `kvlmFromJson` builds the
 * in-memory AST the printer and the validator accept, so JSON → AST → text is one call each.
 */
import type { ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import schema from '../../../schemas/kvlm.schema.json' with { type: 'json' };
import type {
    Collection,
    Field,
    FieldRole,
    KExpression,
    KValue,
    KvlmModel,
    MergeDecision,
    Node,
    Parameter,
    PathNode,
    ServedQuery,
} from '../generated/ast.js';

/** A whole KVLM model as plain data. */
export interface KvlmJson {
    database: string;
    source?: string;
    merge?: { policy: 'safe' | 'paper' | 'none' | 'cost'; threshold: number };
    collections: KvlmCollectionJson[];
    decisions: KvlmMergeDecisionJson[];
}

/** A collection: key, row grain (root and include nodes), fields and served queries. */
export interface KvlmCollectionJson {
    name: string;
    key: KvlmKeyJson;
    root: { name: string; entity: string };
    nodes: KvlmNodeJson[];
    fields: KvlmFieldJson[];
    queries: KvlmQueryJson[];
}

/** The key field and how row keys are made. */
export type KvlmKeyJson =
    | { field: string; strategy: 'natural'; parts: { node: string; attribute: string }[] }
    | { field: string; strategy: 'counter' };

/** An included reference; `parent` names the root or an earlier node. */
export interface KvlmNodeJson {
    name: string;
    parent: string;
    reference: string;
    entity: string;
    cardinality: 'one' | 'optional' | 'many';
}

/** The logical field types. */
export type KvlmTypeJson = 'text' | 'int' | 'float' | 'boolean' | 'date' | 'time' | 'datetime';

/** A field; `roles` name the queries of this collection that need it. */
export interface KvlmFieldJson {
    name: string;
    type: KvlmTypeJson;
    node: string;
    attribute: string;
    label?: string;
    indexed: boolean;
    roles: { kind: 'projected' | 'filtered' | 'ranged' | 'sorted'; queries: string[] }[];
}

/** A served query over the collection's fields. */
export interface KvlmQueryJson {
    name: string;
    params: { name: string; type: KvlmTypeJson }[];
    where?: KvlmExpressionJson;
    orderBy: { field: string; direction: 'asc' | 'desc' }[];
    select: { field: string; label?: string }[];
}

/** A filter; `group` keeps written parentheses so that JSON → text reproduces the text. */
export type KvlmExpressionJson =
    | { kind: 'and' | 'or'; left: KvlmExpressionJson; right: KvlmExpressionJson }
    | { kind: 'not'; operand: KvlmExpressionJson }
    | { kind: 'group'; inner: KvlmExpressionJson }
    | { kind: 'comparison'; field: string; operator: '=' | '!=' | '<' | '<=' | '>' | '>='; value: KvlmValueJson };

/** A compared value: a parameter by name or a literal. */
export type KvlmValueJson =
    | { kind: 'param'; name: string }
    | { kind: 'string'; value: string }
    | { kind: 'number'; value: number }
    | { kind: 'boolean'; value: boolean };

/** A merge decision of Algorithm 3: merged into `result`, or refused with a reason. */
export type KvlmMergeDecisionJson = {
    left: string;
    right: string;
    common: number;
    leftSize: number;
    rightSize: number;
} & ({ result: string; refusedBecause?: never } | { refusedBecause: string; result?: never });

type Ref = { ref?: { name?: unknown }; $refText?: string } | undefined;

function nameOf(reference: Ref): string {
    const text = reference?.$refText || reference?.ref?.name;
    return typeof text === 'string' ? text : '';
}

/** Converts a KVLM AST (parsed or in memory) to its JSON form. */
export function kvlmToJson(model: KvlmModel): KvlmJson {
    const json: KvlmJson = { database: model.name, collections: [], decisions: [] };
    if (model.source !== undefined) json.source = model.source;
    if (model.policy !== undefined && model.threshold !== undefined)
        json.merge = { policy: model.policy, threshold: model.threshold };
    json.collections = (model.collections ?? []).map(collectionToJson);
    json.decisions = (model.decisions ?? []).map(decisionToJson);
    return json;
}

function collectionToJson(collection: Collection): KvlmCollectionJson {
    const strategy = collection.strategy;
    const key: KvlmKeyJson =
        strategy?.$type === 'NaturalKey'
            ? {
                  field: collection.keyField,
                  strategy: 'natural',
                  parts: strategy.parts.map((part) => ({ node: nameOf(part.node), attribute: part.attribute })),
              }
            : { field: collection.keyField, strategy: 'counter' };
    return {
        name: collection.name,
        key,
        root: { name: collection.root.name, entity: collection.root.entity },
        nodes: (collection.nodes ?? []).map((node) => ({
            name: node.name,
            parent: nameOf(node.parent),
            reference: node.reference,
            entity: node.entity,
            cardinality: node.cardinality,
        })),
        fields: (collection.fields ?? []).map(fieldToJson),
        queries: (collection.queries ?? []).map(queryToJson),
    };
}

function fieldToJson(field: Field): KvlmFieldJson {
    const head = { name: field.name, type: field.type, node: nameOf(field.node), attribute: field.attribute };
    const tail = {
        indexed: Boolean(field.indexed),
        roles: (field.roles ?? []).map((role) => ({ kind: role.kind, queries: role.queries.map(nameOf) })),
    };
    // Key order follows the text (label before indexed and roles), so that the JSON reads like the .kvlm.
    return field.label === undefined ? { ...head, ...tail } : { ...head, label: field.label, ...tail };
}

function queryToJson(query: ServedQuery): KvlmQueryJson {
    const json: KvlmQueryJson = {
        name: query.name,
        params: (query.params ?? []).map((param) => ({ name: param.name, type: param.type })),
        orderBy: (query.sortKeys ?? []).map((key) => ({ field: nameOf(key.field), direction: key.direction })),
        select: (query.projections ?? []).map((projection) =>
            projection.label === undefined
                ? { field: nameOf(projection.field) }
                : { field: nameOf(projection.field), label: projection.label },
        ),
    };
    if (query.where) {
        const { name, params, orderBy, select } = json;
        return { name, params, where: expressionToJson(query.where), orderBy, select };
    }
    return json;
}

function expressionToJson(expression: KExpression): KvlmExpressionJson {
    switch (expression.$type) {
        case 'KBinaryExpression':
            return {
                kind: expression.operator,
                left: expressionToJson(expression.left),
                right: expressionToJson(expression.right),
            };
        case 'KNotExpression':
            return { kind: 'not', operand: expressionToJson(expression.operand) };
        case 'KGroupExpression':
            return { kind: 'group', inner: expressionToJson(expression.inner) };
        case 'KComparison':
            return {
                kind: 'comparison',
                field: nameOf(expression.field),
                operator: expression.operator,
                value: valueToJson(expression.value),
            };
    }
}

function valueToJson(value: KValue): KvlmValueJson {
    switch (value.$type) {
        case 'ParameterRef':
            return { kind: 'param', name: nameOf(value.parameter) };
        case 'KStringValue':
            return { kind: 'string', value: value.value };
        case 'KNumberValue':
            return {
                kind: 'number',
                value: Boolean(value.negative) !== value.value < 0 ? -Math.abs(value.value) : Math.abs(value.value),
            };
        case 'KBooleanValue':
            return { kind: 'boolean', value: String(value.value) === 'true' };
    }
}

function decisionToJson(decision: MergeDecision): KvlmMergeDecisionJson {
    const base = { left: decision.left, right: decision.right };
    const sizes = { common: decision.common, leftSize: decision.leftSize, rightSize: decision.rightSize };
    return decision.result !== undefined
        ? { ...base, result: decision.result, ...sizes }
        : { ...base, refusedBecause: decision.reason ?? '', ...sizes };
}

/**
 * Builds an in-memory KVLM AST from the JSON form. `$container` is set; references are
 * `{ ref, $refText }` resolved by name in the same scope the parser would use (nodes, fields and
 * queries of the collection, parameters of the query); a name that does not resolve keeps its text
 * and has no `ref`, exactly like an unlinked reference.
 */
export function kvlmFromJson(json: KvlmJson): KvlmModel {
    const model = {
        $type: 'KvlmModel',
        name: json.database,
        collections: [],
        decisions: [],
    } as unknown as Mutable<KvlmModel>;
    if (json.source !== undefined) model.source = json.source;
    if (json.merge) {
        model.policy = json.merge.policy;
        model.threshold = json.merge.threshold;
    }
    model.collections = json.collections.map((collection) => collectionFromJson(collection, model as KvlmModel));
    model.decisions = json.decisions.map((decision) => {
        const node = {
            $type: 'MergeDecision',
            $container: model,
            left: decision.left,
            right: decision.right,
            common: decision.common,
            leftSize: decision.leftSize,
            rightSize: decision.rightSize,
        } as unknown as Mutable<MergeDecision>;
        if (decision.result !== undefined) node.result = decision.result;
        else node.reason = decision.refusedBecause;
        return node as MergeDecision;
    });
    return model as KvlmModel;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function reference<T extends { name: string }>(
    candidates: readonly T[],
    name: string,
): { ref: T | undefined; $refText: string } {
    return { ref: candidates.find((candidate) => candidate.name === name), $refText: name };
}

function collectionFromJson(json: KvlmCollectionJson, model: KvlmModel): Collection {
    const collection = {
        $type: 'Collection',
        $container: model,
        name: json.name,
        keyField: json.key.field,
        nodes: [],
        fields: [],
        queries: [],
    } as unknown as Mutable<Collection>;
    const root = {
        $type: 'RootNode',
        $container: collection,
        entity: json.root.entity,
        name: json.root.name,
    } as unknown as Node;
    collection.root = root as Collection['root'];
    const nodes: Node[] = [root];
    // Nodes and queries first: fields and key parts refer to them, and references are resolved eagerly.
    const pathNodes = json.nodes.map((node) => {
        const pathNode = {
            $type: 'PathNode',
            $container: collection,
            name: node.name,
            reference: node.reference,
            entity: node.entity,
            cardinality: node.cardinality,
        } as unknown as Mutable<PathNode>;
        nodes.push(pathNode as PathNode);
        return { pathNode, parent: node.parent };
    });
    for (const { pathNode, parent } of pathNodes) {
        pathNode.parent = reference(nodes, parent) as PathNode['parent'];
    }
    collection.nodes = pathNodes.map(({ pathNode }) => pathNode as PathNode);
    const queries = json.queries.map(
        (query) =>
            ({
                $type: 'ServedQuery',
                $container: collection,
                name: query.name,
                params: [],
                sortKeys: [],
                projections: [],
            }) as unknown as Mutable<ServedQuery>,
    );
    const strategy =
        json.key.strategy === 'natural'
            ? ({ $type: 'NaturalKey', $container: collection, parts: [] } as unknown as Mutable<
                  Extract<Collection['strategy'], { $type: 'NaturalKey' }>
              >)
            : ({ $type: 'CounterKey', $container: collection } as unknown as Collection['strategy']);
    if (json.key.strategy === 'natural' && 'parts' in strategy) {
        strategy.parts = json.key.parts.map(
            (part) =>
                ({
                    $type: 'KeyPart',
                    $container: strategy,
                    node: reference(nodes, part.node),
                    attribute: part.attribute,
                }) as unknown as (typeof strategy.parts)[number],
        );
    }
    collection.strategy = strategy as Collection['strategy'];
    collection.fields = json.fields.map((fieldJson) => {
        const field = {
            $type: 'Field',
            $container: collection,
            name: fieldJson.name,
            type: fieldJson.type,
            node: reference(nodes, fieldJson.node),
            attribute: fieldJson.attribute,
            indexed: fieldJson.indexed,
            roles: [],
        } as unknown as Mutable<Field>;
        if (fieldJson.label !== undefined) field.label = fieldJson.label;
        field.roles = fieldJson.roles.map(
            (role) =>
                ({
                    $type: 'FieldRole',
                    $container: field,
                    kind: role.kind,
                    queries: role.queries.map((name) => reference(queries as ServedQuery[], name)),
                }) as unknown as FieldRole,
        );
        return field as Field;
    });
    json.queries.forEach((queryJson, index) => {
        const query = queries[index];
        const params = queryJson.params.map(
            (param) =>
                ({ $type: 'Parameter', $container: query, name: param.name, type: param.type }) as unknown as Parameter,
        );
        query.params = params;
        if (queryJson.where !== undefined)
            query.where = expressionFromJson(queryJson.where, query as ServedQuery, collection.fields, params);
        query.sortKeys = queryJson.orderBy.map(
            (key) =>
                ({
                    $type: 'SortKey',
                    $container: query,
                    field: reference(collection.fields, key.field),
                    direction: key.direction,
                }) as unknown as ServedQuery['sortKeys'][number],
        );
        query.projections = queryJson.select.map((projection) => {
            const node = {
                $type: 'KProjection',
                $container: query,
                field: reference(collection.fields, projection.field),
            } as unknown as Mutable<ServedQuery['projections'][number]>;
            if (projection.label !== undefined) node.label = projection.label;
            return node as ServedQuery['projections'][number];
        });
    });
    collection.queries = queries as ServedQuery[];
    return collection as Collection;
}

function expressionFromJson(
    json: KvlmExpressionJson,
    container: object,
    fields: readonly Field[],
    params: readonly Parameter[],
): KExpression {
    const node: Record<string, unknown> = { $container: container };
    switch (json.kind) {
        case 'and':
        case 'or':
            Object.assign(node, { $type: 'KBinaryExpression', operator: json.kind });
            node.left = expressionFromJson(json.left, node, fields, params);
            node.right = expressionFromJson(json.right, node, fields, params);
            break;
        case 'not':
            Object.assign(node, { $type: 'KNotExpression' });
            node.operand = expressionFromJson(json.operand, node, fields, params);
            break;
        case 'group':
            Object.assign(node, { $type: 'KGroupExpression' });
            node.inner = expressionFromJson(json.inner, node, fields, params);
            break;
        case 'comparison':
            Object.assign(node, {
                $type: 'KComparison',
                field: reference(fields, json.field),
                operator: json.operator,
            });
            node.value = valueFromJson(json.value, node, params);
            break;
    }
    return node as unknown as KExpression;
}

function valueFromJson(json: KvlmValueJson, container: object, params: readonly Parameter[]): KValue {
    switch (json.kind) {
        case 'param':
            return {
                $type: 'ParameterRef',
                $container: container,
                parameter: reference(params, json.name),
            } as unknown as KValue;
        case 'string':
            return { $type: 'KStringValue', $container: container, value: json.value } as unknown as KValue;
        case 'number':
            return {
                $type: 'KNumberValue',
                $container: container,
                negative: json.value < 0 || Object.is(json.value, -0),
                value: Math.abs(json.value),
            } as unknown as KValue;
        case 'boolean':
            return {
                $type: 'KBooleanValue',
                $container: container,
                value: json.value ? 'true' : 'false',
            } as unknown as KValue;
    }
}

/** One problem found in a JSON document: where (a JSON pointer, `''` for the root) and what. */
export interface KvlmJsonError {
    pointer: string;
    message: string;
}

/** The JSON Schema (2020-12) of the JSON form. */
export const kvlmJsonSchema: object = schema;

let compiled: ReturnType<Ajv2020['compile']> | undefined;

/**
 * Checks data against the schema; an empty list means valid. Each error names the exact place with a
 * JSON pointer, and the message reads as a sentence about that place.
 */
export function validateKvlmJson(data: unknown): KvlmJsonError[] {
    compiled ??= new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(kvlmJsonSchema);
    if (compiled(data)) {
        return [];
    }
    const errors = (compiled.errors ?? []).filter(
        (error) => error.keyword !== 'if' && error.keyword !== 'oneOf' && error.keyword !== 'anyOf',
    );
    const seen = new Set<string>();
    const result: KvlmJsonError[] = [];
    for (const error of errors.length > 0 ? errors : (compiled.errors ?? [])) {
        const converted = convertError(error);
        const key = `${converted.pointer}\u0000${converted.message}`;
        if (!seen.has(key)) {
            seen.add(key);
            result.push(converted);
        }
    }
    return result;
}

function convertError(error: ErrorObject): KvlmJsonError {
    const at = error.instancePath;
    const where = at === '' ? 'the model' : at;
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
        case 'required':
            return {
                pointer: `${at}/${escapePointer(String(params.missingProperty))}`,
                message: `${where} is missing the required property '${String(params.missingProperty)}'.`,
            };
        case 'additionalProperties':
        case 'unevaluatedProperties': {
            const property = String(params.additionalProperty ?? params.unevaluatedProperty);
            return {
                pointer: `${at}/${escapePointer(property)}`,
                message: `${where} has an unknown property '${property}'.`,
            };
        }
        case 'enum':
            return {
                pointer: at,
                message: `${where} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
            };
        case 'const':
            return { pointer: at, message: `${where} must be ${JSON.stringify(params.allowedValue)}.` };
        case 'type':
            return { pointer: at, message: `${where} must be of type ${String(params.type)}.` };
        case 'false schema':
            return { pointer: at, message: `${where} is not allowed here.` };
        case 'pattern':
            return {
                pointer: at,
                message: `${where} must be a name: letters, digits and '_', not starting with a digit.`,
            };
        default:
            return { pointer: at, message: `${where} ${error.message ?? 'is invalid'}.` };
    }
}

function escapePointer(segment: string): string {
    return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
